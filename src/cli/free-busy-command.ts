/**
 * `calq busy` and `calq slots`: QueryFreeBusy and FindFreeSlots against a
 * running server, for people (and what `calq meet`, meet-command.ts, shares
 * with them: the tentative policy, working hours, numbers, the answer). They connect, send the window and print
 * refusals exactly as `calq search` does (service-client.ts); the window is
 * sent as typed and read by the service in --timezone. They print tables of
 * local times (free-busy-table.ts) or, with --json, the response as the
 * service sent it.
 *
 * Options mirror the request fields of calendar_service.proto, and what is
 * required there is required here: --tentative has no default, as the
 * contract has none. The command checks how flags are spelled and combined
 * (a whole number, "09:00-17:00", "1-5", --working-days only with
 * --working-hours); which values are allowed (the bounds the contract
 * declares, hours in order) is the service's to say with INVALID_SLOT_QUERY,
 * so each rule is written once.
 */
import { parseArgs } from "node:util";
import { type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import {
  FindFreeSlotsResponseSchema,
  QueryFreeBusyResponseSchema,
  type TentativePolicy,
  TentativePolicySchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import type { Environment } from "../config/calq-config.js";
import { DEFAULT_SLOTS } from "../page-size.js";
import { enumFlagValues } from "./enum-flag.js";
import { renderFreeBusy, renderFreeSlots } from "./free-busy-table.js";
import { connectionOptions, describeFailure, serviceClient } from "./service-client.js";
import { UsageError } from "./usage-error.js";

/** `--tentative` values: the contract's policies as a command line spells them (TENTATIVE_POLICY_BUSY is busy). */
const TENTATIVE_POLICIES = enumFlagValues(TentativePolicySchema) as ReadonlyMap<string, TentativePolicy>;

/** The policy `--tentative` names; a missing or unknown one is a usage mistake (the contract has no default). */
export function tentativePolicy(value: string | undefined): TentativePolicy {
  if (value === undefined) throw new UsageError(`--tentative is required: ${[...TENTATIVE_POLICIES.keys()].join(" or ")}`);
  const tentative = TENTATIVE_POLICIES.get(value);
  if (tentative === undefined) throw new UsageError(`--tentative must be ${[...TENTATIVE_POLICIES.keys()].join(" or ")}, not "${value}"`);
  return tentative;
}

/** The options both commands take: the calendars, the window, --json and the connection. */
function sharedOptions(env: Environment) {
  return {
    calendar: { type: "string", multiple: true },
    start: { type: "string" },
    "end-exclusive": { type: "string" },
    timezone: { type: "string" },
    json: { type: "boolean", default: false },
    ...connectionOptions(env),
  } as const;
}

/** The request fields both commands send. */
interface WindowFields {
  readonly calendarIds: string[];
  readonly start: string;
  readonly endExclusive: string;
  readonly timezone: string;
}

function windowFields(values: { calendar?: string[]; start?: string; "end-exclusive"?: string; timezone?: string }): WindowFields {
  if (values.calendar === undefined) throw new UsageError("--calendar is required (repeat it for several calendars)");
  for (const required of ["start", "end-exclusive", "timezone"] as const) {
    if (values[required] === undefined) throw new UsageError(`--${required} is required`);
  }
  return { calendarIds: values.calendar, start: values.start!, endExclusive: values["end-exclusive"]!, timezone: values.timezone! };
}

/** Runs `calq busy`: 0 answered, 1 refused or unreachable. */
export async function busy(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({ args: argv, options: sharedOptions(env), strict: true });
  const request = windowFields(values);
  const { client, callOptions } = serviceClient(values);
  return answer(
    () => client.queryFreeBusy(request, callOptions),
    values.json ? jsonLine(QueryFreeBusyResponseSchema) : renderFreeBusy,
    out,
    err,
  );
}

/** Runs `calq slots`: 0 answered (also with no slot), 1 refused or unreachable. */
export async function slots(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...sharedOptions(env),
      duration: { type: "string" },
      tentative: { type: "string" },
      step: { type: "string" },
      "working-hours": { type: "string" },
      "working-days": { type: "string" },
      limit: { type: "string" },
    },
    strict: true,
  });
  const window = windowFields(values);
  if (values.duration === undefined) throw new UsageError("--duration is required (minutes)");
  const tentative = tentativePolicy(values.tentative);
  const request = {
    ...window,
    durationMinutes: wholeNumber(values.duration, "--duration"),
    stepMinutes: values.step === undefined ? 0 : wholeNumber(values.step, "--step"),
    tentative,
    ...workingHoursFields(values),
    limit: values.limit === undefined ? 0 : wholeNumber(values.limit, "--limit"),
  };
  const { client, callOptions } = serviceClient(values);
  const asked = request.limit === 0 ? DEFAULT_SLOTS : request.limit;
  return answer(
    () => client.findFreeSlots(request, callOptions),
    values.json ? jsonLine(FindFreeSlotsResponseSchema) : (response) => renderFreeSlots(response, asked),
    out,
    err,
  );
}

/** --working-hours and --working-days as the request's three fields; the days go only with hours. */
export function workingHoursFields(values: { "working-hours"?: string; "working-days"?: string }) {
  if (values["working-days"] !== undefined && values["working-hours"] === undefined) {
    throw new UsageError("--working-days goes with --working-hours");
  }
  const hours = values["working-hours"] === undefined ? { start: "", end: "" } : workingHours(values["working-hours"]);
  return {
    workingHoursStart: hours.start,
    workingHoursEnd: hours.end,
    workingDays: values["working-days"] === undefined ? [] : workingDays(values["working-days"]),
  };
}

/** Makes the call and prints its answer as `render` writes it, or the refusal as `calq search` prints it. */
export async function answer<Response>(
  call: () => Promise<Response>,
  render: (response: Response) => string,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  let response: Response;
  try {
    response = await call();
  } catch (error) {
    err.write(`${describeFailure(error)}\n`);
    return 1;
  }
  out.write(render(response));
  return 0;
}

/** --json: the response as the service sent it, on one line. */
export function jsonLine<Desc extends DescMessage>(schema: Desc): (response: MessageShape<Desc>) => string {
  return (response) => `${JSON.stringify(toJson(schema, response))}\n`;
}

/** A whole number written in decimal digits, within what the request's int32 field can carry. */
export function wholeNumber(text: string, flag: string): number {
  if (!/^-?\d{1,10}$/.test(text.trim())) throw new UsageError(`${flag} ${text} is not a whole number`);
  const value = Number(text);
  if (Math.abs(value) > 2 ** 31 - 1) throw new UsageError(`${flag} ${text} is out of range`);
  return value;
}

/** "09:00-17:00" as the request's working_hours_start and working_hours_end (calq people set reads it too). */
export function workingHours(text: string): { start: string; end: string } {
  const span = /^(\d{2}:\d{2})-(\d{2}:\d{2})$/.exec(text);
  if (span === null) throw new UsageError(`--working-hours must be local FROM-TO in 24-hour time, as 09:00-17:00, not "${text}"`);
  return { start: span[1], end: span[2] };
}

/** "1-5", "1,3,5" or "1-3,6" as ISO weekdays (1 Monday to 7 Sunday), each once (calq people set reads it too). */
export function workingDays(text: string): number[] {
  const days: number[] = [];
  for (const part of text.split(",")) {
    const range = /^([1-7])(?:-([1-7]))?$/.exec(part.trim());
    if (range === null) throw new UsageError(`--working-days takes weekdays 1 (Monday) to 7 (Sunday) as 1-5 or 1,3,5, not "${text}"`);
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (to < from) throw new UsageError(`--working-days: the range ${part.trim()} runs backwards`);
    for (let day = from; day <= to; day++) {
      if (days.includes(day)) throw new UsageError(`--working-days names day ${day} twice`);
      days.push(day);
    }
  }
  return days;
}

/**
 * `calq meet`: FindMeetingTimes against a running server, for people, as
 * `calq slots` is for FindFreeSlots: the same window, tentative policy,
 * working hours and connection flags, the same refusals, and a table in the
 * style of `calq slots` (meeting-table.ts), or with --json the response as
 * the service sent it. Attendees are --required and --optional calendars.
 * What values are allowed (the bounds the contract declares) is the
 * service's to say, with INVALID_MEETING_QUERY or INVALID_CALENDAR_IDS.
 */
import { parseArgs } from "node:util";
import { FindMeetingTimesResponseSchema } from "../../gen/calq/v1/calendar_service_pb.js";
import type { Environment } from "../config/calq-config.js";
import { answer, jsonLine, tentativePolicy, wholeNumber, workingHoursFields } from "./free-busy-command.js";
import { renderMeetingTimes } from "./meeting-table.js";
import { connectionOptions, serviceClient } from "./service-client.js";
import { UsageError } from "./usage-error.js";

/** Runs `calq meet`: 0 answered (also when nothing fits), 1 refused or unreachable. */
export async function meet(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      required: { type: "string", multiple: true },
      optional: { type: "string", multiple: true },
      start: { type: "string" },
      "end-exclusive": { type: "string" },
      timezone: { type: "string" },
      duration: { type: "string" },
      tentative: { type: "string" },
      step: { type: "string" },
      "buffer-before": { type: "string" },
      "buffer-after": { type: "string" },
      "min-optional": { type: "string" },
      "working-hours": { type: "string" },
      "working-days": { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean", default: false },
      ...connectionOptions(env),
    },
    strict: true,
  });
  if (values.required === undefined) throw new UsageError("--required is required (repeat it for several attendees who must come)");
  for (const needed of ["start", "end-exclusive", "timezone", "duration"] as const) {
    if (values[needed] === undefined) throw new UsageError(`--${needed} is required`);
  }
  const number = (flag: "step" | "buffer-before" | "buffer-after" | "min-optional" | "limit") =>
    values[flag] === undefined ? 0 : wholeNumber(values[flag], `--${flag}`);
  const request = {
    requiredCalendarIds: values.required,
    optionalCalendarIds: values.optional ?? [],
    start: values.start!,
    endExclusive: values["end-exclusive"]!,
    timezone: values.timezone!,
    durationMinutes: wholeNumber(values.duration!, "--duration"),
    stepMinutes: number("step"),
    bufferBeforeMinutes: number("buffer-before"),
    bufferAfterMinutes: number("buffer-after"),
    tentative: tentativePolicy(values.tentative),
    minOptionalPercent: number("min-optional"),
    ...workingHoursFields(values),
    limit: number("limit"),
  };
  const { client, callOptions } = serviceClient(values);
  return answer(
    () => client.findMeetingTimes(request, callOptions),
    values.json ? jsonLine(FindMeetingTimesResponseSchema) : renderMeetingTimes,
    out,
    err,
  );
}

/**
 * `calq calendars add|update|rm|ls` and `calq people set`: the calendar
 * registry's admin methods (calendar_admin_service.proto) against a running
 * server, for people holding calendar.admin. What a spec may hold is the
 * service's to check (INVALID_SPEC names every field at fault, which this
 * prints one per line); the command checks only how flags are spelled.
 * `update` reads the calendar first and changes only the fields whose flags
 * are given, sending the etag it read, so a change another admin made in
 * between is refused, never overwritten.
 */
import { parseArgs } from "node:util";
import { create, type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import { type Duration, durationFromMs } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import {
  CalDavCredentialScheme,
  type CalendarSource,
  CalendarSourceSchema,
  type CalendarSpec,
  CalendarSpecSchema,
  CreateCalendarResponseSchema,
  DeleteCalendarResponseSchema,
  type ListRegisteredCalendarsResponse,
  ListRegisteredCalendarsResponseSchema,
  LoadHealth,
  LoadHealthSchema,
  type RegisteredCalendar,
  SetPersonResponseSchema,
  UpdateCalendarResponseSchema,
  type Weekday,
} from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import type { Environment } from "../config/calq-config.js";
import { enumFlagValues } from "./enum-flag.js";
import { workingDays, workingHours } from "./free-busy-command.js";
import { adminClient, connectionOptions, describeFailure } from "./service-client.js";
import { UsageError } from "./usage-error.js";

/** `--health` values: the contract's load healths as a command line spells them. */
const HEALTHS = enumFlagValues(LoadHealthSchema) as ReadonlyMap<string, LoadHealth>;
const HEALTH_NAMES: Record<LoadHealth, string> = {
  [LoadHealth.UNSPECIFIED]: "-",
  [LoadHealth.HEALTHY]: "healthy",
  [LoadHealth.STALE]: "stale",
  [LoadHealth.UNLOADED]: "unloaded",
};

/** The flags a calendar's spec is written with, for add and update. */
const SPEC_OPTIONS = {
  file: { type: "string" },
  url: { type: "string" },
  header: { type: "string", multiple: true },
  caldav: { type: "string" },
  "credential-env": { type: "string" },
  "credential-scheme": { type: "string" },
  name: { type: "string" },
  timezone: { type: "string" },
  refresh: { type: "string" },
  reader: { type: "string", multiple: true },
  "free-busy-reader": { type: "string", multiple: true },
  "shard-key": { type: "string" },
  etag: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

interface SpecValues {
  file?: string;
  url?: string;
  header?: string[];
  caldav?: string;
  "credential-env"?: string;
  "credential-scheme"?: string;
  name?: string;
  timezone?: string;
  refresh?: string;
  reader?: string[];
  "free-busy-reader"?: string[];
  "shard-key"?: string;
}

/** Runs `calq calendars SUBCOMMAND`: 0 done, 1 refused or unreachable. */
export async function calendars(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const [subcommand, ...rest] = argv;
  switch (subcommand) {
    case "add":
      return add(rest, env, out, err);
    case "update":
      return update(rest, env, out, err);
    case "rm":
      return remove(rest, env, out, err);
    case "ls":
      return list(rest, env, out, err);
    default:
      throw new UsageError(subcommand === undefined ? "name what to do: add, update, rm or ls" : `unknown subcommand "${subcommand}"`);
  }
}

/** Runs `calq people set PRINCIPAL`: 0 set, 1 refused or unreachable. */
export async function people(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand !== "set") throw new UsageError(subcommand === undefined ? "name what to do: set" : `unknown subcommand "${subcommand}"`);
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      primary: { type: "string" },
      timezone: { type: "string" },
      "working-hours": { type: "string" },
      "working-days": { type: "string" },
      "week-start": { type: "string" },
      email: { type: "string", multiple: true },
      etag: { type: "string", default: "" },
      json: { type: "boolean", default: false },
      ...connectionOptions(env),
    },
    allowPositionals: true,
    strict: true,
  });
  const principalId = onePositional(positionals, "PRINCIPAL");
  if (values["working-days"] !== undefined && values["working-hours"] === undefined) {
    throw new UsageError("--working-days goes with --working-hours");
  }
  const hours = values["working-hours"] === undefined ? undefined : workingHours(values["working-hours"]);
  const person = {
    principalId,
    primaryCalendarId: values.primary ?? "",
    timezone: values.timezone ?? "",
    workingHours:
      hours === undefined
        ? undefined
        : {
            days: (values["working-days"] === undefined ? [1, 2, 3, 4, 5] : workingDays(values["working-days"])) as Weekday[],
            start: hours.start,
            endExclusive: hours.end,
          },
    weekStart: (values["week-start"] === undefined ? 0 : weekday(values["week-start"])) as Weekday,
    emails: values.email ?? [],
  };
  const { client, callOptions } = adminClient(values);
  return answer(
    () => client.setPerson({ person, etag: values.etag }, callOptions),
    values.json ? jsonLine(SetPersonResponseSchema) : ({ person: set }) => `set ${set?.spec?.principalId} (etag ${set?.etag})\n`,
    out,
    err,
  );
}

async function add(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...SPEC_OPTIONS, ...connectionOptions(env) },
    allowPositionals: true,
    strict: true,
  });
  const id = onePositional(positionals, "ID");
  const source = sourceOf(values);
  if (source === undefined) throw new UsageError("give the calendar's source: --file PATH, --url URL or --caldav URL");
  const calendar = specOf(create(CalendarSpecSchema, { id, source }), values);
  const { client, callOptions } = adminClient(values);
  return answer(
    () => client.createCalendar({ calendar }, callOptions),
    values.json
      ? jsonLine(CreateCalendarResponseSchema)
      : ({ calendar: made, created }) => `${created ? "created" : "already there, unchanged:"} ${describe(made)}\n`,
    out,
    err,
  );
}

async function update(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...SPEC_OPTIONS, ...connectionOptions(env) },
    allowPositionals: true,
    strict: true,
  });
  const id = onePositional(positionals, "ID");
  const { client, callOptions } = adminClient(values);
  return answer(
    async () => {
      // The listing's first id at or after ID that starts with ID is ID itself, when there is one.
      const page = await client.listRegisteredCalendars({ idPrefix: id, pageSize: 1 }, callOptions);
      const current = page.calendars.find((calendar) => calendar.spec?.id === id);
      if (current?.spec === undefined) return { missing: id };
      const calendar = specOf(current.spec, values);
      return client.updateCalendar({ calendar, etag: values.etag ?? current.etag }, callOptions);
    },
    (response) =>
      "missing" in response
        ? `calq: CALENDAR_NOT_FOUND: the registry holds no calendar ${response.missing}\n`
        : values.json
          ? jsonLine(UpdateCalendarResponseSchema)(response)
          : `updated ${describe(response.calendar)}\n`,
    out,
    err,
    (response) => ("missing" in response ? 1 : 0),
  );
}

async function remove(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { etag: { type: "string", default: "" }, json: { type: "boolean", default: false }, ...connectionOptions(env) },
    allowPositionals: true,
    strict: true,
  });
  const calendarId = onePositional(positionals, "ID");
  const { client, callOptions } = adminClient(values);
  return answer(
    () => client.deleteCalendar({ calendarId, etag: values.etag }, callOptions),
    values.json
      ? jsonLine(DeleteCalendarResponseSchema)
      : (deleted) => `deleted ${deleted.calendarId} (registry change ${deleted.changeNumber})\n`,
    out,
    err,
  );
}

async function list(argv: string[], env: Environment, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      prefix: { type: "string", default: "" },
      reader: { type: "string", default: "" },
      group: { type: "string", default: "" },
      health: { type: "string" },
      "page-size": { type: "string", default: "0" },
      "page-token": { type: "string", default: "" },
      all: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      ...connectionOptions(env),
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`calq calendars ls takes no ${positionals[0]}; filter with --prefix`);
  const loadHealth = values.health === undefined ? LoadHealth.UNSPECIFIED : HEALTHS.get(values.health);
  if (loadHealth === undefined) throw new UsageError(`--health must be ${[...HEALTHS.keys()].join(", ")}, not "${values.health}"`);
  const pageSize = Number(values["page-size"]);
  if (!Number.isInteger(pageSize)) throw new UsageError(`--page-size ${values["page-size"]} is not a whole number`);
  const { client, callOptions } = adminClient(values);
  const request = { idPrefix: values.prefix, reader: values.reader, shardGroup: values.group, loadHealth, pageSize };
  return answer(
    async () => {
      const pages: ListRegisteredCalendarsResponse[] = [];
      let pageToken = values["page-token"];
      do {
        const page = await client.listRegisteredCalendars({ ...request, pageToken }, callOptions);
        pages.push(page);
        pageToken = page.nextPageToken;
      } while (values.all && pageToken !== "");
      return pages;
    },
    (pages) => (values.json ? pages.map((page) => jsonLine(ListRegisteredCalendarsResponseSchema)(page)).join("") : renderCalendars(pages)),
    out,
    err,
  );
}

/** The table of `calq calendars ls`, and how to get the next page. */
function renderCalendars(pages: readonly ListRegisteredCalendarsResponse[]): string {
  const rows = pages.flatMap((page) =>
    page.calendars.map((calendar) => [
      calendar.spec?.id ?? "",
      calendar.shardGroup || "-",
      HEALTH_NAMES[calendar.loadHealth] ?? "-",
      calendar.spec?.source?.kind.case ?? "-",
      (calendar.spec?.readers ?? []).join(",") || "-",
      calendar.etag,
    ]),
  );
  if (rows.length === 0) return "no calendar matches\n";
  const table = [["ID", "GROUP", "HEALTH", "SOURCE", "READERS", "ETAG"], ...rows];
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  const lines = table.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join("  ")
      .trimEnd(),
  );
  const next = pages.at(-1)?.nextPageToken ?? "";
  return `${lines.join("\n")}\n${next === "" ? "" : `more: --page-token ${next}\n`}`;
}

/** "team (group g1, etag 0123…)" */
function describe(calendar: RegisteredCalendar | undefined): string {
  return `${calendar?.spec?.id} (${calendar?.shardGroup ? `group ${calendar.shardGroup}, ` : ""}etag ${calendar?.etag})`;
}

/** `base` with the fields whose flags are given replaced. */
function specOf(base: CalendarSpec, values: SpecValues): CalendarSpec {
  const spec = create(CalendarSpecSchema, base);
  const source = sourceOf(values);
  if (source !== undefined) spec.source = source;
  if (values.name !== undefined) spec.displayName = values.name;
  if (values.timezone !== undefined) spec.timezone = values.timezone;
  if (values.refresh !== undefined) spec.refreshInterval = duration(values.refresh);
  if (values.reader !== undefined) spec.readers = values.reader;
  if (values["free-busy-reader"] !== undefined) spec.freeBusyReaders = values["free-busy-reader"];
  if (values["shard-key"] !== undefined) spec.shardKey = values["shard-key"];
  return spec;
}

/** The source the flags name, if any; two sources, or a flag without its source, is a usage mistake. */
function sourceOf(values: SpecValues): CalendarSource | undefined {
  const given = [values.file, values.url, values.caldav].filter((value) => value !== undefined);
  if (given.length > 1) throw new UsageError("give one source: --file, --url or --caldav");
  if (values.header !== undefined && values.url === undefined) throw new UsageError("--header goes with --url");
  if ((values["credential-env"] ?? values["credential-scheme"]) !== undefined && values.caldav === undefined)
    throw new UsageError("--credential-env and --credential-scheme go with --caldav");
  if (values.file !== undefined) return create(CalendarSourceSchema, { kind: { case: "file", value: { path: values.file } } });
  if (values.url !== undefined) {
    const headers = (values.header ?? []).map((header) => {
      const pair = /^([^=]+)=(.+)$/.exec(header);
      if (pair === null) throw new UsageError(`--header takes NAME=VARIABLE, not "${header}"`);
      return { name: pair[1], env: pair[2] };
    });
    return create(CalendarSourceSchema, { kind: { case: "http", value: { url: values.url, headers } } });
  }
  if (values.caldav !== undefined) {
    if (values["credential-env"] === undefined) throw new UsageError("--caldav needs --credential-env");
    const scheme = CREDENTIAL_SCHEMES[values["credential-scheme"] ?? ""];
    if (scheme === undefined) throw new UsageError("--caldav needs --credential-scheme basic or bearer");
    return create(CalendarSourceSchema, {
      kind: {
        case: "caldav",
        value: { collectionUrl: values.caldav, credentialEnv: values["credential-env"], credentialScheme: scheme },
      },
    });
  }
  return undefined;
}

/** --credential-scheme's values. */
const CREDENTIAL_SCHEMES: Readonly<Record<string, CalDavCredentialScheme>> = {
  basic: CalDavCredentialScheme.BASIC,
  bearer: CalDavCredentialScheme.BEARER,
};

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** 500ms, 30s, 5m, 1h as calq.yaml writes durations; the service checks the range. */
function duration(text: string): Duration {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (match === null) throw new UsageError(`--refresh takes a duration such as 30s, 5m or 1h, not "${text}"`);
  return durationFromMs(Number(match[1]) * UNIT_MS[match[2]]);
}

/** A weekday 1 (Monday) to 7 (Sunday), as the contract numbers them. */
function weekday(text: string): number {
  if (!/^[1-7]$/.test(text)) throw new UsageError(`--week-start takes 1 (Monday) to 7 (Sunday), not "${text}"`);
  return Number(text);
}

function onePositional(positionals: readonly string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`give one ${what}${positionals.length > 1 ? `, not ${positionals.length}` : ""}`);
  return positionals[0];
}

/**
 * Makes the call and prints its answer as `render` writes it, or the
 * refusal as every command prints it, then each field at fault on a line
 * of its own (an INVALID_SPEC names them all).
 */
async function answer<Response>(
  call: () => Promise<Response>,
  render: (response: Response) => string,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
  status: (response: Response) => number = () => 0,
): Promise<number> {
  let response: Response;
  try {
    response = await call();
  } catch (error) {
    const violations = ConnectError.from(error)
      .findDetails(BadRequestSchema)
      .flatMap((detail) => detail.fieldViolations);
    err.write(`${describeFailure(error)}\n${violations.map((violation) => `  ${violation.field}: ${violation.description}\n`).join("")}`);
    return 1;
  }
  const code = status(response);
  (code === 0 ? out : err).write(render(response));
  return code;
}

/** --json: the response as the service sent it, on one line. */
function jsonLine<Desc extends DescMessage>(schema: Desc): (response: MessageShape<Desc>) => string {
  return (response) => `${JSON.stringify(toJson(schema, response))}\n`;
}

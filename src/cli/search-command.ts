/**
 * `calq search`: one search against a running server, for people. Prints a
 * table in the request's zone (times with their UTC offset, all-day events
 * by their dates), how each
 * event sits against the window, and how to get the next page; or, with
 * --json, the responses as the service sent them.
 *
 * The window is sent exactly as typed: `2026-10-02T09:00` is a local wall
 * time that the service reads in --timezone, refusing a time that a DST jump
 * skips or repeats (NONEXISTENT_LOCAL_TIME, AMBIGUOUS_TIMEZONE) rather than
 * this command guessing. Refusals print their reason and the service's
 * advice, and exit 1. With shard groups, the calendar's group is learnt from
 * the first refusal and every page carries the headers a balancer routes on.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { toJson } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  CalendarService,
  type EventOccurrence,
  MatchMode,
  MatchModeSchema,
  type SearchEventsResponse,
  SearchEventsResponseSchema,
  WindowRelation,
} from "../../gen/calq/v1/calendar_service_pb.js";
import type { Environment } from "../config/calq-config.js";
import { shardRouting } from "../rpc/shard-routing.js";
import { calqErrorInfo, codeName } from "../rpc/status.js";
import { UsageError } from "./usage-error.js";

/** `--mode` values: the contract's modes as a command line spells them (MATCH_MODE_START_WITHIN is start-within). */
const MODES: ReadonlyMap<string, MatchMode> = new Map(
  MatchModeSchema.values
    .filter((value) => value.number !== MatchMode.UNSPECIFIED)
    .map((value) => [value.localName.toLowerCase().replaceAll("_", "-"), value.number]),
);

const RELATIONS: Record<WindowRelation, string> = {
  [WindowRelation.UNSPECIFIED]: "",
  [WindowRelation.INSIDE]: "inside",
  [WindowRelation.CROSSES_START]: "crosses start",
  [WindowRelation.CROSSES_END]: "crosses end",
  [WindowRelation.SPANS]: "spans window",
  [WindowRelation.INSTANT]: "instant",
};

/** Runs the search and returns the exit status: 0 found (or found nothing), 1 refused or unreachable. */
export async function search(
  argv: string[],
  env: Environment,
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      calendar: { type: "string" },
      start: { type: "string" },
      "end-exclusive": { type: "string" },
      timezone: { type: "string" },
      mode: { type: "string" },
      limit: { type: "string", default: "0" },
      cursor: { type: "string", default: "" },
      text: { type: "string", default: "" },
      all: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      address: { type: "string", default: env.CALQ_ADDRESS ?? "127.0.0.1:50051" },
      token: { type: "string", default: env.CALQ_TOKEN },
      "tls-ca": { type: "string", default: env.CALQ_TLS_CA },
    },
    strict: true,
  });
  for (const required of ["calendar", "start", "end-exclusive", "timezone", "mode"] as const) {
    if (values[required] === undefined) throw new UsageError(`--${required} is required`);
  }
  const matchMode = MODES.get(values.mode!);
  if (matchMode === undefined) throw new UsageError(`--mode must be ${[...MODES.keys()].join(" or ")}, not "${values.mode}"`);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit)) throw new UsageError(`--limit ${values.limit} is not a whole number`);

  const ca = values["tls-ca"];
  const transport = createGrpcTransport({
    baseUrl: `${ca === undefined ? "http" : "https"}://${values.address}`,
    nodeOptions: ca === undefined ? undefined : { ca: readFileSync(ca) },
    // Behind a balancer routing on shard groups, the first page learns the calendar's group; later pages go straight there.
    interceptors: [shardRouting()],
  });
  const client = createClient(CalendarService, transport);
  const headers = values.token === undefined ? undefined : { authorization: `Bearer ${values.token}` };

  const pages: SearchEventsResponse[] = [];
  let cursor = values.cursor!;
  try {
    do {
      const page = await client.searchEvents(
        {
          calendarId: values.calendar,
          start: values.start,
          endExclusive: values["end-exclusive"],
          timezone: values.timezone,
          matchMode,
          limit,
          cursor,
          textQuery: values.text,
        },
        { headers, timeoutMs: 30_000 },
      );
      pages.push(page);
      cursor = page.nextCursor;
    } while (values.all && cursor !== "");
  } catch (error) {
    err.write(`${describeFailure(error)}\n`);
    return 1;
  }

  if (values.json) {
    for (const page of pages) out.write(`${JSON.stringify(toJson(SearchEventsResponseSchema, page))}\n`);
  } else {
    out.write(renderTable(pages, values.mode!));
  }
  return 0;
}

/** "calq: REASON: what to do", with the refusal's facts (e.g. both instants of a repeated hour). */
function describeFailure(error: unknown): string {
  const failure = ConnectError.from(error);
  const info = calqErrorInfo(failure);
  const facts = Object.entries(info?.metadata ?? {}).map(([key, value]) => `\n  ${key}: ${value}`);
  return `calq: ${info?.reason ?? codeName(failure.code)}: ${failure.rawMessage}${facts.join("")}`;
}

function renderTable(pages: SearchEventsResponse[], mode: string): string {
  const first = pages[0];
  const last = pages[pages.length - 1];
  const query = first.query!;
  const events = pages.flatMap((page) => page.events);
  const lines = [
    `${query.calendarId}: ${events.length} event(s), ${mode}, window in ${query.timezone}` +
      (last.stale ? " (stale: the last reload failed, showing the last good data)" : ""),
  ];
  if (events.length > 0) {
    const rows = events.map(row);
    const widths = [0, 1, 2].map((column) => Math.max(...rows.map((cells) => cells[column].length), HEADER[column].length));
    for (const cells of [HEADER, ...rows]) {
      lines.push(
        cells
          .map((cell, column) => (column < 3 ? cell.padEnd(widths[column]) : cell))
          .join("  ")
          .trimEnd(),
      );
    }
  }
  if (last.nextCursor !== "") lines.push(`more: repeat with --all, or with --cursor ${last.nextCursor}`);
  return `${lines.join("\n")}\n`;
}

// Ends are exclusive, as in the contract: an all-day event on the 2nd ends on the 3rd.
const HEADER = ["START", "END (excl.)", "RELATION", "EVENT"];

/**
 * Local times in the request's zone with their UTC offset, as
 * "2026-10-02 08:30 +07:00"; all-day events by their dates. The offset is
 * always shown: across a fall-back the same wall time happens twice, and
 * 01:15 -04:00 to 01:45 -05:00 is 90 minutes, not 30.
 */
function row(event: EventOccurrence): string[] {
  const relation = RELATIONS[event.windowRelation];
  const title = event.summary + (event.location === "" ? "" : ` @ ${event.location}`);
  if (event.allDay) {
    return [event.startDate, event.endDateExclusive, relation, `${title} [all day]`];
  }
  return [localTime(event.startLocal), localTime(event.endLocal), relation, title];
}

/** "2026-11-01T01:15:00-04:00" as "2026-11-01 01:15 -04:00" (seconds only when there are some). */
function localTime(rfc3339: string): string {
  const parts = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:\d{2}(?::\d{2})?)$/.exec(rfc3339);
  if (parts === null) return rfc3339;
  const [, date, minutes, seconds, offset] = parts;
  return `${date} ${minutes}${seconds === undefined || seconds === "00" ? "" : `:${seconds}`} ${offset}`;
}

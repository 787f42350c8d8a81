/**
 * `calq search`: one search against a running server, for people: of one
 * calendar (SearchEvents), or of several merged in one order when
 * --calendar is given more than once (SearchEventsAcrossCalendars). Prints a
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
 * the first refusal and every page carries the headers a balancer routes on
 * (service-client.ts).
 */
import { parseArgs } from "node:util";
import { toJson } from "@bufbuild/protobuf";
import {
  type EventOccurrence,
  type MatchMode,
  MatchModeSchema,
  type SearchEventsAcrossCalendarsResponse,
  SearchEventsAcrossCalendarsResponseSchema,
  type SearchEventsResponse,
  SearchEventsResponseSchema,
  WindowRelation,
} from "../../gen/calq/v1/calendar_service_pb.js";
import type { Environment } from "../config/calq-config.js";
import { enumFlagValues } from "./enum-flag.js";
import { localTime } from "./local-time.js";
import { connectionOptions, describeFailure, serviceClient } from "./service-client.js";
import { UsageError } from "./usage-error.js";

/** `--mode` values: the contract's modes as a command line spells them (MATCH_MODE_START_WITHIN is start-within). */
const MODES = enumFlagValues(MatchModeSchema) as ReadonlyMap<string, MatchMode>;

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
      calendar: { type: "string", multiple: true },
      start: { type: "string" },
      "end-exclusive": { type: "string" },
      timezone: { type: "string" },
      mode: { type: "string" },
      limit: { type: "string", default: "0" },
      cursor: { type: "string", default: "" },
      text: { type: "string", default: "" },
      all: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      ...connectionOptions(env),
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

  const { client, callOptions } = serviceClient(values);
  const calendars = values.calendar!;
  const fields = {
    start: values.start,
    endExclusive: values["end-exclusive"],
    timezone: values.timezone,
    matchMode,
    limit,
    textQuery: values.text,
  };

  const pages: Page[] = [];
  let cursor = values.cursor!;
  try {
    do {
      const page: Page =
        calendars.length === 1
          ? { one: await client.searchEvents({ ...fields, calendarId: calendars[0], cursor }, callOptions) }
          : { across: await client.searchEventsAcrossCalendars({ ...fields, calendarIds: calendars, cursor }, callOptions) };
      pages.push(page);
      cursor = (page.one ?? page.across)!.nextCursor;
    } while (values.all && cursor !== "");
  } catch (error) {
    err.write(`${describeFailure(error)}\n`);
    return 1;
  }

  if (values.json) {
    for (const page of pages) {
      const json =
        page.one !== undefined
          ? toJson(SearchEventsResponseSchema, page.one)
          : toJson(SearchEventsAcrossCalendarsResponseSchema, page.across!);
      out.write(`${JSON.stringify(json)}\n`);
    }
  } else {
    out.write(renderTable(pages, values.mode!));
  }
  return 0;
}

/** A page of either search: one calendar's, or several calendars' merged. */
type Page = { one: SearchEventsResponse; across?: undefined } | { one?: undefined; across: SearchEventsAcrossCalendarsResponse };

function renderTable(pages: Page[], mode: string): string {
  const first = pages[0].one ?? pages[0].across!;
  const query = first.query!;
  const events = pages.flatMap((page) => (page.one ?? page.across!).events);
  const across = pages[0].across !== undefined;
  const stale = across
    ? pages[pages.length - 1].across!.calendars.filter((calendar) => calendar.stale).map((calendar) => calendar.calendarId)
    : pages[pages.length - 1].one!.stale
      ? [query.calendarId]
      : [];
  const lines = [
    `${across ? query.calendarIds.join(", ") : query.calendarId}: ${events.length} event(s), ${mode}, window in ${query.timezone}` +
      (stale.length === 0
        ? ""
        : across
          ? ` (stale: the last reload of ${stale.join(", ")} failed, showing the last good data)`
          : " (stale: the last reload failed, showing the last good data)"),
  ];
  if (events.length > 0) {
    const header = across ? [...HEADER.slice(0, 3), "CALENDAR", HEADER[3]] : HEADER;
    const rows = events.map((event) => {
      const cells = row(event);
      return across ? [...cells.slice(0, 3), event.calendarId, cells[3]] : cells;
    });
    const padded = header.length - 1;
    const widths = header.map((_, column) => Math.max(...rows.map((cells) => cells[column].length), header[column].length));
    for (const cells of [header, ...rows]) {
      lines.push(
        cells
          .map((cell, column) => (column < padded ? cell.padEnd(widths[column]) : cell))
          .join("  ")
          .trimEnd(),
      );
    }
  }
  const last = pages[pages.length - 1].one ?? pages[pages.length - 1].across!;
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

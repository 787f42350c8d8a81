/**
 * The flags of `calq search`, `calq busy`, `calq slots` and `calq meet`, each written
 * once: a command's usage lists the flags it takes from this table. A flag
 * that sets a bounded request field states the bounds the contract declares
 * on that field (the `bounds` option, proto/calq/v1/reasons.proto), so the
 * help never says a number of its own. Fields are named through gen/'s
 * message types, so a renamed field fails to compile, and only as types: the
 * bounds come from gen/calq.binpb's bytes (declared-bounds.ts), which keeps
 * `calq help` from loading protobuf-es.
 */
import type {
  FindFreeSlotsRequest,
  FindMeetingTimesRequest,
  QueryFreeBusyRequest,
  SearchEventsAcrossCalendarsRequest,
  SearchEventsRequest,
} from "../../gen/calq/v1/calendar_service_pb.js";
// The contract's wording of ranges, from its one module that loads nothing (src/contract/index.ts would load protobuf-es).
import { type BoundNumbers, countRange, describeBounds } from "../contract/bounds-text.js";
import { contractBounds } from "./declared-bounds.js";

/** A field of a generated request message, by the message's full name and the field's property name. */
export interface RequestField {
  readonly message: string;
  readonly property: string;
}

/** Names a field of request type `M`; the compiler checks both names against gen/. */
function fieldOf<M extends { readonly $typeName: string }>(
  message: M["$typeName"],
  property: Exclude<keyof M, "$typeName" | "$unknown"> & string,
): RequestField {
  return { message, property };
}

/** One flag's line of help. */
export type FlagHelp =
  | { readonly flag: string; readonly text: string }
  | {
      readonly flag: string;
      /** The request field the flag sets, whose declared bounds the text states. */
      readonly field: RequestField;
      /** The text, given the field's bounds, which it says in src/contract's words. */
      readonly text: (bounds: BoundNumbers) => string;
    };

const SEVERAL_CALENDARS = (bounds: BoundNumbers) =>
  `a calendar id, or "primary" for your own; give it ${countRange(bounds)} times for several`;

/** Every flag of the three commands. */
export const FLAGS = {
  searchCalendar: {
    flag: "--calendar ID",
    field: fieldOf<SearchEventsAcrossCalendarsRequest>("calq.v1.SearchEventsAcrossCalendarsRequest", "calendarIds"),
    text: (bounds) =>
      `a calendar id, or "primary" for your own; give it ${countRange(bounds)} times to search several merged in start order, with a CALENDAR column`,
  },
  busyCalendar: {
    flag: "--calendar ID",
    field: fieldOf<QueryFreeBusyRequest>("calq.v1.QueryFreeBusyRequest", "calendarIds"),
    text: SEVERAL_CALENDARS,
  },
  slotsCalendar: {
    flag: "--calendar ID",
    field: fieldOf<FindFreeSlotsRequest>("calq.v1.FindFreeSlotsRequest", "calendarIds"),
    text: SEVERAL_CALENDARS,
  },
  start: { flag: "--start T", text: "first instant, included: 2026-10-02T09:00 (read in --timezone), 2026-10-02, or with an offset" },
  endExclusive: { flag: "--end-exclusive T", text: "first instant after the window, same forms" },
  timezone: { flag: "--timezone ZONE", text: "IANA zone the window is read in and times are shown in (Asia/Ho_Chi_Minh)" },
  mode: { flag: "--mode M", text: "overlap (anything sharing time with the window) or start-within (starting in it)" },
  searchLimit: {
    flag: "--limit N",
    field: fieldOf<SearchEventsRequest>("calq.v1.SearchEventsRequest", "limit"),
    text: (bounds) => `events per page: ${describeBounds(bounds)}`,
  },
  cursor: { flag: "--cursor C", text: "continue from a page's cursor" },
  text: {
    flag: "--text WORDS",
    field: fieldOf<SearchEventsRequest>("calq.v1.SearchEventsRequest", "textQuery"),
    text: (bounds) =>
      `only events holding every word: ${describeBounds(bounds)} (summary, location or description; case and accents ignored)`,
  },
  all: { flag: "--all", text: "follow cursors to the last page" },
  duration: {
    flag: "--duration MINUTES",
    field: fieldOf<FindFreeSlotsRequest>("calq.v1.FindFreeSlotsRequest", "durationMinutes"),
    text: (bounds) => `length of each slot in minutes: ${describeBounds(bounds)} (exact, also across a DST change)`,
  },
  tentative: { flag: "--tentative P", text: "busy (tentative events block their time) or free (they do not); there is no default" },
  step: {
    flag: "--step MINUTES",
    field: fieldOf<FindFreeSlotsRequest>("calq.v1.FindFreeSlotsRequest", "stepMinutes"),
    text: (bounds) => `slots start at local multiples of this many minutes from midnight: ${describeBounds(bounds)}`,
  },
  workingHours: {
    flag: "--working-hours FROM-TO",
    text: "only slots within local working hours on working days, as 09:00-17:00 (24:00 ends the day)",
  },
  workingDays: { flag: "--working-days DAYS", text: "the working weekdays, 1 Monday to 7 Sunday: 1-5 (the default), 1,3,5 or 1-3,6" },
  slotsLimit: {
    flag: "--limit N",
    field: fieldOf<FindFreeSlotsRequest>("calq.v1.FindFreeSlotsRequest", "limit"),
    text: (bounds) => `slots at most: ${describeBounds(bounds)}`,
  },
  meetRequired: {
    flag: "--required ID",
    field: fieldOf<FindMeetingTimesRequest>("calq.v1.FindMeetingTimesRequest", "requiredCalendarIds"),
    text: (bounds) => `the calendar of an attendee who must come, "primary" for your own; give it ${countRange(bounds)} times`,
  },
  meetOptional: {
    flag: "--optional ID",
    field: fieldOf<FindMeetingTimesRequest>("calq.v1.FindMeetingTimesRequest", "optionalCalendarIds"),
    text: (bounds) => `the calendar of an attendee who may come; ${countRange(bounds)} times (50 attendees in all)`,
  },
  meetDuration: {
    flag: "--duration MINUTES",
    field: fieldOf<FindMeetingTimesRequest>("calq.v1.FindMeetingTimesRequest", "durationMinutes"),
    text: (bounds) => `length of the meeting in minutes: ${describeBounds(bounds)} (exact, also across a DST change)`,
  },
  meetStep: {
    flag: "--step MINUTES",
    field: fieldOf<FindMeetingTimesRequest>("calq.v1.FindMeetingTimesRequest", "stepMinutes"),
    text: (bounds) => `meetings start at local multiples of this many minutes from midnight: ${describeBounds(bounds)}`,
  },
  bufferBefore: {
    flag: "--buffer-before MINUTES",
    field: fieldOf<FindMeetingTimesRequest>("calq.v1.FindMeetingTimesRequest", "bufferBeforeMinutes"),
    text: (bounds) => `each attendee must also be free this long before the meeting: ${describeBounds(bounds)}`,
  },
  bufferAfter: {
    flag: "--buffer-after MINUTES",
    field: fieldOf<FindMeetingTimesRequest>("calq.v1.FindMeetingTimesRequest", "bufferAfterMinutes"),
    text: (bounds) => `and this long after it: ${describeBounds(bounds)}`,
  },
  minOptional: {
    flag: "--min-optional PERCENT",
    field: fieldOf<FindMeetingTimesRequest>("calq.v1.FindMeetingTimesRequest", "minOptionalPercent"),
    text: (bounds) => `the share of optional attendees who must be free, rounded up: ${describeBounds(bounds)}`,
  },
  meetWorkingHours: {
    flag: "--working-hours FROM-TO",
    text: "working hours for attendees calq knows none of (from their settings or feed), as 09:00-17:00, in --timezone",
  },
  meetLimit: {
    flag: "--limit N",
    field: fieldOf<FindMeetingTimesRequest>("calq.v1.FindMeetingTimesRequest", "limit"),
    text: (bounds) => `meeting times at most: ${describeBounds(bounds)}`,
  },
  json: { flag: "--json", text: "print what the service sent, as JSON, instead of tables" },
  address: { flag: "--address HOST:PORT", text: "server address (or CALQ_ADDRESS; default 127.0.0.1:50051)" },
  token: { flag: "--token T", text: "bearer token (or CALQ_TOKEN)" },
  tlsCa: { flag: "--tls-ca FILE", text: "connect with TLS, trusting this CA (or CALQ_TLS_CA)" },
} as const satisfies Record<string, FlagHelp>;

/** The flags every command that calls a running server takes (service-client.ts). */
export const CONNECTION_FLAGS: readonly FlagHelp[] = [FLAGS.address, FLAGS.token, FLAGS.tlsCa];

/** Where the text starts: after two spaces and the longest flag that still shares its line. */
const TEXT_COLUMN = 24;
/** Where a line is wrapped. */
const WIDTH = 120;

/** The help lines of `flags`: each flag, then its text from one column, wrapped; a flag too long for the column gets a line of its own. */
export function flagLines(flags: readonly FlagHelp[]): string {
  return flags
    .flatMap((help) => {
      const text = "field" in help ? help.text(boundsOf(help.field)) : help.text;
      const head = `  ${help.flag}`;
      const wrapped = wrap(text, WIDTH - TEXT_COLUMN);
      const indent = " ".repeat(TEXT_COLUMN);
      if (head.length + 2 > TEXT_COLUMN) return [head, ...wrapped.map((line) => indent + line)];
      return [head.padEnd(TEXT_COLUMN) + wrapped[0], ...wrapped.slice(1).map((line) => indent + line)];
    })
    .join("\n");
}

/** The bounds `field` declares in the contract; throws when it declares none, so a flag never states bounds a field lacks. */
export function boundsOf(field: RequestField): BoundNumbers {
  const bounds = contractBounds().get(`${field.message}.${field.property}`);
  if (bounds === undefined) throw new Error(`${field.message}.${field.property} declares no bounds for its flag's help to state`);
  return bounds;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  return [...lines, line];
}

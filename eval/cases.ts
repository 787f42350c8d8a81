/**
 * The requests the tool descriptions are evaluated on: what a user says, the
 * context get_user_context and list_calendars would give (the service's
 * current time, the recorded zone or none, the calendars the user may read),
 * earlier turns for follow-ups, and what a careful assistant does next: call
 * one tool with these arguments, or ask the user.
 *
 * Conventions (given to the model in the runner's system prompt, so that
 * only the tool descriptions differ between variants): morning is
 * 09:00-12:00, afternoon 12:00-17:00, evening 17:00-21:00; a week runs from
 * Monday to the next Monday; "next Friday" is the coming Friday; work hours
 * are 09:00-17:00, Monday to Friday; a time without a length is the hour
 * from it; meetings start on the hour or the half hour (find_free_slots'
 * default step); "my calendar" is the primary calendar, "my calendars" all
 * of the user's.
 *
 * What a careful assistant does, by question:
 * - what is on: a search in `overlap`; what starts or how many: `start_within`;
 * - whether the user is free: query_free_busy; a time to meet: find_free_slots;
 * - several calendars at once ("my calendars", "X and Y calendars"):
 *   search_across_calendars. The case's user has those calendars in its
 *   context; the runner answers list_calendars with them, as it answers
 *   get_user_context, and neither look-up is the scored move. The expected
 *   call names the calendars the user means, "primary" for the primary one
 *   (its id counts the same);
 * - an event by its words ("my dentist appointment"): text_query holds the
 *   words the event's title would have, not the user's whole phrase ("khám
 *   răng", not "lịch khám răng": every word must occur in the event);
 * - details an earlier search did not show (a meeting link, the attendees,
 *   an address): get_event with the calendar and event id of that search's
 *   result line;
 * - free slots: `tentative` has no default. When the user says how to treat
 *   tentative events, the case expects that; when not, the assistant asks
 *   (ASK_TENTATIVE), since the choice changes which slots are free. How many
 *   slots to offer is left open unless the user says;
 * - a time for several people, some of them optional, with buffers or a
 *   share of the optional ones: find_meeting_times, with `tentative` as for
 *   free slots. Each person's working hours are calq's to know (their
 *   settings or feed), so the request's working hours are left open unless
 *   the user names hours; when nothing fits and the user moves the window,
 *   the same attendees over the new window;
 * - filters by the user's own answer ("hide what I declined", "what did I
 *   accept", "what have I not answered"), status, or category: the search
 *   with that filter;
 * - "next week" is the dates from next Monday to the Monday after, also
 *   when a DST change falls inside it; a weekday question about a date is
 *   answered by searching that date, whose results name their weekdays;
 * - a local time that happens twice (a fall-back fold): ask which one.
 */
import { create, type Message } from "@bufbuild/protobuf";
import {
  AttendeeAvailabilitySchema,
  Availability,
  EventOccurrenceSchema,
  EventStatus,
  FindMeetingTimesResponseSchema,
  MatchMode,
  MeetingAttendeeSchema,
  MeetingTimeSchema,
  NoFitReason,
  ResolvedQuerySchema,
  SearchEventsAcrossCalendarsResponseSchema,
  SearchEventsResponseSchema,
  WindowRelation,
  WorkingHoursSource,
} from "../gen/calq/v1/calendar_service_pb.js";
import { renderResult } from "../src/gateway/render.js";
import { buildToolCatalog } from "../src/gateway/tool-schemas.js";

/** search_calendar_events arguments, as the tool takes them. */
export interface SearchArguments {
  readonly calendar_id: string;
  readonly start: string;
  readonly end_exclusive: string;
  readonly timezone: string;
  readonly match_mode: "overlap" | "start_within";
  readonly limit: number | null;
  readonly cursor: string | null;
  readonly text_query: string | null;
  readonly status: "confirmed" | "tentative" | null;
  readonly transparency: "opaque" | "transparent" | null;
  readonly my_participation: "not_declined" | "accepted" | "tentative" | "needs_action" | "declined" | null;
  readonly categories: readonly string[] | null;
}

/** search_across_calendars arguments: a search's, with a set of calendars. */
export interface SearchAcrossArguments extends Omit<SearchArguments, "calendar_id"> {
  readonly calendar_ids: readonly string[];
}

/** query_free_busy arguments. */
export interface FreeBusyArguments {
  readonly calendar_ids: readonly string[];
  readonly start: string;
  readonly end_exclusive: string;
  readonly timezone: string;
}

/** find_free_slots arguments. */
export interface FreeSlotsArguments extends FreeBusyArguments {
  readonly duration_minutes: number;
  readonly step_minutes: number | null;
  readonly tentative: "busy" | "free";
  readonly working_hours_start: string | null;
  readonly working_hours_end: string | null;
  readonly working_days: readonly number[] | null;
  readonly limit: number | null;
}

/** find_meeting_times arguments. */
export interface MeetingTimesArguments {
  readonly required_calendar_ids: readonly string[];
  readonly optional_calendar_ids: readonly string[] | null;
  readonly start: string;
  readonly end_exclusive: string;
  readonly timezone: string;
  readonly duration_minutes: number;
  readonly step_minutes: number | null;
  readonly buffer_before_minutes: number | null;
  readonly buffer_after_minutes: number | null;
  readonly tentative: "busy" | "free";
  readonly min_optional_percent: number | null;
  readonly working_hours_start: string | null;
  readonly working_hours_end: string | null;
  readonly working_days: readonly number[] | null;
  readonly limit: number | null;
}

/** get_event arguments (GetEvent: one occurrence by its calendar and event id). */
export interface GetEventArguments {
  readonly calendar_id: string;
  readonly event_id: string;
  /** Only renders local times (null: the calendar's zone), so any zone calq accepts will do. */
  readonly timezone: string | null;
}

/** The tools a case may expect a call of, with their arguments. */
export interface ToolArguments {
  readonly search_calendar_events: SearchArguments;
  readonly search_across_calendars: SearchAcrossArguments;
  readonly query_free_busy: FreeBusyArguments;
  readonly find_free_slots: FreeSlotsArguments;
  readonly get_event: GetEventArguments;
  readonly find_meeting_times: MeetingTimesArguments;
}

/** The name of a tool a case may expect a call of. */
export type ExpectedTool = keyof ToolArguments;

/** What get_user_context and list_calendars answer for this user, at this moment. */
export interface UserContext {
  readonly now: string;
  /** The recorded zone, or null when none is recorded. */
  readonly timezone: string | null;
  readonly primaryCalendarId: string;
  /** The calendars the user may read, the primary among them. */
  readonly calendars: readonly CalendarEntry[];
}

/** One calendar as list_calendars lists it. */
export interface CalendarEntry {
  readonly id: string;
  readonly displayName: string;
  /** The calendar's zone; the user's recorded zone (else UTC) when absent. */
  readonly timezone?: string;
  /** The user sees only its busy time (a colleague's calendar shared free/busy). */
  readonly busyOnly?: boolean;
}

/** An earlier turn of the conversation (OpenAI chat message shape). */
export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** A tool call in an assistant message (OpenAI chat shape). */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * What a clarifying question must be about: the user's time zone or place,
 * which of the two instants of a repeated local time, or whether tentative
 * events count as busy (find_free_slots requires the choice and has no
 * default).
 */
export type AskTopic = "zone" | "fold" | "tentative";

/**
 * A call of `tool` with `arguments`. `alternatives` are other argument sets
 * of the same tool that ask calq for what the user asked just as well (a
 * month searched in either match mode); `leftOpen` names arguments the
 * request does not decide (how many slots to offer), so any value counts.
 */
export type CallExpectation = {
  readonly [T in ExpectedTool]: {
    readonly kind: "call";
    readonly tool: T;
    readonly arguments: ToolArguments[T];
    readonly alternatives?: readonly ToolArguments[T][];
    readonly leftOpen?: readonly (keyof ToolArguments[T] & string)[];
  };
}[ExpectedTool];

/** What a careful assistant does next. */
export type Expectation =
  | CallExpectation
  /** No call yet: the assistant must ask the user about `about`. */
  | { readonly kind: "ask"; readonly about: AskTopic; readonly why: string };

/** One request to evaluate, with everything the scoring needs. */
export interface EvalCase {
  readonly id: string;
  readonly language: "en" | "vi";
  readonly context: UserContext;
  /** Turns before the request (follow-up pages). */
  readonly history?: readonly ChatMessage[];
  readonly request: string;
  readonly expected: Expectation;
  readonly tags: readonly string[];
}

const HCM = "Asia/Ho_Chi_Minh";
const NY = "America/New_York";
const LONDON = "Europe/London";

/** One calendar, the primary "work". */
const WORK_ONLY: readonly CalendarEntry[] = [{ id: "work", displayName: "Work" }];

/** Saturday 2026-09-26, 08:00 in Ho Chi Minh City: "next Friday" is the seed's 2026-10-02. */
const HCM_SATURDAY: UserContext = { now: "2026-09-26T01:00:00Z", timezone: HCM, primaryCalendarId: "work", calendars: WORK_ONLY };
/** Wednesday 2026-09-30, 08:00 in Ho Chi Minh City. */
const HCM_WEDNESDAY: UserContext = { now: "2026-09-30T01:00:00Z", timezone: HCM, primaryCalendarId: "work", calendars: WORK_ONLY };
/** Friday 2026-10-30, 09:00 in New York: clocks fall back on Sunday 2026-11-01. */
const NEW_YORK_FRIDAY: UserContext = { now: "2026-10-30T13:00:00Z", timezone: NY, primaryCalendarId: "work", calendars: WORK_ONLY };
/** Friday 2026-10-23, 09:00 in London: clocks fall back on Sunday 2026-10-25. */
const LONDON_FRIDAY: UserContext = { now: "2026-10-23T08:00:00Z", timezone: LONDON, primaryCalendarId: "work", calendars: WORK_ONLY };
/** Saturday 2026-09-26, 01:00 UTC, and no zone recorded. */
const NO_ZONE: UserContext = { now: "2026-09-26T01:00:00Z", timezone: null, primaryCalendarId: "work", calendars: WORK_ONLY };

function searchArguments(
  timezone: string,
  start: string,
  endExclusive: string,
  mode: SearchArguments["match_mode"] = "overlap",
  extra: Partial<SearchArguments> = {},
): SearchArguments {
  return {
    calendar_id: "primary",
    start,
    end_exclusive: endExclusive,
    timezone,
    match_mode: mode,
    limit: null,
    cursor: null,
    text_query: null,
    status: null,
    transparency: null,
    my_participation: null,
    categories: null,
    ...extra,
  };
}

function search(...args: Parameters<typeof searchArguments>): Expectation {
  return { kind: "call", tool: "search_calendar_events", arguments: searchArguments(...args) };
}

const ASK_ZONE: Expectation = { kind: "ask", about: "zone", why: "no zone is recorded and the request names no place" };

/** A finished first search whose answer has a next page, then the user's follow-up. */
function followUp(first: string, firstArguments: SearchArguments, reply: string): ChatMessage[] {
  const id = "call_first_page";
  return [
    { role: "user", content: first },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "search_calendar_events", arguments: JSON.stringify(firstArguments) } }],
    },
    {
      role: "tool",
      tool_call_id: id,
      content: [
        `Calendar work, window [${firstArguments.start}, ${firstArguments.end_exclusive}) in ${firstArguments.timezone}, mode ${firstArguments.match_mode}: 20 occurrence(s) on this page.`,
        "- Mon 2026-09-28 09:15-09:30 +07:00 Weekly stand-up @ Room 1.1 [inside]",
        "- (19 more occurrences)",
        `More pages: call search_calendar_events again with the same arguments and cursor "${FOLLOW_UP_CURSOR}".`,
      ].join("\n"),
    },
    { role: "assistant", content: reply },
  ];
}

/** The cursor the follow-up cases' first page returned; the next page must send it back unchanged. */
export const FOLLOW_UP_CURSOR = "eyJ2IjoxfQ.k1.c2lnbmF0dXJl";

const NEXT_WEEK_HCM = searchArguments(HCM, "2026-09-28", "2026-10-05");
const NEXT_WEEK_STARTS_HCM = searchArguments(HCM, "2026-09-28", "2026-10-05", "start_within");

/** Every calendar of the users of the "my calendars" cases: work (primary), personal and family. */
const MY_CALENDARS: readonly CalendarEntry[] = [
  { id: "work", displayName: "Work" },
  { id: "personal", displayName: "Personal (Cá nhân)" },
  { id: "family", displayName: "Family (Gia đình)" },
];
/** "all my calendars", as the cases expect them named: the primary by its alias, the others by id. */
const ALL_MINE = ["primary", "personal", "family"];

/** Work (primary) and a colleague's calendar shared with the user. */
const WITH_BINH: readonly CalendarEntry[] = [
  { id: "work", displayName: "Work" },
  { id: "binh", displayName: "Bình Nguyễn (shared with you)" },
];
/** The user and Binh. */
const ME_AND_BINH = ["primary", "binh"];

function searchAcross(
  calendarIds: readonly string[],
  timezone: string,
  start: string,
  endExclusive: string,
  mode: SearchArguments["match_mode"] = "overlap",
  extra: Partial<SearchAcrossArguments> = {},
): SearchAcrossArguments {
  const { calendar_id: _one, ...rest } = searchArguments(timezone, start, endExclusive, mode);
  return { ...rest, calendar_ids: calendarIds, ...extra };
}

function across(...args: Parameters<typeof searchAcross>): Expectation {
  return { kind: "call", tool: "search_across_calendars", arguments: searchAcross(...args) };
}

/** A search by words over a window in either match mode: for "when is my ...", where the window is wide and its edges do not matter. */
function wordsInEitherMode(timezone: string, start: string, endExclusive: string, textQuery: string): Expectation {
  return {
    kind: "call",
    tool: "search_calendar_events",
    arguments: searchArguments(timezone, start, endExclusive, "overlap", { text_query: textQuery }),
    alternatives: [searchArguments(timezone, start, endExclusive, "start_within", { text_query: textQuery })],
  };
}

function freeBusy(calendarIds: readonly string[], timezone: string, start: string, endExclusive: string): Expectation {
  return { kind: "call", tool: "query_free_busy", arguments: { calendar_ids: calendarIds, start, end_exclusive: endExclusive, timezone } };
}

function slotArguments(
  calendarIds: readonly string[],
  timezone: string,
  start: string,
  endExclusive: string,
  durationMinutes: number,
  tentative: FreeSlotsArguments["tentative"],
  extra: Partial<FreeSlotsArguments> = {},
): FreeSlotsArguments {
  return {
    calendar_ids: calendarIds,
    start,
    end_exclusive: endExclusive,
    timezone,
    duration_minutes: durationMinutes,
    step_minutes: null,
    tentative,
    working_hours_start: null,
    working_hours_end: null,
    working_days: null,
    limit: null,
    ...extra,
  };
}

/** The app's work hours (runner.ts SYSTEM_PROMPT): 09:00-17:00, Monday to Friday (no working_days: calq's default). */
const WORK_HOURS: Partial<FreeSlotsArguments> = { working_hours_start: "09:00", working_hours_end: "17:00" };

/**
 * Free slots; when the user names no number of slots, how many to offer is
 * the assistant's choice (`limit` left open).
 */
function slots(args: FreeSlotsArguments, alternatives: readonly FreeSlotsArguments[] = []): Expectation {
  return {
    kind: "call",
    tool: "find_free_slots",
    arguments: args,
    ...(alternatives.length === 0 ? {} : { alternatives }),
    ...(args.limit === null ? { leftOpen: ["limit"] } : {}),
  };
}

const ASK_TENTATIVE: Expectation = {
  kind: "ask",
  about: "tentative",
  why: "find_free_slots needs to know whether tentative events block time, the user did not say, and nothing gives a default",
};

const ASK_FOLD_NY: Expectation = { kind: "ask", about: "fold", why: "01:30 happens twice on 2026-11-01 in New York" };
const ASK_FOLD_LONDON: Expectation = { kind: "ask", about: "fold", why: "01:30 happens twice on 2026-10-25 in London" };

function getEvent(calendarId: string, eventId: string): Expectation {
  return { kind: "call", tool: "get_event", arguments: { calendar_id: calendarId, event_id: eventId, timezone: null } };
}

/** An event as an earlier search showed it: the facts its result line renders, and its id. */
interface ListedEvent {
  readonly eventId: string;
  readonly calendarId: string;
  readonly summary: string;
  readonly location?: string;
  /** RFC 3339 with the offset of the search's zone. */
  readonly startLocal: string;
  readonly endLocal: string;
  readonly windowRelation?: WindowRelation;
}

const TOOLS = buildToolCatalog().tools;

/**
 * A finished search, then the assistant's summary: the user's question, the
 * call, and its result as the gateway renders it (src/gateway/render.ts),
 * each occurrence line ending in "id <event_id>" so that a follow-up can ask
 * get_event about one of them. The renderer writes that id once get_event
 * exists (issue 11); where it does not yet, the line gets it here, in the
 * same form.
 */
function searchTurns(
  question: string,
  call:
    | { readonly tool: "search_calendar_events"; readonly arguments: SearchArguments }
    | { readonly tool: "search_across_calendars"; readonly arguments: SearchAcrossArguments },
  events: readonly ListedEvent[],
  reply: string,
  primaryCalendarId: string,
): ChatMessage[] {
  const args = call.arguments;
  const calendarIds = "calendar_ids" in args ? args.calendar_ids : [args.calendar_id];
  const resolved = calendarIds.map((id) => (id === "primary" ? primaryCalendarId : id)).sort();
  const occurrences = events.map((event) =>
    create(EventOccurrenceSchema, {
      eventId: event.eventId,
      calendarId: event.calendarId,
      summary: event.summary,
      location: event.location ?? "",
      startLocal: event.startLocal,
      endLocal: event.endLocal,
      windowRelation: event.windowRelation ?? WindowRelation.INSIDE,
      status: EventStatus.CONFIRMED,
    }),
  );
  const query = {
    timezone: args.timezone,
    matchMode: args.match_mode === "overlap" ? MatchMode.OVERLAP : MatchMode.START_WITHIN,
  };
  const result: Message =
    call.tool === "search_calendar_events"
      ? create(SearchEventsResponseSchema, {
          events: occurrences,
          query: create(ResolvedQuerySchema, { ...query, calendarId: resolved[0] }),
        })
      : create(SearchEventsAcrossCalendarsResponseSchema, {
          events: occurrences,
          query: create(ResolvedQuerySchema, { ...query, calendarIds: resolved }),
          calendars: resolved.map((id) => ({ calendarId: id })),
        });
  const definition = TOOLS.find((tool) => tool.name === call.tool)!;
  let next = 0;
  const text = renderResult(definition, { ...args }, result)
    .split("\n")
    .map((line) => {
      if (!line.startsWith("- ")) return line;
      const id = `id ${events[next++].eventId}`;
      return line.endsWith(id) ? line : `${line} ${id}`;
    })
    .join("\n");
  const id = "call_search";
  return [
    { role: "user", content: question },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: call.tool, arguments: JSON.stringify(args) } }],
    },
    { role: "tool", tool_call_id: id, content: text },
    { role: "assistant", content: reply },
  ];
}

/**
 * Searches of one calendar by time window: the first set of cases. Whether
 * the user is free is asked of query_free_busy, which applies what blocks
 * time (transparent events do not); a search lists events, blocking or not.
 */
const ONE_CALENDAR_CASES: readonly EvalCase[] = [
  // English, recorded zone Asia/Ho_Chi_Minh, on Saturday 2026-09-26.
  {
    id: "en-next-friday-morning",
    language: "en",
    context: HCM_SATURDAY,
    request: "What meetings do I have next Friday morning?",
    expected: search(HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00"),
    tags: ["relative", "seed"],
  },
  {
    id: "en-tomorrow",
    language: "en",
    context: HCM_SATURDAY,
    request: "What's on my calendar tomorrow?",
    expected: search(HCM, "2026-09-27", "2026-09-28"),
    tags: ["relative", "day"],
  },
  {
    id: "en-next-week",
    language: "en",
    context: HCM_SATURDAY,
    request: "What do I have next week?",
    expected: search(HCM, "2026-09-28", "2026-10-05"),
    tags: ["relative", "week"],
  },
  {
    id: "en-count-next-week",
    language: "en",
    context: HCM_SATURDAY,
    request: "How many meetings start next week?",
    expected: search(HCM, "2026-09-28", "2026-10-05", "start_within"),
    tags: ["relative", "week", "start_within"],
  },
  {
    id: "en-friday-begin",
    language: "en",
    context: HCM_SATURDAY,
    request: "Which meetings begin between 9 and 12 next Friday?",
    expected: search(HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00", "start_within"),
    tags: ["relative", "start_within"],
  },
  {
    id: "en-free-friday-afternoon",
    language: "en",
    context: HCM_SATURDAY,
    request: "Am I free next Friday afternoon?",
    expected: freeBusy(["primary"], HCM, "2026-10-02T12:00:00+07:00", "2026-10-02T17:00:00+07:00"),
    tags: ["relative", "free"],
  },
  {
    id: "en-all-day-sep-2",
    language: "en",
    context: HCM_SATURDAY,
    request: "Was there an all-day event on September 2?",
    expected: search(HCM, "2026-09-02", "2026-09-03"),
    tags: ["all-day"],
  },
  {
    id: "en-all-day-sep-1",
    language: "en",
    context: HCM_SATURDAY,
    request: "Show me everything on Tuesday, September 1, including all-day things.",
    expected: search(HCM, "2026-09-01", "2026-09-02"),
    tags: ["all-day", "day"],
  },
  {
    id: "en-monday-standup",
    language: "en",
    context: HCM_SATURDAY,
    request: "When is my stand-up on Monday?",
    // Monday's events, or only those with the words of "stand-up": both find it.
    expected: {
      kind: "call",
      tool: "search_calendar_events",
      arguments: searchArguments(HCM, "2026-09-28", "2026-09-29"),
      alternatives: [searchArguments(HCM, "2026-09-28", "2026-09-29", "overlap", { text_query: "stand-up" })],
    },
    tags: ["relative", "day"],
  },
  {
    id: "en-october-starts",
    language: "en",
    context: HCM_SATURDAY,
    request: "List the meetings that start in October.",
    expected: search(HCM, "2026-10-01", "2026-11-01", "start_within"),
    tags: ["month", "start_within"],
  },
  {
    id: "en-tomorrow-evening",
    language: "en",
    context: HCM_SATURDAY,
    request: "Anything tomorrow evening?",
    expected: search(HCM, "2026-09-27T17:00:00+07:00", "2026-09-27T21:00:00+07:00"),
    tags: ["relative"],
  },
  {
    id: "en-explicit-hours",
    language: "en",
    context: HCM_SATURDAY,
    request: "Check my calendar for October 5 from 14:00 to 15:30.",
    expected: search(HCM, "2026-10-05T14:00:00+07:00", "2026-10-05T15:30:00+07:00"),
    tags: ["explicit"],
  },
  {
    id: "en-thursday-friday",
    language: "en",
    context: HCM_SATURDAY,
    request: "What's happening next Thursday and Friday?",
    expected: search(HCM, "2026-10-01", "2026-10-03"),
    tags: ["relative", "days"],
  },
  {
    id: "en-first-five",
    language: "en",
    context: HCM_SATURDAY,
    request: "Show me just the first 5 things on my calendar next week.",
    expected: search(HCM, "2026-09-28", "2026-10-05", "overlap", { limit: 5 }),
    tags: ["limit", "week"],
  },
  // English, recorded zone Asia/Ho_Chi_Minh, on Wednesday 2026-09-30.
  {
    id: "en-wed-tomorrow",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "What do I have tomorrow?",
    expected: search(HCM, "2026-10-01", "2026-10-02"),
    tags: ["relative", "day"],
  },
  {
    id: "en-wed-this-week",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "What's on this week?",
    expected: search(HCM, "2026-09-28", "2026-10-05"),
    tags: ["relative", "week"],
  },
  {
    id: "en-wed-friday-morning",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "Friday morning, 9 to noon: what's scheduled?",
    expected: search(HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00"),
    tags: ["relative", "seed"],
  },
  {
    id: "en-wed-today",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "What's on today?",
    expected: search(HCM, "2026-09-30", "2026-10-01"),
    tags: ["relative", "day"],
  },
  // English, New York, across the 2026-11-01 fall-back.
  {
    id: "en-ny-sunday-dst",
    language: "en",
    context: NEW_YORK_FRIDAY,
    request: "What's on my calendar this Sunday?",
    expected: search(NY, "2026-11-01", "2026-11-02"),
    tags: ["dst", "day"],
  },
  {
    id: "en-ny-next-week-starts",
    language: "en",
    context: NEW_YORK_FRIDAY,
    request: "What meetings start next week?",
    expected: search(NY, "2026-11-02", "2026-11-09", "start_within"),
    tags: ["dst", "week", "start_within"],
  },
  {
    id: "en-ny-saturday-to-monday",
    language: "en",
    context: NEW_YORK_FRIDAY,
    request: "What's on from Saturday through Monday?",
    expected: search(NY, "2026-10-31", "2026-11-03"),
    tags: ["dst", "days"],
  },
  {
    id: "en-ny-fold",
    language: "en",
    context: NEW_YORK_FRIDAY,
    request: "Do I have anything on Sunday between 1:30 and 1:45 in the morning?",
    expected: { kind: "ask", about: "fold", why: "01:30 happens twice on 2026-11-01 in New York" },
    tags: ["dst", "ambiguous"],
  },
  {
    id: "en-ny-monday-morning",
    language: "en",
    context: NEW_YORK_FRIDAY,
    request: "Monday morning, after the clocks change: what do I have?",
    expected: search(NY, "2026-11-02T09:00:00-05:00", "2026-11-02T12:00:00-05:00"),
    tags: ["dst", "relative"],
  },
  {
    id: "en-ny-tomorrow",
    language: "en",
    context: NEW_YORK_FRIDAY,
    request: "Anything tomorrow?",
    expected: search(NY, "2026-10-31", "2026-11-01"),
    tags: ["relative", "day"],
  },
  // English, London, across the 2026-10-25 fall-back.
  {
    id: "en-london-weekend",
    language: "en",
    context: LONDON_FRIDAY,
    request: "What's on this weekend?",
    expected: search(LONDON, "2026-10-24", "2026-10-26"),
    tags: ["dst", "days"],
  },
  {
    id: "en-london-sunday-morning",
    language: "en",
    context: LONDON_FRIDAY,
    request: "Sunday morning, anything?",
    expected: search(LONDON, "2026-10-25T09:00:00+00:00", "2026-10-25T12:00:00+00:00"),
    tags: ["dst", "relative"],
  },
  // English, no zone recorded.
  {
    id: "en-nozone-tomorrow",
    language: "en",
    context: NO_ZONE,
    request: "What's on my calendar tomorrow?",
    expected: ASK_ZONE,
    tags: ["no-zone"],
  },
  {
    id: "en-nozone-friday-morning",
    language: "en",
    context: NO_ZONE,
    request: "Do I have meetings next Friday morning?",
    expected: ASK_ZONE,
    tags: ["no-zone", "seed"],
  },
  {
    id: "en-nozone-next-week",
    language: "en",
    context: NO_ZONE,
    request: "What's on next week?",
    expected: ASK_ZONE,
    tags: ["no-zone", "week"],
  },
  {
    id: "en-nozone-free",
    language: "en",
    context: NO_ZONE,
    request: "Am I free Monday afternoon?",
    expected: ASK_ZONE,
    tags: ["no-zone", "free"],
  },
  {
    id: "en-nozone-named-city",
    language: "en",
    context: NO_ZONE,
    request: "What do I have next Friday morning, Ho Chi Minh City time?",
    expected: search(HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00"),
    tags: ["no-zone", "named-place", "seed"],
  },
  {
    id: "en-nozone-new-york",
    language: "en",
    context: NO_ZONE,
    request: "I'm in New York. What's on my calendar on Monday?",
    expected: search(NY, "2026-09-28", "2026-09-29"),
    tags: ["no-zone", "named-place"],
  },
  // Follow-up pages.
  {
    id: "en-follow-up-more",
    language: "en",
    context: HCM_SATURDAY,
    history: followUp("What do I have next week?", NEXT_WEEK_HCM, "Here are the first 20 events of next week. There are more."),
    request: "Show me more.",
    expected: { kind: "call", tool: "search_calendar_events", arguments: { ...NEXT_WEEK_HCM, cursor: FOLLOW_UP_CURSOR } },
    tags: ["follow-up"],
  },
  {
    id: "en-follow-up-rest",
    language: "en",
    context: HCM_SATURDAY,
    history: followUp(
      "How many meetings start next week?",
      NEXT_WEEK_STARTS_HCM,
      "At least 20 meetings start next week; I have not seen them all yet.",
    ),
    request: "And the rest?",
    expected: { kind: "call", tool: "search_calendar_events", arguments: { ...NEXT_WEEK_STARTS_HCM, cursor: FOLLOW_UP_CURSOR } },
    tags: ["follow-up", "start_within"],
  },
  {
    id: "vi-follow-up-more",
    language: "vi",
    context: HCM_SATURDAY,
    history: followUp("Tuần sau tôi có lịch gì?", NEXT_WEEK_HCM, "Đây là 20 sự kiện đầu tiên của tuần sau. Vẫn còn nữa."),
    request: "Cho tôi xem tiếp.",
    expected: { kind: "call", tool: "search_calendar_events", arguments: { ...NEXT_WEEK_HCM, cursor: FOLLOW_UP_CURSOR } },
    tags: ["follow-up"],
  },
  // Vietnamese, recorded zone Asia/Ho_Chi_Minh.
  {
    id: "vi-next-friday-morning",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Sáng thứ Sáu tới tôi có cuộc họp nào không?",
    expected: search(HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00"),
    tags: ["relative", "seed"],
  },
  {
    id: "vi-tomorrow",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Ngày mai tôi có lịch gì?",
    expected: search(HCM, "2026-09-27", "2026-09-28"),
    tags: ["relative", "day"],
  },
  {
    id: "vi-count-next-week",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Tuần sau có bao nhiêu cuộc họp bắt đầu?",
    expected: search(HCM, "2026-09-28", "2026-10-05", "start_within"),
    tags: ["relative", "week", "start_within"],
  },
  {
    id: "vi-free-friday-afternoon",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Chiều thứ Sáu tới tôi có rảnh không?",
    expected: freeBusy(["primary"], HCM, "2026-10-02T12:00:00+07:00", "2026-10-02T17:00:00+07:00"),
    tags: ["relative", "free"],
  },
  {
    id: "vi-all-day-sep-1",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Ngày 1 tháng 9 có sự kiện cả ngày nào không?",
    expected: search(HCM, "2026-09-01", "2026-09-02"),
    tags: ["all-day"],
  },
  {
    id: "vi-friday-begin",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Những cuộc họp nào bắt đầu trong khoảng 9 giờ đến 12 giờ thứ Sáu tới?",
    expected: search(HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00", "start_within"),
    tags: ["relative", "start_within"],
  },
  {
    id: "vi-explicit-hours",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Kiểm tra lịch ngày 5 tháng 10 từ 14 giờ đến 15 giờ 30.",
    expected: search(HCM, "2026-10-05T14:00:00+07:00", "2026-10-05T15:30:00+07:00"),
    tags: ["explicit"],
  },
  {
    id: "vi-wed-tomorrow",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Mai tôi có họp gì không?",
    expected: search(HCM, "2026-10-01", "2026-10-02"),
    tags: ["relative", "day"],
  },
  {
    id: "vi-wed-this-week",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Tuần này tôi có những lịch gì?",
    expected: search(HCM, "2026-09-28", "2026-10-05"),
    tags: ["relative", "week"],
  },
  // Vietnamese, New York and no zone.
  {
    id: "vi-ny-sunday-dst",
    language: "vi",
    context: NEW_YORK_FRIDAY,
    request: "Chủ nhật này tôi có lịch gì?",
    expected: search(NY, "2026-11-01", "2026-11-02"),
    tags: ["dst", "day"],
  },
  {
    id: "vi-nozone-tomorrow",
    language: "vi",
    context: NO_ZONE,
    request: "Ngày mai tôi có lịch gì?",
    expected: ASK_ZONE,
    tags: ["no-zone"],
  },
  {
    id: "vi-nozone-next-week",
    language: "vi",
    context: NO_ZONE,
    request: "Tuần sau tôi có những cuộc họp nào?",
    expected: ASK_ZONE,
    tags: ["no-zone", "week"],
  },
  {
    id: "vi-nozone-saigon",
    language: "vi",
    context: NO_ZONE,
    request: "Sáng thứ Sáu tới, theo giờ Sài Gòn, tôi có họp không?",
    expected: search(HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00"),
    tags: ["no-zone", "named-place", "seed"],
  },
];

/** Contexts of the cases below: the same moments, with the calendars each needs. */
const HCM_SATURDAY_MINE: UserContext = { ...HCM_SATURDAY, calendars: MY_CALENDARS };
const HCM_WEDNESDAY_BINH: UserContext = { ...HCM_WEDNESDAY, calendars: WITH_BINH };
const NEW_YORK_FRIDAY_MINE: UserContext = { ...NEW_YORK_FRIDAY, calendars: MY_CALENDARS };
const LONDON_FRIDAY_MINE: UserContext = { ...LONDON_FRIDAY, calendars: MY_CALENDARS };

/**
 * "My calendars" and named calendars: search_across_calendars. The model
 * learns the user's calendars by calling list_calendars, which the runner
 * answers from the case's context like get_user_context; that look-up is
 * not scored. The expected call names every calendar the user means.
 */
const ACROSS_CALENDARS_CASES: readonly EvalCase[] = [
  {
    id: "en-mine-tomorrow",
    language: "en",
    context: HCM_SATURDAY_MINE,
    request: "What's on all my calendars tomorrow?",
    expected: across(ALL_MINE, HCM, "2026-09-27", "2026-09-28"),
    tags: ["my-calendars", "relative", "day"],
  },
  {
    id: "vi-mine-tomorrow",
    language: "vi",
    context: HCM_SATURDAY_MINE,
    request: "Ngày mai trên tất cả các lịch của tôi có gì?",
    expected: across(ALL_MINE, HCM, "2026-09-27", "2026-09-28"),
    tags: ["my-calendars", "relative", "day"],
  },
  {
    id: "en-mine-count-next-week",
    language: "en",
    context: HCM_SATURDAY_MINE,
    request: "How many events start next week across all my calendars?",
    expected: across(ALL_MINE, HCM, "2026-09-28", "2026-10-05", "start_within"),
    tags: ["my-calendars", "week", "start_within"],
  },
  {
    id: "vi-mine-friday-morning",
    language: "vi",
    context: HCM_SATURDAY_MINE,
    request: "Sáng thứ Sáu tới, trên các lịch của tôi có những gì?",
    expected: across(ALL_MINE, HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00"),
    tags: ["my-calendars", "relative", "seed"],
  },
  {
    id: "en-personal-family-tomorrow",
    language: "en",
    context: HCM_SATURDAY_MINE,
    request: "What's on my personal and family calendars tomorrow?",
    expected: across(["personal", "family"], HCM, "2026-09-27", "2026-09-28"),
    tags: ["named-calendars", "relative", "day"],
  },
  {
    id: "vi-family-personal-next-week",
    language: "vi",
    context: HCM_SATURDAY_MINE,
    request: "Tuần sau lịch Gia đình và lịch Cá nhân của tôi có gì?",
    expected: across(["family", "personal"], HCM, "2026-09-28", "2026-10-05"),
    tags: ["named-calendars", "week"],
  },
  {
    id: "en-ny-mine-sunday-dst",
    language: "en",
    context: NEW_YORK_FRIDAY_MINE,
    request: "What's on all my calendars this Sunday? The clocks change that night.",
    expected: across(ALL_MINE, NY, "2026-11-01", "2026-11-02"),
    tags: ["my-calendars", "dst", "day"],
  },
  {
    id: "vi-london-mine-weekend-dst",
    language: "vi",
    context: LONDON_FRIDAY_MINE,
    request: "Cuối tuần này trên tất cả các lịch của tôi có gì?",
    expected: across(ALL_MINE, LONDON, "2026-10-24", "2026-10-26"),
    tags: ["my-calendars", "dst", "days"],
  },
  {
    id: "vi-mine-birthdays-october",
    language: "vi",
    context: HCM_SATURDAY_MINE,
    request: "Tìm các lịch có chữ “sinh nhật” trên tất cả các lịch của tôi trong tháng 10.",
    expected: {
      kind: "call",
      tool: "search_across_calendars",
      arguments: searchAcross(ALL_MINE, HCM, "2026-10-01", "2026-11-01", "overlap", { text_query: "sinh nhật" }),
      alternatives: [searchAcross(ALL_MINE, HCM, "2026-10-01", "2026-11-01", "start_within", { text_query: "sinh nhật" })],
    },
    tags: ["my-calendars", "text", "month"],
  },
];

/** An event by its words: search_calendar_events with text_query. */
const TEXT_QUERY_CASES: readonly EvalCase[] = [
  {
    id: "en-dentist-october",
    language: "en",
    context: HCM_SATURDAY,
    request: "When is my dentist appointment in October?",
    // "appointment" is the user's word for the event, not one its title must hold.
    expected: wordsInEitherMode(HCM, "2026-10-01", "2026-11-01", "dentist"),
    tags: ["text", "month"],
  },
  {
    id: "vi-kham-rang-october",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Lịch khám răng của tôi trong tháng 10 là khi nào?",
    // "lịch" is the appointment itself; "khám răng" (dental check-up) is what its title says. "kham rang" is the same query.
    expected: wordsInEitherMode(HCM, "2026-10-01", "2026-11-01", "khám răng"),
    tags: ["text", "month", "diacritics"],
  },
  {
    id: "en-budget-next-week",
    language: "en",
    context: HCM_SATURDAY,
    request: "Which of my events next week mention the budget?",
    expected: search(HCM, "2026-09-28", "2026-10-05", "overlap", { text_query: "budget" }),
    tags: ["text", "week"],
  },
  {
    id: "vi-hop-this-week",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Tuần này có những lịch nào có chữ “họp”?",
    // "hop" finds "Họp" too: the same query.
    expected: search(HCM, "2026-09-28", "2026-10-05", "overlap", { text_query: "họp" }),
    tags: ["text", "week", "diacritics"],
  },
  {
    id: "en-yoga-next-week",
    language: "en",
    context: HCM_SATURDAY,
    request: "Find my yoga classes next week.",
    expected: search(HCM, "2026-09-28", "2026-10-05", "overlap", { text_query: "yoga" }),
    tags: ["text", "week"],
  },
  {
    id: "vi-phong-van-next-week",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Tuần sau tôi có buổi phỏng vấn nào không? Tìm theo chữ “phỏng vấn”.",
    expected: search(HCM, "2026-09-28", "2026-10-05", "overlap", { text_query: "phỏng vấn" }),
    tags: ["text", "week", "diacritics"],
  },
];

/** Next Friday morning in Ho Chi Minh City, as an earlier search listed it. */
const FRIDAY_MORNING_EVENTS: readonly ListedEvent[] = [
  {
    eventId: "a41f0c9e2b17Lw3d_20261002T020000Z",
    calendarId: "work",
    summary: "Stand-up",
    startLocal: "2026-10-02T09:00:00+07:00",
    endLocal: "2026-10-02T09:15:00+07:00",
  },
  {
    eventId: "5c1e0a9b7d24Qx_P_20261002T030000Z",
    calendarId: "work",
    summary: "Sprint planning",
    location: "Room 4.2",
    startLocal: "2026-10-02T10:00:00+07:00",
    endLocal: "2026-10-02T11:00:00+07:00",
  },
  {
    eventId: "e90d3b6a1f55",
    calendarId: "work",
    summary: "Lunch with Minh",
    location: "Phở 24",
    startLocal: "2026-10-02T11:30:00+07:00",
    endLocal: "2026-10-02T12:30:00+07:00",
    windowRelation: WindowRelation.CROSSES_END,
  },
];

const FRIDAY_MORNING = searchArguments(HCM, "2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00");

/** Thursday 2026-10-01 in Ho Chi Minh City, as an earlier search listed it. */
const THURSDAY_EVENTS: readonly ListedEvent[] = [
  {
    eventId: "c3d2e1f0a9b8Zt7w",
    calendarId: "work",
    summary: "Họp với khách hàng ABC",
    location: "Phòng 3",
    startLocal: "2026-10-01T09:30:00+07:00",
    endLocal: "2026-10-01T10:30:00+07:00",
  },
  {
    eventId: "77ab12cd34efR-2k_20261001T070000Z",
    calendarId: "work",
    summary: "Design review",
    startLocal: "2026-10-01T14:00:00+07:00",
    endLocal: "2026-10-01T15:00:00+07:00",
  },
  {
    eventId: "0b9e8f7a6c5d",
    calendarId: "work",
    summary: "1:1 with Lan",
    startLocal: "2026-10-01T16:00:00+07:00",
    endLocal: "2026-10-01T16:30:00+07:00",
  },
];

const THURSDAY = searchArguments(HCM, "2026-10-01", "2026-10-02");

/** Sunday 2026-09-27 on all of a user's calendars, as an earlier search listed it. */
const SUNDAY_EVENTS: readonly ListedEvent[] = [
  {
    eventId: "9d8c7b6a5f4eYb1n_20260927T000000Z",
    calendarId: "personal",
    summary: "Morning run",
    startLocal: "2026-09-27T07:00:00+07:00",
    endLocal: "2026-09-27T08:00:00+07:00",
  },
  {
    eventId: "f1e2d3c4b5a6Hm0v",
    calendarId: "family",
    summary: "Family dinner",
    location: "Nhà hàng Ngon",
    startLocal: "2026-09-27T18:30:00+07:00",
    endLocal: "2026-09-27T20:30:00+07:00",
  },
];

const SUNDAY_MINE = searchAcross(ALL_MINE, HCM, "2026-09-27", "2026-09-28");

/**
 * Details an earlier search did not show (a meeting link, the attendees, an
 * address): get_event with the calendar and event id of the result line the
 * user means. The history holds that search as the gateway renders it
 * (searchTurns).
 */
const EVENT_DETAIL_CASES: readonly EvalCase[] = [
  {
    id: "en-event-meeting-link",
    language: "en",
    context: HCM_SATURDAY,
    history: searchTurns(
      "What meetings do I have next Friday morning?",
      { tool: "search_calendar_events", arguments: FRIDAY_MORNING },
      FRIDAY_MORNING_EVENTS,
      "Next Friday morning: the stand-up at 09:00, sprint planning at 10:00 in Room 4.2, and lunch with Minh from 11:30.",
      "work",
    ),
    request: "What's the meeting link for the 10:00?",
    expected: getEvent("primary", "5c1e0a9b7d24Qx_P_20261002T030000Z"),
    tags: ["follow-up", "event"],
  },
  {
    id: "vi-event-meeting-link",
    language: "vi",
    context: HCM_SATURDAY,
    history: searchTurns(
      "Sáng thứ Sáu tới tôi có cuộc họp nào?",
      { tool: "search_calendar_events", arguments: FRIDAY_MORNING },
      FRIDAY_MORNING_EVENTS,
      "Sáng thứ Sáu tới bạn có stand-up lúc 9 giờ, sprint planning lúc 10 giờ ở phòng 4.2, và ăn trưa với Minh từ 11 giờ 30.",
      "work",
    ),
    request: "Cho tôi link họp của cuộc họp lúc 10 giờ.",
    expected: getEvent("primary", "5c1e0a9b7d24Qx_P_20261002T030000Z"),
    tags: ["follow-up", "event"],
  },
  {
    id: "en-event-attendees",
    language: "en",
    context: HCM_WEDNESDAY,
    history: searchTurns(
      "What do I have tomorrow?",
      { tool: "search_calendar_events", arguments: THURSDAY },
      THURSDAY_EVENTS,
      "Tomorrow: the ABC client meeting at 09:30 in Phòng 3, the design review at 14:00, and your 1:1 with Lan at 16:00.",
      "work",
    ),
    request: "Who's invited to the design review?",
    expected: getEvent("primary", "77ab12cd34efR-2k_20261001T070000Z"),
    tags: ["follow-up", "event"],
  },
  {
    id: "vi-event-attendees",
    language: "vi",
    context: HCM_WEDNESDAY,
    history: searchTurns(
      "Ngày mai tôi có lịch gì?",
      { tool: "search_calendar_events", arguments: THURSDAY },
      THURSDAY_EVENTS,
      "Ngày mai bạn có họp với khách hàng ABC lúc 9 giờ 30 ở Phòng 3, design review lúc 14 giờ và 1:1 với Lan lúc 16 giờ.",
      "work",
    ),
    request: "Những ai sẽ tham dự buổi họp với khách hàng?",
    expected: getEvent("primary", "c3d2e1f0a9b8Zt7w"),
    tags: ["follow-up", "event"],
  },
  {
    id: "en-event-address-across",
    language: "en",
    context: HCM_SATURDAY_MINE,
    history: searchTurns(
      "What's on all my calendars tomorrow?",
      { tool: "search_across_calendars", arguments: SUNDAY_MINE },
      SUNDAY_EVENTS,
      "Tomorrow: a morning run at 07:00 (Personal) and the family dinner at Nhà hàng Ngon from 18:30 (Family).",
      "work",
    ),
    request: "What's the address of the restaurant for the dinner?",
    // The dinner is on the family calendar: that calendar's id, not the primary.
    expected: getEvent("family", "f1e2d3c4b5a6Hm0v"),
    tags: ["follow-up", "event", "my-calendars"],
  },
  {
    id: "vi-event-address-across",
    language: "vi",
    context: HCM_SATURDAY_MINE,
    history: searchTurns(
      "Ngày mai trên tất cả các lịch của tôi có gì?",
      { tool: "search_across_calendars", arguments: SUNDAY_MINE },
      SUNDAY_EVENTS,
      "Ngày mai bạn chạy bộ lúc 7 giờ (lịch Cá nhân) và ăn tối gia đình ở Nhà hàng Ngon từ 18 giờ 30 (lịch Gia đình).",
      "work",
    ),
    request: "Nhà hàng ăn tối đó ở địa chỉ nào?",
    expected: getEvent("family", "f1e2d3c4b5a6Hm0v"),
    tags: ["follow-up", "event", "my-calendars"],
  },
];

/** Whether the user (and others) are free: query_free_busy. */
const FREE_BUSY_CASES: readonly EvalCase[] = [
  {
    id: "en-free-thursday-3pm",
    language: "en",
    context: HCM_SATURDAY,
    request: "Am I free next Thursday at 3 pm?",
    expected: freeBusy(["primary"], HCM, "2026-10-01T15:00:00+07:00", "2026-10-01T16:00:00+07:00"),
    tags: ["free", "relative"],
  },
  {
    id: "vi-free-thursday-3pm",
    language: "vi",
    context: HCM_SATURDAY,
    request: "3 giờ chiều thứ Năm tới tôi có rảnh không?",
    expected: freeBusy(["primary"], HCM, "2026-10-01T15:00:00+07:00", "2026-10-01T16:00:00+07:00"),
    tags: ["free", "relative"],
  },
  {
    id: "en-free-binh-tomorrow-afternoon",
    language: "en",
    context: HCM_WEDNESDAY_BINH,
    request: "Are Binh and I both free tomorrow afternoon?",
    expected: freeBusy(ME_AND_BINH, HCM, "2026-10-01T12:00:00+07:00", "2026-10-01T17:00:00+07:00"),
    tags: ["free", "colleague"],
  },
  {
    id: "vi-free-binh-friday-afternoon",
    language: "vi",
    context: HCM_WEDNESDAY_BINH,
    request: "Chiều thứ Sáu này tôi và anh Bình có cùng rảnh không?",
    expected: freeBusy(ME_AND_BINH, HCM, "2026-10-02T12:00:00+07:00", "2026-10-02T17:00:00+07:00"),
    tags: ["free", "colleague"],
  },
  {
    id: "en-free-mine-monday-morning",
    language: "en",
    context: HCM_SATURDAY_MINE,
    request: "Am I free on Monday morning, on all my calendars?",
    expected: freeBusy(ALL_MINE, HCM, "2026-09-28T09:00:00+07:00", "2026-09-28T12:00:00+07:00"),
    tags: ["free", "my-calendars"],
  },
  {
    id: "vi-free-mine-monday-morning",
    language: "vi",
    context: HCM_SATURDAY_MINE,
    request: "Sáng thứ Hai tôi có rảnh trên tất cả các lịch của tôi không?",
    expected: freeBusy(ALL_MINE, HCM, "2026-09-28T09:00:00+07:00", "2026-09-28T12:00:00+07:00"),
    tags: ["free", "my-calendars"],
  },
  {
    id: "en-ny-free-sunday-night-dst",
    language: "en",
    context: NEW_YORK_FRIDAY,
    request: "Am I free on Sunday from midnight until 6 in the morning?",
    // 00:00 EDT to 06:00 EST: seven hours, each end happening once.
    expected: freeBusy(["primary"], NY, "2026-11-01T00:00:00-04:00", "2026-11-01T06:00:00-05:00"),
    tags: ["free", "dst"],
  },
  {
    id: "vi-ny-free-fold",
    language: "vi",
    context: NEW_YORK_FRIDAY,
    request: "Chủ nhật này lúc 1 giờ 30 sáng tôi có rảnh không?",
    expected: ASK_FOLD_NY,
    tags: ["free", "dst", "ambiguous"],
  },
  {
    id: "en-london-free-fold",
    language: "en",
    context: LONDON_FRIDAY,
    request: "Am I free at 1:30 am this Sunday?",
    expected: ASK_FOLD_LONDON,
    tags: ["free", "dst", "ambiguous"],
  },
  {
    id: "vi-london-free-sunday-night-dst",
    language: "vi",
    context: LONDON_FRIDAY,
    request: "Chủ nhật này từ 0 giờ đến 4 giờ sáng tôi có rảnh không?",
    // 00:00 BST to 04:00 GMT: five hours.
    expected: freeBusy(["primary"], LONDON, "2026-10-25T00:00:00+01:00", "2026-10-25T04:00:00+00:00"),
    tags: ["free", "dst"],
  },
];

/**
 * A time to meet: find_free_slots. `tentative` is required and has no
 * default: where the user says how tentative events count, the case
 * expects that value; where the user does not, the careful assistant asks
 * (ASK_TENTATIVE) rather than choose for them. How many slots to offer is
 * the assistant's choice unless the user gives a number.
 */
const FREE_SLOT_CASES: readonly EvalCase[] = [
  {
    id: "en-slots-binh-next-week",
    language: "en",
    context: HCM_WEDNESDAY_BINH,
    request: "Find 30 minutes with Binh next week during work hours. Tentative meetings count as busy.",
    expected: slots(slotArguments(ME_AND_BINH, HCM, "2026-10-05", "2026-10-12", 30, "busy", WORK_HOURS)),
    tags: ["slots", "colleague", "work-hours", "week"],
  },
  {
    id: "vi-slots-binh-next-week",
    language: "vi",
    context: HCM_WEDNESDAY_BINH,
    request: "Tìm giúp tôi 30 phút trống với anh Bình trong giờ làm việc tuần sau. Lịch chưa chắc chắn thì coi như bận.",
    expected: slots(slotArguments(ME_AND_BINH, HCM, "2026-10-05", "2026-10-12", 30, "busy", WORK_HOURS)),
    tags: ["slots", "colleague", "work-hours", "week"],
  },
  {
    id: "en-slots-binh-ask-tentative",
    language: "en",
    context: HCM_WEDNESDAY_BINH,
    request: "Find an hour with Binh on Friday during work hours.",
    expected: ASK_TENTATIVE,
    tags: ["slots", "colleague", "tentative"],
  },
  {
    id: "vi-slots-binh-ask-tentative",
    language: "vi",
    context: HCM_WEDNESDAY_BINH,
    request: "Tìm cho tôi và anh Bình 1 tiếng trống vào thứ Sáu này trong giờ làm việc.",
    expected: ASK_TENTATIVE,
    tags: ["slots", "colleague", "tentative"],
  },
  {
    id: "en-slots-mine-monday",
    language: "en",
    context: HCM_SATURDAY_MINE,
    request: "Find me a free hour on Monday within work hours, free on all my calendars. Ignore tentative events.",
    // Monday with work hours, or Monday 09:00-17:00 without: the same slots.
    expected: slots(slotArguments(ALL_MINE, HCM, "2026-09-28", "2026-09-29", 60, "free", WORK_HOURS), [
      slotArguments(ALL_MINE, HCM, "2026-09-28T09:00:00+07:00", "2026-09-28T17:00:00+07:00", 60, "free"),
    ]),
    tags: ["slots", "my-calendars", "work-hours"],
  },
  {
    id: "vi-slots-three-next-week",
    language: "vi",
    context: HCM_SATURDAY,
    request: "Tìm 3 khung 45 phút trống trong giờ làm việc tuần sau, tính cả lịch chưa chắc chắn là bận.",
    expected: slots(slotArguments(["primary"], HCM, "2026-09-28", "2026-10-05", 45, "busy", { ...WORK_HOURS, limit: 3 })),
    tags: ["slots", "work-hours", "week"],
  },
  {
    id: "en-ny-slots-sunday-dst",
    language: "en",
    context: NEW_YORK_FRIDAY,
    request: "Find me three free 30-minute slots this Sunday, any time of day. Tentative holds don't count.",
    // The 25-hour day of the fall-back: 00:00 EDT to the next midnight EST.
    expected: slots(slotArguments(["primary"], NY, "2026-11-01", "2026-11-02", 30, "free", { limit: 3 })),
    tags: ["slots", "dst"],
  },
  {
    id: "vi-ny-slots-sunday-night-dst",
    language: "vi",
    context: NEW_YORK_FRIDAY,
    request: "Tìm 1 tiếng trống từ 0 giờ đến 4 giờ sáng Chủ nhật này; lịch chưa chắc chắn tính là bận.",
    // 00:00 EDT to 04:00 EST, five hours; 01:00 and 01:30 start two slots each.
    expected: slots(slotArguments(["primary"], NY, "2026-11-01T00:00:00-04:00", "2026-11-01T04:00:00-05:00", 60, "busy")),
    tags: ["slots", "dst"],
  },
  {
    id: "en-london-slots-weekend-dst",
    language: "en",
    context: LONDON_FRIDAY,
    request: "Find a free 45 minutes between 10:00 and 16:00 on any day from Saturday to Monday. Count tentative as busy.",
    expected: slots(
      slotArguments(["primary"], LONDON, "2026-10-24", "2026-10-27", 45, "busy", {
        working_hours_start: "10:00",
        working_hours_end: "16:00",
        working_days: [6, 7, 1],
      }),
    ),
    tags: ["slots", "dst", "days", "work-hours"],
  },
  {
    id: "vi-london-slots-monday-morning",
    language: "vi",
    context: LONDON_FRIDAY,
    request: "Tìm 2 khung 1 tiếng trống vào sáng thứ Hai tới, bỏ qua lịch chưa chắc chắn.",
    // After the fall-back London is on GMT (+00:00). The morning as the window, or the day with morning hours: the same slots.
    expected: slots(
      slotArguments(["primary"], LONDON, "2026-10-26T09:00:00+00:00", "2026-10-26T12:00:00+00:00", 60, "free", { limit: 2 }),
      [
        slotArguments(["primary"], LONDON, "2026-10-26", "2026-10-27", 60, "free", {
          working_hours_start: "09:00",
          working_hours_end: "12:00",
          limit: 2,
        }),
      ],
    ),
    tags: ["slots", "dst", "relative"],
  },
  {
    id: "en-slots-quarter-hour",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "Tomorrow between 2 and 5 pm, find 20 minutes for a call, starting on a quarter hour. Tentative counts as busy.",
    expected: slots(
      slotArguments(["primary"], HCM, "2026-10-01T14:00:00+07:00", "2026-10-01T17:00:00+07:00", 20, "busy", { step_minutes: 15 }),
      [
        slotArguments(["primary"], HCM, "2026-10-01", "2026-10-02", 20, "busy", {
          step_minutes: 15,
          working_hours_start: "14:00",
          working_hours_end: "17:00",
        }),
      ],
    ),
    tags: ["slots", "step"],
  },
];

/** The user's team: Binh (busy-only to the user), Chi in New York and Dung. */
const TEAM: readonly CalendarEntry[] = [
  { id: "work", displayName: "Work" },
  { id: "binh", displayName: "Bình Nguyễn (free/busy only)", busyOnly: true },
  { id: "chi", displayName: "Chi Trần (New York office)", timezone: NY },
  { id: "dung", displayName: "Dũng Lê" },
];
const HCM_WEDNESDAY_TEAM: UserContext = { ...HCM_WEDNESDAY, calendars: TEAM };
/** Wednesday 2026-10-21, 09:00 in New York: next week (2026-10-26 to 2026-11-02) holds the fall-back of Sunday 2026-11-01. */
const NEW_YORK_WEDNESDAY: UserContext = { now: "2026-10-21T13:00:00Z", timezone: NY, primaryCalendarId: "work", calendars: WORK_ONLY };
/** Wednesday 2026-10-14, 09:00 in London: next week (2026-10-19 to 2026-10-26) holds the fall-back of Sunday 2026-10-25. */
const LONDON_WEDNESDAY: UserContext = { now: "2026-10-14T08:00:00Z", timezone: LONDON, primaryCalendarId: "work", calendars: WORK_ONLY };

function meetingArguments(
  required: readonly string[],
  timezone: string,
  start: string,
  endExclusive: string,
  durationMinutes: number,
  tentative: MeetingTimesArguments["tentative"],
  extra: Partial<MeetingTimesArguments> = {},
): MeetingTimesArguments {
  return {
    required_calendar_ids: required,
    optional_calendar_ids: null,
    start,
    end_exclusive: endExclusive,
    timezone,
    duration_minutes: durationMinutes,
    step_minutes: null,
    buffer_before_minutes: null,
    buffer_after_minutes: null,
    tentative,
    min_optional_percent: null,
    working_hours_start: null,
    working_hours_end: null,
    working_days: null,
    limit: null,
    ...extra,
  };
}

/**
 * Meeting times. Each attendee's working hours are calq's to know, so the
 * request's are left open unless the user names hours, and how many times
 * to offer is left open unless the user says.
 */
function meeting(args: MeetingTimesArguments): Expectation {
  const open: (keyof MeetingTimesArguments & string)[] = [];
  if (args.working_hours_start === null) open.push("working_hours_start", "working_hours_end", "working_days");
  if (args.limit === null) open.push("limit");
  return { kind: "call", tool: "find_meeting_times", arguments: args, leftOpen: open };
}

/** A search with filters, in either match mode (the window is a whole day or week, its edges do not matter). */
function filtered(timezone: string, start: string, endExclusive: string, filters: Partial<SearchArguments>): Expectation {
  return {
    kind: "call",
    tool: "search_calendar_events",
    arguments: searchArguments(timezone, start, endExclusive, "overlap", filters),
    alternatives: [searchArguments(timezone, start, endExclusive, "start_within", filters)],
  };
}

const ME_BINH_CHI = ["primary", "binh", "chi"];

/** The find_meeting_times call for tomorrow with Binh and Chi, whose hours never meet (Chi works in New York). */
const TOMORROW_WITH_CHI = meetingArguments(ME_BINH_CHI, HCM, "2026-10-01", "2026-10-02", 60, "busy");

/**
 * A finished find_meeting_times call where nothing fit (Chi's working hours
 * never meet the others'), rendered as the gateway renders it, then the
 * assistant's summary.
 */
function noFitTurns(question: string, reply: string): ChatMessage[] {
  const id = "call_no_fit";
  const at = (calendarId: string, availability: Availability, startLocal: string) =>
    create(AttendeeAvailabilitySchema, { calendarId, availability, startLocal });
  const response = create(FindMeetingTimesResponseSchema, {
    timezone: HCM,
    attendees: [
      create(MeetingAttendeeSchema, { calendarId: "work", required: true, timezone: HCM, workingHoursSource: WorkingHoursSource.SETTINGS }),
      create(MeetingAttendeeSchema, { calendarId: "binh", required: true, timezone: HCM, workingHoursSource: WorkingHoursSource.SETTINGS }),
      create(MeetingAttendeeSchema, { calendarId: "chi", required: true, timezone: NY, workingHoursSource: WorkingHoursSource.FEED }),
    ],
    noFitReason: NoFitReason.OUTSIDE_WORKING_HOURS,
    fewestMissing: create(MeetingTimeSchema, {
      startLocal: "2026-10-01T09:00:00+07:00",
      endLocal: "2026-10-01T10:00:00+07:00",
      unavailableRequired: ["chi"],
      attendees: [
        at("work", Availability.FREE, "2026-10-01T09:00:00+07:00"),
        at("binh", Availability.FREE, "2026-10-01T09:00:00+07:00"),
        at("chi", Availability.OUTSIDE_WORKING_HOURS, "2026-09-30T22:00:00-04:00"),
      ],
    }),
    complete: true,
  });
  const definition = TOOLS.find((tool) => tool.name === "find_meeting_times")!;
  return [
    { role: "user", content: question },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "find_meeting_times", arguments: JSON.stringify(TOMORROW_WITH_CHI) } }],
    },
    { role: "tool", tool_call_id: id, content: renderResult(definition, { ...TOMORROW_WITH_CHI }, response) },
    { role: "assistant", content: reply },
  ];
}

/** A time for several people: find_meeting_times, and a colleague's busy time seen busy-only. */
const MEETING_CASES: readonly EvalCase[] = [
  {
    id: "en-meet-binh-next-week",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    request: "Find 30 minutes next week when Binh and I can both meet. Tentative meetings count as busy.",
    expected: meeting(meetingArguments(ME_AND_BINH, HCM, "2026-10-05", "2026-10-12", 30, "busy")),
    tags: ["meet", "busy-only", "week"],
  },
  {
    id: "vi-meet-binh-next-week",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    request: "Tìm 30 phút trong tuần sau mà tôi và anh Bình đều họp được. Lịch chưa chắc chắn thì coi như bận.",
    expected: meeting(meetingArguments(ME_AND_BINH, HCM, "2026-10-05", "2026-10-12", 30, "busy")),
    tags: ["meet", "busy-only", "week"],
  },
  {
    id: "en-meet-optional-dung",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    request: "Find an hour on Friday for me, Binh and Chi; Dung is optional. Treat tentative events as free.",
    expected: meeting(meetingArguments(ME_BINH_CHI, HCM, "2026-10-02", "2026-10-03", 60, "free", { optional_calendar_ids: ["dung"] })),
    tags: ["meet", "optional"],
  },
  {
    id: "vi-meet-optional-dung",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    request:
      "Tìm 1 tiếng vào thứ Sáu này cho tôi, anh Bình và chị Chi; anh Dũng dự cũng được, không dự cũng được. Lịch chưa chắc chắn thì coi như rảnh.",
    expected: meeting(meetingArguments(ME_BINH_CHI, HCM, "2026-10-02", "2026-10-03", 60, "free", { optional_calendar_ids: ["dung"] })),
    tags: ["meet", "optional"],
  },
  {
    id: "en-meet-half-optional",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    request:
      "Find 45 minutes tomorrow for Binh and me. Chi and Dung are optional, but at least half of them should be able to come. Tentative counts as busy.",
    expected: meeting(
      meetingArguments(ME_AND_BINH, HCM, "2026-10-01", "2026-10-02", 45, "busy", {
        optional_calendar_ids: ["chi", "dung"],
        min_optional_percent: 50,
      }),
    ),
    tags: ["meet", "optional", "share"],
  },
  {
    id: "vi-meet-half-optional",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    request:
      "Tìm 45 phút ngày mai cho tôi và anh Bình. Chị Chi và anh Dũng không bắt buộc, nhưng ít nhất một nửa trong số họ phải dự được. Lịch chưa chắc chắn coi như bận.",
    expected: meeting(
      meetingArguments(ME_AND_BINH, HCM, "2026-10-01", "2026-10-02", 45, "busy", {
        optional_calendar_ids: ["chi", "dung"],
        min_optional_percent: 50,
      }),
    ),
    tags: ["meet", "optional", "share"],
  },
  {
    id: "en-meet-buffers",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    request: "Schedule one hour with Binh next Tuesday, with 15 minutes free before and after it. Tentative events count as busy.",
    expected: meeting(
      meetingArguments(ME_AND_BINH, HCM, "2026-10-06", "2026-10-07", 60, "busy", { buffer_before_minutes: 15, buffer_after_minutes: 15 }),
    ),
    tags: ["meet", "buffers", "relative"],
  },
  {
    id: "vi-meet-buffers",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    request: "Xếp 1 tiếng họp với anh Bình vào thứ Ba tuần sau, chừa 15 phút trống trước và sau. Lịch chưa chắc chắn coi như bận.",
    expected: meeting(
      meetingArguments(ME_AND_BINH, HCM, "2026-10-06", "2026-10-07", 60, "busy", { buffer_before_minutes: 15, buffer_after_minutes: 15 }),
    ),
    tags: ["meet", "buffers", "relative"],
  },
  {
    id: "en-meet-ask-tentative",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    request: "Find 30 minutes with Binh and Chi tomorrow.",
    expected: ASK_TENTATIVE,
    tags: ["meet", "tentative"],
  },
  {
    id: "vi-meet-ask-tentative",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    request: "Tìm 30 phút ngày mai để họp với anh Bình và chị Chi.",
    expected: ASK_TENTATIVE,
    tags: ["meet", "tentative"],
  },
  {
    id: "en-meet-nothing-fits-next-week",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    history: noFitTurns(
      "Find an hour tomorrow for Binh, Chi and me. Tentative counts as busy.",
      "Nothing fits tomorrow: Chi's working hours in New York never overlap with yours and Binh's. The closest is 09:00, which only Chi misses.",
    ),
    request: "Then look at the whole of next week instead.",
    expected: meeting({ ...TOMORROW_WITH_CHI, start: "2026-10-05", end_exclusive: "2026-10-12" }),
    tags: ["meet", "no-fit", "follow-up", "week"],
  },
  {
    id: "vi-meet-nothing-fits-next-week",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    history: noFitTurns(
      "Tìm 1 tiếng ngày mai cho tôi, anh Bình và chị Chi. Lịch chưa chắc chắn coi như bận.",
      "Ngày mai không có giờ nào hợp: giờ làm việc của chị Chi ở New York không trùng với giờ của anh chị. Gần nhất là 09:00, chỉ thiếu chị Chi.",
    ),
    request: "Vậy tìm trong cả tuần sau đi.",
    expected: meeting({ ...TOMORROW_WITH_CHI, start: "2026-10-05", end_exclusive: "2026-10-12" }),
    tags: ["meet", "no-fit", "follow-up", "week"],
  },
  {
    id: "en-meet-quarter-hour",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    request: "Find 30 minutes with Dung tomorrow afternoon, starting on any quarter hour. Ignore tentative events.",
    expected: meeting(
      meetingArguments(["primary", "dung"], HCM, "2026-10-01T12:00:00+07:00", "2026-10-01T17:00:00+07:00", 30, "free", {
        step_minutes: 15,
      }),
    ),
    tags: ["meet", "step"],
  },
  {
    id: "vi-meet-quarter-hour",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    request: "Tìm 30 phút chiều mai với anh Dũng, bắt đầu vào bất kỳ mốc 15 phút nào. Bỏ qua lịch chưa chắc chắn.",
    expected: meeting(
      meetingArguments(["primary", "dung"], HCM, "2026-10-01T12:00:00+07:00", "2026-10-01T17:00:00+07:00", 30, "free", {
        step_minutes: 15,
      }),
    ),
    tags: ["meet", "step"],
  },
  {
    id: "en-meet-binh-monday",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    request: "When can Binh and I meet for an hour on Monday? Give me three options. Tentative counts as busy.",
    expected: meeting(meetingArguments(ME_AND_BINH, HCM, "2026-10-05", "2026-10-06", 60, "busy", { limit: 3 })),
    tags: ["meet", "busy-only"],
  },
  {
    id: "vi-meet-binh-monday",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    request: "Thứ Hai tới tôi và anh Bình có thể họp 1 tiếng vào lúc nào? Cho tôi 3 lựa chọn. Lịch chưa chắc chắn coi như bận.",
    expected: meeting(meetingArguments(ME_AND_BINH, HCM, "2026-10-05", "2026-10-06", 60, "busy", { limit: 3 })),
    tags: ["meet", "busy-only"],
  },
  {
    id: "en-free-binh-busy-only",
    language: "en",
    context: HCM_WEDNESDAY_TEAM,
    request: "Is Binh busy on Friday at 3 pm?",
    expected: freeBusy(["binh"], HCM, "2026-10-02T15:00:00+07:00", "2026-10-02T16:00:00+07:00"),
    tags: ["free", "busy-only", "colleague"],
  },
  {
    id: "vi-free-binh-busy-only",
    language: "vi",
    context: HCM_WEDNESDAY_TEAM,
    request: "Anh Bình có bận lúc 3 giờ chiều thứ Sáu này không?",
    expected: freeBusy(["binh"], HCM, "2026-10-02T15:00:00+07:00", "2026-10-02T16:00:00+07:00"),
    tags: ["free", "busy-only", "colleague"],
  },
];

/** Searches with filters: the user's own answers, status and categories. */
const FILTER_CASES: readonly EvalCase[] = [
  {
    id: "en-filter-hide-declined",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "What meetings do I have tomorrow? Leave out the ones I declined.",
    expected: filtered(HCM, "2026-10-01", "2026-10-02", { my_participation: "not_declined" }),
    tags: ["filter", "declined", "day"],
  },
  {
    id: "vi-filter-hide-declined",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Ngày mai tôi có những cuộc họp nào? Bỏ qua những cuộc tôi đã từ chối.",
    expected: filtered(HCM, "2026-10-01", "2026-10-02", { my_participation: "not_declined" }),
    tags: ["filter", "declined", "day"],
  },
  {
    id: "en-filter-accepted-this-week",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "Which meetings did I accept this week?",
    expected: filtered(HCM, "2026-09-28", "2026-10-05", { my_participation: "accepted" }),
    tags: ["filter", "accepted", "week"],
  },
  {
    id: "vi-filter-accepted-this-week",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Tuần này tôi đã nhận lời những cuộc họp nào?",
    expected: filtered(HCM, "2026-09-28", "2026-10-05", { my_participation: "accepted" }),
    tags: ["filter", "accepted", "week"],
  },
  {
    id: "en-filter-tentative-friday",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "Show me the events on my calendar on Friday that are only tentative.",
    expected: filtered(HCM, "2026-10-02", "2026-10-03", { status: "tentative" }),
    tags: ["filter", "status", "day"],
  },
  {
    id: "vi-filter-tentative-friday",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Cho tôi xem các sự kiện vào thứ Sáu này mà trạng thái vẫn là tạm thời (tentative).",
    expected: filtered(HCM, "2026-10-02", "2026-10-03", { status: "tentative" }),
    tags: ["filter", "status", "day"],
  },
  {
    id: "en-filter-category-travel",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "Is anything in the Travel category next week?",
    expected: filtered(HCM, "2026-10-05", "2026-10-12", { categories: ["Travel"] }),
    tags: ["filter", "category", "week"],
  },
  {
    id: "vi-filter-category-travel",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Tuần sau có sự kiện nào thuộc danh mục Công tác không?",
    expected: filtered(HCM, "2026-10-05", "2026-10-12", { categories: ["Công tác"] }),
    tags: ["filter", "category", "week"],
  },
  {
    id: "en-filter-unanswered",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "Which invitations next week haven't I answered yet?",
    expected: filtered(HCM, "2026-10-05", "2026-10-12", { my_participation: "needs_action" }),
    tags: ["filter", "unanswered", "week"],
  },
  {
    id: "vi-filter-unanswered",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Tuần sau có lời mời họp nào tôi chưa trả lời không?",
    expected: filtered(HCM, "2026-10-05", "2026-10-12", { my_participation: "needs_action" }),
    tags: ["filter", "unanswered", "week"],
  },
];

/** Days a model must not misread: a weekday of a date, and next week across a DST change. */
const LOCAL_DAY_CASES: readonly EvalCase[] = [
  {
    id: "en-weekday-14th",
    language: "en",
    context: HCM_WEDNESDAY,
    request: "What weekday is the 14th, and what do I have that day?",
    expected: search(HCM, "2026-10-14", "2026-10-15"),
    tags: ["weekday", "day"],
  },
  {
    id: "vi-weekday-14th",
    language: "vi",
    context: HCM_WEDNESDAY,
    request: "Ngày 14 là thứ mấy, và hôm đó tôi có lịch gì?",
    expected: search(HCM, "2026-10-14", "2026-10-15"),
    tags: ["weekday", "day"],
  },
  {
    id: "en-ny-next-week-dst",
    language: "en",
    context: NEW_YORK_WEDNESDAY,
    request: "What's on my calendar next week?",
    // 2026-10-26 00:00 EDT to 2026-11-02 00:00 EST: the fall-back makes the week 169 hours.
    expected: search(NY, "2026-10-26", "2026-11-02"),
    tags: ["dst-week", "dst", "week", "relative"],
  },
  {
    id: "vi-ny-next-week-dst",
    language: "vi",
    context: NEW_YORK_WEDNESDAY,
    request: "Tuần sau tôi có lịch gì?",
    expected: search(NY, "2026-10-26", "2026-11-02"),
    tags: ["dst-week", "dst", "week", "relative"],
  },
  {
    id: "en-london-next-week-dst",
    language: "en",
    context: LONDON_WEDNESDAY,
    request: "What do I have next week?",
    expected: search(LONDON, "2026-10-19", "2026-10-26"),
    tags: ["dst-week", "dst", "week", "relative"],
  },
  {
    id: "vi-london-next-week-dst",
    language: "vi",
    context: LONDON_WEDNESDAY,
    request: "Tuần sau tôi có những lịch gì?",
    expected: search(LONDON, "2026-10-19", "2026-10-26"),
    tags: ["dst-week", "dst", "week", "relative"],
  },
];

/** The cases by what they exercise; ONE_CALENDAR_CASES is the first set, the others came with later tools. */
export const CASE_GROUPS = {
  oneCalendar: ONE_CALENDAR_CASES,
  acrossCalendars: ACROSS_CALENDARS_CASES,
  textQuery: TEXT_QUERY_CASES,
  eventDetails: EVENT_DETAIL_CASES,
  freeBusy: FREE_BUSY_CASES,
  freeSlots: FREE_SLOT_CASES,
  meetingTimes: MEETING_CASES,
  searchFilters: FILTER_CASES,
  localDays: LOCAL_DAY_CASES,
} as const satisfies Record<string, readonly EvalCase[]>;

/** Every case, English and Vietnamese. */
export const CASES: readonly EvalCase[] = Object.values(CASE_GROUPS).flat();

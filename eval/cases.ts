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
 * Monday to the next Monday; "next Friday" is the coming Friday. Questions
 * about what is on take `overlap`; questions about what starts or how many
 * meetings there are take `start_within`.
 */

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

/** get_event arguments (GetEvent: one occurrence by its calendar and event id). */
export interface GetEventArguments {
  readonly calendar_id: string;
  readonly event_id: string;
}

/** The tools a case may expect a call of, with their arguments. */
export interface ToolArguments {
  readonly search_calendar_events: SearchArguments;
  readonly search_across_calendars: SearchAcrossArguments;
  readonly query_free_busy: FreeBusyArguments;
  readonly find_free_slots: FreeSlotsArguments;
  readonly get_event: GetEventArguments;
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

/** Every case, English and Vietnamese. */
export const CASES: readonly EvalCase[] = [
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
    expected: search(HCM, "2026-10-02T12:00:00+07:00", "2026-10-02T17:00:00+07:00"),
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
    expected: search(HCM, "2026-10-02T12:00:00+07:00", "2026-10-02T17:00:00+07:00"),
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

/**
 * Scoring of the evaluation: what the model did last in a case (called a
 * tool, or replied in words), whether that was what the case expects, and
 * the rates per variant and per expected tool. Pure functions over recorded
 * outcomes, so they are tested without a model.
 *
 * "Right tool" means the call names the tool the case expects. "Exact
 * arguments" means, on top of that, the same request to calq: no argument
 * the tool lacks, and each argument read as calq reads it (ARGUMENT_RULES):
 * "primary" and the caller's primary id are the same calendar; calendar ids
 * are a set (order does not matter, a repeated calendar is refused); a
 * window names the same instants ("2026-10-02T09:00:00+07:00" and
 * "2026-10-02T09:00" in Asia/Ho_Chi_Minh are the same instant); an optional
 * argument sent as null, absent, or as its default value means the default
 * (the page size, step and slot count the contract declares, no cursor); a
 * text query is its folded words, in any order; working days are a set,
 * none meaning Monday to Friday. A case may accept other argument sets
 * (alternatives) and leave some arguments open.
 *
 * "Asked" means the reply is a clarifying question about what the case
 * needs (asksAbout): any other reply, such as a refusal or an unrelated
 * answer, is neither a call nor a clarification.
 */
import {
  FindFreeSlotsRequestSchema,
  FindMeetingTimesRequestSchema,
  SearchEventsRequestSchema,
} from "../gen/calq/v1/calendar_service_pb.js";
import { declaredBound } from "../src/contract/index.js";
import { parseTextQuery } from "../src/search/text-query.js";
import { isRequestZone, parseRequestInstant, requestZone } from "../src/time/request-window.js";
import type { AskTopic, CallExpectation, EvalCase, ExpectedTool, ToolArguments } from "./cases.js";

/** What the model did at the end of a case. */
export type Outcome =
  | { readonly kind: "call"; readonly name: string; readonly arguments: Record<string, unknown> | null }
  | { readonly kind: "reply"; readonly text: string }
  | { readonly kind: "failed"; readonly error: string };

/** How one case went under one variant. */
export interface CaseScore {
  readonly caseId: string;
  readonly variant: string;
  readonly expected: "call" | "ask";
  /** The tool the case expects a call of; null when it expects a question. */
  readonly expectedTool: ExpectedTool | null;
  readonly noZone: boolean;
  /** For expected calls: the model called that tool, whatever its arguments. */
  readonly rightTool: boolean;
  /** The expected call, with the same meaning. */
  readonly exact: boolean;
  /**
   * For expected searches (tools with a match mode): the right tool, in a
   * match mode the case accepts; null for other cases.
   */
  readonly matchModeCorrect: boolean | null;
  /**
   * The model replied with a question about what the case needs: the topic
   * of an expected question, else the user's time zone or place.
   */
  readonly asked: boolean;
  readonly outcome: Outcome;
}

/** Scores the model's last move against what the case expects. */
export function scoreCase(testCase: EvalCase, variant: string, outcome: Outcome): CaseScore {
  const expected = testCase.expected;
  const call = expected.kind === "call" && outcome.kind === "call" && outcome.name === expected.tool ? outcome : null;
  const accepted = expected.kind === "call" ? acceptedArguments(expected) : [];
  const modeOpen = expected.kind === "call" && (expected.leftOpen as readonly string[] | undefined)?.includes("match_mode") === true;
  const hasMode = accepted.some((args) => "match_mode" in args);
  return {
    caseId: testCase.id,
    variant,
    expected: expected.kind,
    expectedTool: expected.kind === "call" ? expected.tool : null,
    noZone: testCase.context.timezone === null,
    rightTool: call !== null,
    exact: expected.kind === "call" && call?.arguments != null && sameCall(expected, call.arguments, testCase.context.primaryCalendarId),
    matchModeCorrect: hasMode
      ? call?.arguments != null && (modeOpen || accepted.some((args) => args.match_mode === call.arguments?.match_mode))
      : null,
    asked: outcome.kind === "reply" && asksAbout(outcome.text, expected.kind === "ask" ? expected.about : "zone"),
    outcome,
  };
}

/** Where a sentence ends: after its punctuation (kept), or at a line break. */
const SENTENCE_END = /(?<=[.!?？。])\s+|\n+/u;

/** A sentence is a question when it has a question mark or the form of one. */
const QUESTION = [
  /[?？]/u,
  // English questions and requests open with their word.
  /^\W*(?:and |so |then )?(?:which|what|where|could you|can you|would you|please|tell me|let me know)\b/iu,
  // Vietnamese question words sit inside the sentence.
  /(?<!\p{L})(?:nào|đâu|bạn đang ở)(?!\p{L})/iu,
];

/** Words that show what a question is about, English and Vietnamese. */
const TOPIC_WORDS: Record<AskTopic, RegExp> = {
  zone: /time ?zone|(?<!\p{L})(?:zone|city|where|located|location|country|place|UTC|GMT|múi giờ|ở đâu|thành phố|quốc gia|nơi|giờ địa phương)(?!\p{L})/iu,
  fold: /(?<!\p{L})(?:first|second|earlier|later|EDT|EST|BST|GMT|daylight|standard|summer time|winter time|twice|repeats?|UTC|lần đầu|lần thứ hai|hai lần|sớm hơn|muộn hơn|giờ mùa hè|giờ mùa đông)(?!\p{L})|[+-]\d\d:\d\d/iu,
  tentative:
    /(?<!\p{L})(?:tentative(?:ly)?|unconfirmed|not (?:yet )?confirmed|provisional|pencil(?:l?ed)?|holds?|chưa chắc(?: chắn)?|chưa xác nhận|tạm(?: thời)?|dự kiến)(?!\p{L})/iu,
};

/**
 * Whether `reply` asks the user about `topic`: one of its sentences is a
 * question (a question mark, or a question word in English or Vietnamese),
 * and the reply names the topic (for "zone": a time zone or a place; for
 * "tentative": tentative or unconfirmed events). A refusal, an answer, or a
 * question about something else is not asking.
 */
export function asksAbout(reply: string, topic: AskTopic): boolean {
  const asks = reply.split(SENTENCE_END).some((sentence) => QUESTION.some((form) => form.test(sentence.trim())));
  return asks && TOPIC_WORDS[topic].test(reply);
}

/** The arguments a case accepts: the expected ones, then the alternatives. */
function acceptedArguments(expected: CallExpectation): Readonly<Record<string, unknown>>[] {
  return [expected.arguments, ...(expected.alternatives ?? [])].map((args): Readonly<Record<string, unknown>> => ({ ...args }));
}

/** Whether `actual` asks calq what the expected call, or one of its alternatives, asks. */
export function sameCall(expected: CallExpectation, actual: Readonly<Record<string, unknown>>, primaryCalendarId: string): boolean {
  const open = new Set<string>(expected.leftOpen ?? []);
  return acceptedArguments(expected).some((args) => sameArguments(expected.tool, args, actual, primaryCalendarId, open));
}

/**
 * Whether `actual` asks calq exactly what `expected` asks of `tool`: no
 * argument the tool lacks (the gateway refuses those), and every argument
 * not in `open` the same by its rule.
 */
export function sameArguments(
  tool: ExpectedTool,
  expected: Readonly<Record<string, unknown>>,
  actual: Readonly<Record<string, unknown>>,
  primaryCalendarId: string,
  open: ReadonlySet<string> = new Set(),
): boolean {
  const rules: Readonly<Record<string, SameArgument>> = ARGUMENT_RULES[tool];
  if (Object.keys(actual).some((name) => !(name in rules))) return false;
  const call: CallPair = { expected, actual, primaryCalendarId };
  return Object.entries(rules).every(([name, same]) => open.has(name) || same(expected[name], actual[name], call));
}

/** Both argument sets of a comparison, for rules that read another argument (the zone of an instant). */
interface CallPair {
  readonly expected: Readonly<Record<string, unknown>>;
  readonly actual: Readonly<Record<string, unknown>>;
  readonly primaryCalendarId: string;
}

/** Whether the actual value of one argument means what the expected one does. */
type SameArgument = (expected: unknown, actual: unknown, call: CallPair) => boolean;

/** The same value, compared with ===: modes, policies, ids, durations. */
const identical: SameArgument = (expected, actual) => expected === actual;

/** The same calendar, "primary" being the caller's primary calendar. */
const sameCalendar: SameArgument = (expected, actual, { primaryCalendarId }) =>
  typeof actual === "string" && calendarOf(actual, primaryCalendarId) === calendarOf(expected, primaryCalendarId);

/** The same set of calendars, in any order; a calendar named twice (also as "primary" and its id) is refused by calq. */
const sameCalendars: SameArgument = (expected, actual, { primaryCalendarId }) => {
  const want = calendarSet(expected, primaryCalendarId);
  const got = calendarSet(actual, primaryCalendarId);
  return want !== undefined && got !== undefined && sameSet(want, got);
};

/** The same set of calendars, or none: null and [] both name no calendar. */
const sameCalendarsOrNone: SameArgument = (expected, actual, call) => {
  const none = (value: unknown) => value === null || value === undefined || (Array.isArray(value) && value.length === 0);
  if (none(expected) || none(actual)) return none(expected) && none(actual);
  return sameCalendars(expected, actual, call);
};

/** A zone that only renders local times: none, or any zone calq accepts, is as good as another. */
const renderingZone: SameArgument = (_expected, actual) =>
  actual === undefined || actual === null || actual === "" || (typeof actual === "string" && isRequestZone(actual));

/** The same IANA zone, in any letter case (calq reads zone names so). */
const sameZone: SameArgument = (expected, actual) =>
  typeof expected === "string" && typeof actual === "string" && expected.toLowerCase() === actual.toLowerCase();

/** The same instant, each read in its own call's `timezone` as calq reads it; an instant calq refuses is never the same. */
const sameInstant =
  (field: "start" | "end_exclusive"): SameArgument =>
  (expected, actual, call) => {
    const want = instantOf(expected, call.expected.timezone, field);
    return want !== undefined && want === instantOf(actual, call.actual.timezone, field);
  };

/** A whole number whose null, absence and 0 mean `fallback`. */
const numberOr =
  (fallback: number): SameArgument =>
  (expected, actual) =>
    orDefault(expected, fallback) === orDefault(actual, fallback);

/** An optional filter: null and absence mean none, anything else must be the same value. */
const sameOrNone: SameArgument = (expected, actual) => (expected ?? null) === (actual ?? null);

/** The same categories as a set, case ignored, as the search compares them; none for null or []. */
const sameCategories: SameArgument = (expected, actual) => {
  const folded = (value: unknown) =>
    value === null || value === undefined
      ? new Set<string>()
      : Array.isArray(value) && value.every((item) => typeof item === "string")
        ? new Set(value.map((item) => item.trim().toLowerCase()))
        : undefined;
  const want = folded(expected);
  const got = folded(actual);
  return want !== undefined && got !== undefined && sameSet(want, got);
};

/** A string whose null and absence mean "" (the first page, no working hours). */
const textOrEmpty: SameArgument = (expected, actual) => (expected ?? "") === (actual ?? "");

/** The same folded words in any order, as the search compares them; none for null or ""; a query calq refuses matches nothing. */
const sameWords: SameArgument = (expected, actual) => {
  const want = wordsOf(expected);
  const got = wordsOf(actual);
  return want !== undefined && got !== undefined && sameSet(want, got);
};

/**
 * The same working days, as a set: none (null or []) means Monday to
 * Friday when working hours are given; without working hours calq takes
 * none and refuses any.
 */
const sameWorkingDays: SameArgument = (expected, actual, call) => {
  const want = workingDaysOf(expected, call.expected);
  const got = workingDaysOf(actual, call.actual);
  return want !== undefined && got !== undefined && sameSet(want, got);
};

/** The arguments both searches share, compared alike. */
const SEARCH_WINDOW_RULES = {
  start: sameInstant("start"),
  end_exclusive: sameInstant("end_exclusive"),
  timezone: sameZone,
  match_mode: identical,
  limit: numberOr(declaredBound(SearchEventsRequestSchema.field.limit, "zeroMeans")),
  cursor: textOrEmpty,
  text_query: sameWords,
  status: sameOrNone,
  transparency: sameOrNone,
  my_participation: sameOrNone,
  categories: sameCategories,
} as const;

/**
 * How each argument of each tool is compared. A tool's arguments are keys
 * of its row, so an argument without a rule does not compile, and an
 * argument the model sends that is not in the row makes the call wrong.
 */
const ARGUMENT_RULES: { readonly [T in ExpectedTool]: { readonly [A in keyof ToolArguments[T]]-?: SameArgument } } = {
  search_calendar_events: {
    ...SEARCH_WINDOW_RULES,
    calendar_id: sameCalendar,
  },
  search_across_calendars: {
    ...SEARCH_WINDOW_RULES,
    calendar_ids: sameCalendars,
  },
  query_free_busy: {
    calendar_ids: sameCalendars,
    start: sameInstant("start"),
    end_exclusive: sameInstant("end_exclusive"),
    timezone: sameZone,
  },
  find_free_slots: {
    calendar_ids: sameCalendars,
    start: sameInstant("start"),
    end_exclusive: sameInstant("end_exclusive"),
    timezone: sameZone,
    duration_minutes: identical,
    step_minutes: numberOr(declaredBound(FindFreeSlotsRequestSchema.field.stepMinutes, "zeroMeans")),
    tentative: identical,
    working_hours_start: textOrEmpty,
    working_hours_end: textOrEmpty,
    working_days: sameWorkingDays,
    limit: numberOr(declaredBound(FindFreeSlotsRequestSchema.field.limit, "zeroMeans")),
  },
  get_event: {
    calendar_id: sameCalendar,
    event_id: identical,
    timezone: renderingZone,
  },
  find_meeting_times: {
    required_calendar_ids: sameCalendars,
    optional_calendar_ids: sameCalendarsOrNone,
    start: sameInstant("start"),
    end_exclusive: sameInstant("end_exclusive"),
    timezone: sameZone,
    duration_minutes: identical,
    step_minutes: numberOr(declaredBound(FindMeetingTimesRequestSchema.field.stepMinutes, "zeroMeans")),
    buffer_before_minutes: numberOr(0),
    buffer_after_minutes: numberOr(0),
    tentative: identical,
    min_optional_percent: numberOr(0),
    working_hours_start: textOrEmpty,
    working_hours_end: textOrEmpty,
    working_days: sameWorkingDays,
    limit: numberOr(declaredBound(FindMeetingTimesRequestSchema.field.limit, "zeroMeans")),
  },
};

/** The tools a case may expect, in report order. */
const EXPECTED_TOOLS = Object.keys(ARGUMENT_RULES) as ExpectedTool[];

function calendarOf(id: unknown, primaryCalendarId: string): unknown {
  return id === "primary" ? primaryCalendarId : id;
}

function calendarSet(ids: unknown, primaryCalendarId: string): Set<unknown> | undefined {
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === "string")) return undefined;
  const set = new Set(ids.map((id) => calendarOf(id, primaryCalendarId)));
  return set.size === ids.length ? set : undefined;
}

function instantOf(text: unknown, timezone: unknown, field: string): number | undefined {
  if (typeof text !== "string" || typeof timezone !== "string") return undefined;
  try {
    return parseRequestInstant(text, requestZone(timezone), field);
  } catch {
    return undefined;
  }
}

function orDefault(value: unknown, fallback: number): unknown {
  return value === null || value === undefined || value === 0 ? fallback : value;
}

function wordsOf(query: unknown): Set<string> | undefined {
  if (query === null || query === undefined) return new Set();
  if (typeof query !== "string") return undefined;
  const parsed = parseTextQuery(query);
  return "words" in parsed ? new Set(parsed.words) : undefined;
}

function workingDaysOf(days: unknown, args: Readonly<Record<string, unknown>>): Set<unknown> | undefined {
  const none = days === null || days === undefined || (Array.isArray(days) && days.length === 0);
  if ((args.working_hours_start ?? "") === "") return none ? new Set() : undefined;
  if (none) return new Set([1, 2, 3, 4, 5]);
  if (!Array.isArray(days) || !days.every((day) => Number.isInteger(day) && day >= 1 && day <= 7)) return undefined;
  const set = new Set(days);
  return set.size === days.length ? set : undefined;
}

function sameSet(a: ReadonlySet<unknown>, b: ReadonlySet<unknown>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}

/** The rates of the cases expecting one tool, under one variant. */
export interface ToolReport {
  readonly tool: ExpectedTool;
  readonly cases: number;
  /** The share where the model called this tool. */
  readonly rightToolRate: number;
  /** The share where it called it with exactly the expected arguments. */
  readonly exactArgumentAccuracy: number;
}

/** The rates of one description variant. */
export interface VariantReport {
  readonly variant: string;
  readonly cases: number;
  /** Cases expecting a call of some tool. */
  readonly callCases: number;
  /** Of those, the share answered with a call of the expected tool. */
  readonly rightToolRate: number;
  /** Of those, the share answered with exactly the expected arguments. */
  readonly exactArgumentAccuracy: number;
  /** Cases expecting a search in a given match mode. */
  readonly matchModeCases: number;
  /** Of those, the share answered with the right search in that mode. */
  readonly matchModeAccuracy: number;
  /** Cases with no recorded zone where the model must ask. */
  readonly noZoneAskCases: number;
  /** Of those, the share where the model asked instead of searching. */
  readonly clarificationRateNoZone: number;
  /** Every case where the model must ask (no zone, a repeated local time, a choice the user left open). */
  readonly askCases: number;
  /** Of those, the share where it asked about what the case needs. */
  readonly clarificationRate: number;
  /** Cases where the endpoint failed; they count as wrong. */
  readonly failures: number;
  /** One report per expected tool that has cases, in EXPECTED_TOOLS order. */
  readonly tools: readonly ToolReport[];
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/** The rates of `variant` over its scores; a rate over no cases is 0. */
export function summarize(variant: string, scores: readonly CaseScore[]): VariantReport {
  const mine = scores.filter((score) => score.variant === variant);
  const calls = mine.filter((score) => score.expected === "call");
  const modes = calls.filter((score) => score.matchModeCorrect !== null);
  const asks = mine.filter((score) => score.expected === "ask");
  const noZoneAsks = asks.filter((score) => score.noZone);
  const rate = (of: readonly CaseScore[], counts: (score: CaseScore) => boolean) => share(of.filter(counts).length, of.length);
  return {
    variant,
    cases: mine.length,
    callCases: calls.length,
    rightToolRate: rate(calls, (score) => score.rightTool),
    exactArgumentAccuracy: rate(calls, (score) => score.exact),
    matchModeCases: modes.length,
    matchModeAccuracy: rate(modes, (score) => score.matchModeCorrect === true),
    noZoneAskCases: noZoneAsks.length,
    clarificationRateNoZone: rate(noZoneAsks, (score) => score.asked),
    askCases: asks.length,
    clarificationRate: rate(asks, (score) => score.asked),
    failures: mine.filter((score) => score.outcome.kind === "failed").length,
    tools: EXPECTED_TOOLS.flatMap((tool) => {
      const expecting = calls.filter((score) => score.expectedTool === tool);
      if (expecting.length === 0) return [];
      return [
        {
          tool,
          cases: expecting.length,
          rightToolRate: rate(expecting, (score) => score.rightTool),
          exactArgumentAccuracy: rate(expecting, (score) => score.exact),
        },
      ];
    }),
  };
}

/**
 * The reports as Markdown: one row per variant, then one row per expected
 * tool and variant, the variants of one tool side by side.
 */
export function reportTable(reports: readonly VariantReport[]): string {
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const byTool = EXPECTED_TOOLS.flatMap((tool) =>
    reports.flatMap((report) => report.tools.filter((row) => row.tool === tool).map((row) => ({ variant: report.variant, row }))),
  );
  return [
    "| variant | cases | right tool | exact arguments | match mode | asks when no zone | asks when it must | failures |",
    "|---|---|---|---|---|---|---|---|",
    ...reports.map(
      (report) =>
        `| ${report.variant} | ${report.cases} | ${percent(report.rightToolRate)} of ${report.callCases} | ` +
        `${percent(report.exactArgumentAccuracy)} of ${report.callCases} | ${percent(report.matchModeAccuracy)} of ${report.matchModeCases} | ` +
        `${percent(report.clarificationRateNoZone)} of ${report.noZoneAskCases} | ${percent(report.clarificationRate)} of ${report.askCases} | ` +
        `${report.failures} |`,
    ),
    "",
    "| expected tool | variant | cases | right tool | exact arguments |",
    "|---|---|---|---|---|",
    ...byTool.map(
      ({ variant, row }) =>
        `| ${row.tool} | ${variant} | ${row.cases} | ${percent(row.rightToolRate)} | ${percent(row.exactArgumentAccuracy)} |`,
    ),
  ].join("\n");
}

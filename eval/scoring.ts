/**
 * Scoring of the evaluation: what the model did last in a case (called a
 * tool, or replied in words), whether that was what the case expects, and
 * the per-variant rates. Pure functions over recorded outcomes, so they are
 * tested without a model.
 *
 * "Exact arguments" means the same request to calq: the same tool, no
 * argument the tool lacks, the same calendar
 * ("primary" and the caller's primary id are the same calendar), zone, mode,
 * page size (null, 0 and 20 all mean the default 20) and cursor (null and ""
 * both mean the first page), and a window naming the same instants, read
 * the way calq reads them ("2026-10-02T09:00:00+07:00" and
 * "2026-10-02T09:00" in Asia/Ho_Chi_Minh are the same instant).
 *
 * "Asked" means the reply is a clarifying question about what the case
 * needs (asksAbout): any other reply, such as a refusal or an unrelated
 * answer, is neither a search nor a clarification.
 */
import { resolveWindow } from "../src/time/request-window.js";
import type { AskTopic, EvalCase, SearchArguments } from "./cases.js";

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
  readonly noZone: boolean;
  /** The expected search, with the same meaning. */
  readonly exact: boolean;
  /** For expected searches: a search with the expected match mode. */
  readonly matchModeCorrect: boolean;
  /**
   * The model replied with a question about what the case needs: the topic
   * of an expected question, else the user's time zone or place.
   */
  readonly asked: boolean;
  readonly outcome: Outcome;
}

const DEFAULT_LIMIT = 20;
const MAX_WINDOW_MS = 366 * 86_400_000;

/** Scores the model's last move against what the case expects. */
export function scoreCase(testCase: EvalCase, variant: string, outcome: Outcome): CaseScore {
  const search = outcome.kind === "call" && outcome.name === "search_calendar_events" ? outcome.arguments : null;
  const expected = testCase.expected;
  return {
    caseId: testCase.id,
    variant,
    expected: expected.kind,
    noZone: testCase.context.timezone === null,
    exact: expected.kind === "call" && search !== null && sameSearch(expected.arguments, search, testCase.context.primaryCalendarId),
    matchModeCorrect: expected.kind === "call" && search !== null && search.match_mode === expected.arguments.match_mode,
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
  fold: /(?<!\p{L})(?:first|second|earlier|later|EDT|EST|daylight|standard|twice|repeats?|UTC|GMT|lần đầu|lần thứ hai|hai lần|sớm hơn|muộn hơn)(?!\p{L})|[+-]\d\d:\d\d/iu,
};

/**
 * Whether `reply` asks the user about `topic`: one of its sentences is a
 * question (a question mark, or a question word in English or Vietnamese),
 * and the reply names the topic (for "zone": a time zone or a place). A
 * refusal, an answer, or a question about something else is not asking.
 */
export function asksAbout(reply: string, topic: AskTopic): boolean {
  const asks = reply.split(SENTENCE_END).some((sentence) => QUESTION.some((form) => form.test(sentence.trim())));
  return asks && TOPIC_WORDS[topic].test(reply);
}

/** Whether `actual` asks calq exactly what `expected` asks. */
export function sameSearch(expected: SearchArguments, actual: Record<string, unknown>, primaryCalendarId: string): boolean {
  const calendar = (id: unknown) => (id === "primary" ? primaryCalendarId : id);
  const limit = (value: unknown) => (value === null || value === undefined || value === 0 ? DEFAULT_LIMIT : value);
  const cursor = (value: unknown) => (value === null || value === undefined ? "" : value);
  // An argument the tool does not have is refused by the gateway, so the call is not the expected one.
  if (Object.keys(actual).some((name) => !(name in expected))) return false;
  if (calendar(actual.calendar_id) !== calendar(expected.calendar_id)) return false;
  if (typeof actual.timezone !== "string" || actual.timezone.toLowerCase() !== expected.timezone.toLowerCase()) return false;
  if (actual.match_mode !== expected.match_mode) return false;
  if (limit(actual.limit) !== limit(expected.limit) || cursor(actual.cursor) !== cursor(expected.cursor)) return false;
  const want = windowOf(expected);
  const got = windowOf(actual);
  return want !== undefined && got !== undefined && want.start === got.start && want.endExclusive === got.endExclusive;
}

/** The instants calq would read, or undefined where calq would refuse the window. */
function windowOf(args: Record<string, unknown> | SearchArguments): { start: number; endExclusive: number } | undefined {
  const { start, end_exclusive: endExclusive, timezone } = args as Record<string, unknown>;
  if (typeof start !== "string" || typeof endExclusive !== "string" || typeof timezone !== "string") return undefined;
  try {
    return resolveWindow({ start, endExclusive, timezone }, MAX_WINDOW_MS);
  } catch {
    return undefined;
  }
}

/** The rates of one description variant. */
export interface VariantReport {
  readonly variant: string;
  readonly cases: number;
  /** Cases expecting a search. */
  readonly searchCases: number;
  /** Of those, the share answered with exactly the expected arguments. */
  readonly exactArgumentAccuracy: number;
  /** Of those, the share answered with a search in the expected match mode. */
  readonly matchModeAccuracy: number;
  /** Cases with no recorded zone where the model must ask. */
  readonly noZoneAskCases: number;
  /** Of those, the share where the model asked instead of searching. */
  readonly clarificationRateNoZone: number;
  /** Cases where the endpoint failed; they count as wrong. */
  readonly failures: number;
}

/** The rates of `variant` over its scores; a rate over no cases is 0. */
export function summarize(variant: string, scores: readonly CaseScore[]): VariantReport {
  const mine = scores.filter((score) => score.variant === variant);
  const searches = mine.filter((score) => score.expected === "call");
  const noZoneAsks = mine.filter((score) => score.expected === "ask" && score.noZone);
  const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
  return {
    variant,
    cases: mine.length,
    searchCases: searches.length,
    exactArgumentAccuracy: share(searches.filter((score) => score.exact).length, searches.length),
    matchModeAccuracy: share(searches.filter((score) => score.matchModeCorrect).length, searches.length),
    noZoneAskCases: noZoneAsks.length,
    clarificationRateNoZone: share(noZoneAsks.filter((score) => score.asked).length, noZoneAsks.length),
    failures: mine.filter((score) => score.outcome.kind === "failed").length,
  };
}

/** The reports as a Markdown table, one row per variant. */
export function reportTable(reports: readonly VariantReport[]): string {
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  return [
    "| variant | cases | exact arguments | match mode | asks when no zone | failures |",
    "|---|---|---|---|---|---|",
    ...reports.map(
      (report) =>
        `| ${report.variant} | ${report.cases} | ${percent(report.exactArgumentAccuracy)} of ${report.searchCases} | ` +
        `${percent(report.matchModeAccuracy)} | ${percent(report.clarificationRateNoZone)} of ${report.noZoneAskCases} | ${report.failures} |`,
    ),
  ].join("\n");
}

/**
 * The checks every method makes of the arguments it shares with others,
 * written once: the window (request-window.ts), the match mode, the words of
 * a text query. Each refusal names its field and what to send instead
 * (calendar_service.proto states each rule). The bounds the contract
 * declares on fields (page sizes, counts, lengths) are checked from the
 * contract itself, where a message arrives (src/contract: checkBounds).
 */
import { CalqError } from "../calq-error.js";
import type { MatchMode } from "../search/match.js";
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, parseTextQuery, type TextQueryProblem } from "../search/text-query.js";
import { type RequestWindow, resolveWindow } from "../time/request-window.js";

/** A window as a request writes it: two instants in one of the three forms, and the zone they are read in. */
export interface WindowArguments {
  readonly start: string;
  readonly endExclusive: string;
  readonly timezone: string;
}

/** The window resolved to instants, no longer than `maxWindowMs` (request-window.ts refuses what it cannot read). */
export function windowOf(args: WindowArguments, maxWindowMs: number): RequestWindow {
  return resolveWindow({ start: args.start, endExclusive: args.endExclusive, timezone: args.timezone }, maxWindowMs);
}

/** The match mode a request names; none is INVALID_MATCH_MODE (there is no default). */
export function requiredMode(mode: MatchMode | undefined, names: string): MatchMode {
  if (mode === undefined) throw new CalqError("INVALID_MATCH_MODE", `match_mode is required: ${names}`, "match_mode");
  return mode;
}

/** The folded words of a request's text_query (search/text-query.ts), or INVALID_TEXT_QUERY saying what to change. */
export function textQueryWords(textQuery: string): readonly string[] {
  const parsed = parseTextQuery(textQuery);
  if ("words" in parsed) return parsed.words;
  const why: Record<TextQueryProblem, string> = {
    too_long: `text_query is longer than ${MAX_QUERY_CHARS} characters`,
    too_many_words: `text_query has more than ${MAX_QUERY_WORDS} words`,
    no_words: "text_query has no letter or digit; send words, or an empty text_query to search without words",
  };
  throw new CalqError("INVALID_TEXT_QUERY", why[parsed.problem], "text_query");
}

/**
 * Search by words: the meaning of a request's text query, written once.
 *
 * - Text is folded before it is compared: Unicode compatibility
 *   decomposition (NFKD), combining marks removed, then lower case, and the
 *   letters that carry their mark in the letter itself mapped to their base
 *   (đ and Đ to d, ł to l, ø to o, ı to i). So "hop" finds "Họp", "dang"
 *   finds "Đăng", and "CAFE" finds "café".
 * - The query is split into words at every character that is not a letter
 *   or a digit; punctuation and spaces only separate words.
 * - An event matches when every word (AND) occurs, as a substring of the
 *   folded text, in its summary, its location or its description (each word
 *   may be found in a different one). Nothing is a pattern: no wildcard and
 *   no regular expression.
 * - Folding is ics/searchable-text.ts's, done once per event when the feed is read.
 * - A query is at most MAX_QUERY_CHARS characters and MAX_QUERY_WORDS words;
 *   one with no word (only spaces or punctuation) is refused, since it would
 *   match everything while looking like a filter.
 */

import { foldText } from "../ics/searchable-text.js";

/** The longest query accepted, in characters (UTF-16 code units, as protobuf strings count them in JS). */
export const MAX_QUERY_CHARS = 200;

/** The most words a query may hold. */
export const MAX_QUERY_WORDS = 10;

const WORD_SEPARATORS = /[^\p{L}\p{N}]+/u;

/** Why a query cannot be used, for the refusal's message. */
export type TextQueryProblem = "too_long" | "too_many_words" | "no_words";

/** A parsed text query: its folded words, or why it is refused. */
export type ParsedTextQuery = { readonly words: readonly string[] } | { readonly problem: TextQueryProblem };

/** Splits and folds a query; an empty string is no query at all (every event matches). */
export function parseTextQuery(query: string): ParsedTextQuery {
  if (query.length > MAX_QUERY_CHARS) return { problem: "too_long" };
  if (query === "") return { words: [] };
  const words = foldText(query)
    .split(WORD_SEPARATORS)
    .filter((word) => word !== "");
  if (words.length === 0) return { problem: "no_words" };
  if (words.length > MAX_QUERY_WORDS) return { problem: "too_many_words" };
  return { words: [...new Set(words)] };
}

/** True when every word of the query occurs in the event's searchable text. */
export function matchesWords(words: readonly string[], searchable: string): boolean {
  for (const word of words) if (!searchable.includes(word)) return false;
  return true;
}

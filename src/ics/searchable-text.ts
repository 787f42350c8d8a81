/**
 * The text a search by words compares: an event's summary, location and
 * description folded once when the feed is read (search/text-query.ts says
 * what a query means). Folding: Unicode compatibility decomposition (NFKD),
 * combining marks removed, lower case, and letters that carry their mark in
 * the letter itself mapped to their base (đ to d, ł to l, ø to o, ı to i).
 */

/** The most characters of a DESCRIPTION kept for searching: enough for an agenda, bounded for memory. */
export const MAX_SEARCHED_DESCRIPTION = 4_096;

/** Letters whose mark is part of the letter, so NFKD leaves them whole. */
const BASE_LETTERS: Readonly<Record<string, string>> = { đ: "d", ł: "l", ø: "o", ı: "i", ħ: "h", ŧ: "t", æ: "ae", œ: "oe", ß: "ss" };
const BASE_LETTER = new RegExp(`[${Object.keys(BASE_LETTERS).join("")}]`, "g");
const COMBINING_MARKS = /\p{M}+/gu;

/** `text` as queries compare it: decomposed, without marks, lower case, marked letters at their base. */
export function foldText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(COMBINING_MARKS, "")
    .toLowerCase()
    .replace(BASE_LETTER, (letter) => BASE_LETTERS[letter]);
}

/** The folded text an event is matched against: its summary, location and description, kept apart. */
export function searchableText(summary: string, location: string, description: string): string {
  // A separator that folding never produces keeps a word from matching across two fields.
  return `${foldText(summary)}\u0000${foldText(location)}\u0000${foldText(description.slice(0, MAX_SEARCHED_DESCRIPTION))}`;
}

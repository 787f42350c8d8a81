/**
 * Many strings as one: laid end to end in a single flat string, with the
 * offset where each starts. Posting one flat string to another thread is one
 * copy of its characters, where an array of strings is cloned string by
 * string (an object for each on the receiving thread); and every UTF-16 code
 * unit arrives as it left, where a UTF-8 round trip would turn a lone
 * surrogate (a description cut inside a pair) into U+FFFD.
 */

export interface StringTable {
  /** Every entry, one after another. */
  readonly text: string;
  /** Entry i is text.slice(offsets[i], offsets[i + 1]); one more offset than entries. */
  readonly offsets: Uint32Array;
}

/** The table of `entries`, in their order. */
export function stringTable(entries: readonly string[]): StringTable {
  const offsets = new Uint32Array(entries.length + 1);
  let at = 0;
  for (let i = 0; i < entries.length; i++) {
    at += entries[i].length;
    offsets[i + 1] = at;
  }
  return { text: entries.join(""), offsets };
}

/** Entry `i` of `table`. */
export function stringAt(table: StringTable, i: number): string {
  return table.text.slice(table.offsets[i], table.offsets[i + 1]);
}

/** How many entries `table` holds. */
export function stringCount(table: StringTable): number {
  return table.offsets.length - 1;
}

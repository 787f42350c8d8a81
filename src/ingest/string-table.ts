/**
 * Many strings as one buffer, to move between threads rather than copy
 * them: laid end to end, with the offset (in UTF-16 code units) where each
 * starts. The buffer is transferred, so the receiving thread pays nothing
 * for the table until it reads an entry, and nothing for the entries it
 * never reads. Each code unit is kept as it is: one byte each when all fit
 * in Latin-1 (the usual case), else two; UTF-8 would turn a lone surrogate
 * (a DESCRIPTION cut inside a pair, then folded into the searchable text)
 * into U+FFFD.
 */

/** How a table stores its code units. */
export type StringTableEncoding = "latin1" | "utf16le";

/** Strings laid end to end in one buffer of their own, with where each starts. */
export interface StringTable {
  /** Every entry, one after another, in `encoding`; its buffer is the table's alone, to transfer. */
  readonly bytes: Uint8Array;
  readonly encoding: StringTableEncoding;
  /** Entry i spans code units [offsets[i], offsets[i + 1]); one more offset than entries. */
  readonly offsets: Uint32Array;
}

/** Matches a code unit that Latin-1 cannot hold (a surrogate, each half, among them). */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** The table of `entries`, in their order. */
export function stringTable(entries: readonly string[]): StringTable {
  const offsets = new Uint32Array(entries.length + 1);
  let at = 0;
  for (let i = 0; i < entries.length; i++) {
    at += entries[i].length;
    offsets[i + 1] = at;
  }
  const text = entries.join("");
  const encoding: StringTableEncoding = BEYOND_LATIN1.test(text) ? "utf16le" : "latin1";
  // Not pooled: a small Buffer may share its ArrayBuffer with others, which must not move with this one.
  const buffer = Buffer.allocUnsafeSlow(encoding === "latin1" ? text.length : 2 * text.length);
  buffer.write(text, encoding);
  return { bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length), encoding, offsets };
}

/** The buffers of `table` to transfer. */
export function stringTableBuffers(table: StringTable): ArrayBuffer[] {
  return [table.bytes.buffer as ArrayBuffer, table.offsets.buffer as ArrayBuffer];
}

/** Reads entries of `table` (made once per table: it wraps the bytes without copying them). */
export function stringReader(table: StringTable): (i: number) => string {
  const { bytes, encoding, offsets } = table;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const width = encoding === "latin1" ? 1 : 2;
  return (i) => buffer.toString(encoding, width * offsets[i], width * offsets[i + 1]);
}

/** How many entries `table` holds. */
export function stringCount(table: StringTable): number {
  return table.offsets.length - 1;
}

/**
 * Many strings as one buffer, to share between threads rather than copy
 * them: laid end to end, with the offset (in UTF-16 code units) where each
 * starts. The buffer is shared memory (shared-memory.ts), so the receiving
 * thread pays nothing for the table until it reads an entry, and nothing
 * for the entries it never reads; a later build copies ranges of entries
 * from it byte for byte, without reading them as strings. Each code unit is
 * kept as it is: one byte each when all fit in Latin-1 (the usual case),
 * else two; UTF-8 would turn a lone surrogate (a DESCRIPTION cut inside a
 * pair, then folded into the searchable text) into U+FFFD.
 */
import { sharedUint8, sharedUint32 } from "./shared-memory.js";

/** How a table stores its code units. */
export type StringTableEncoding = "latin1" | "utf16le";

/** Strings laid end to end in one buffer of their own, with where each starts. */
export interface StringTable {
  /** Every entry, one after another, in `encoding`. */
  readonly bytes: Uint8Array;
  readonly encoding: StringTableEncoding;
  /** Entry i spans code units [offsets[i], offsets[i + 1]); one more offset than entries. */
  readonly offsets: Uint32Array;
}

/** Matches a code unit that Latin-1 cannot hold (a surrogate, each half, among them). */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** The table of `entries`, in their order. */
export function stringTable(entries: readonly string[]): StringTable {
  const builder = new StringTableBuilder();
  for (const entry of entries) builder.add(entry);
  return builder.build();
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

/** One stretch of a table being built: new strings, or entries [from, to) of another table. */
type Part = { readonly strings: string[] } | { readonly table: StringTable; readonly from: number; readonly to: number };

/** Builds a table from new strings and from ranges of other tables, in the order added. */
export class StringTableBuilder {
  private readonly parts: Part[] = [];
  private entries = 0;

  /** Appends one string. */
  add(entry: string): void {
    const last = this.parts.at(-1);
    if (last !== undefined && "strings" in last) last.strings.push(entry);
    else this.parts.push({ strings: [entry] });
    this.entries++;
  }

  /** Appends entries [from, to) of `table`, copied as bytes. */
  addRange(table: StringTable, from: number, to: number): void {
    if (to <= from) return;
    this.parts.push({ table, from, to });
    this.entries += to - from;
  }

  get size(): number {
    return this.entries;
  }

  build(): StringTable {
    const texts = this.parts.map((part) => ("strings" in part ? part.strings.join("") : undefined));
    const wide = this.parts.some((part, i) => ("strings" in part ? BEYOND_LATIN1.test(texts[i]!) : part.table.encoding === "utf16le"));
    const encoding: StringTableEncoding = wide ? "utf16le" : "latin1";
    const width = wide ? 2 : 1;
    let units = 0;
    for (const [i, part] of this.parts.entries()) {
      units += "strings" in part ? texts[i]!.length : part.table.offsets[part.to] - part.table.offsets[part.from];
    }
    const bytes = sharedUint8(width * units);
    const out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const offsets = sharedUint32(this.entries + 1);
    let entry = 0;
    let at = 0;
    for (const [i, part] of this.parts.entries()) {
      if ("strings" in part) {
        for (const one of part.strings) {
          at += one.length;
          offsets[++entry] = at;
        }
        out.write(texts[i]!, width * (at - texts[i]!.length), encoding);
        continue;
      }
      const { table, from, to } = part;
      const base = table.offsets[from];
      const shift = at - base;
      for (let k = from + 1; k <= to; k++) offsets[++entry] = table.offsets[k] + shift;
      const length = table.offsets[to] - base;
      copyUnits(table, base, length, bytes, at, encoding);
      at += length;
    }
    return { bytes, encoding, offsets };
  }
}

/** Copies `length` code units of `table` from unit `from` into `out` at unit `at`, widening Latin-1 to UTF-16 when asked. */
function copyUnits(table: StringTable, from: number, length: number, out: Uint8Array, at: number, encoding: StringTableEncoding): void {
  if (table.encoding === encoding) {
    const width = encoding === "latin1" ? 1 : 2;
    out.set(table.bytes.subarray(width * from, width * (from + length)), width * at);
    return;
  }
  // Latin-1 into a UTF-16 table: each byte is a code unit below 256, its high byte zero.
  for (let k = 0; k < length; k++) out[2 * (at + k)] = table.bytes[from + k];
}

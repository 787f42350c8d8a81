/**
 * A feed's VEVENTs found in its bytes before anything is parsed, so a reload
 * can tell which of them changed at the cost of a scan and a digest
 * (docs/decisions.md, "Rebuilds in proportion to the change").
 *
 * The scan knows only the plain shape producers write: a `BEGIN:VEVENT` line
 * and the next `END:VEVENT` line, in upper case, each alone on its line. It
 * never decides what a feed means: a build checks that the lexer found
 * exactly these components (ingest), and a feed of any other shape is read
 * whole, as before.
 *
 * Chunks are grouped into runs: adjacent chunks (nothing but line breaks
 * between them), cut after each chunk whose UID line hashes to a fixed
 * residue, so the cuts depend on the chunks themselves and an edit moves
 * only the cuts next to it. A run has two digests: of its bytes, one call
 * of SHA-256; and of its bytes but the value of each DTSTAMP line, which
 * some producers set to the time of each fetch and calq never reads.
 */
import { createHash } from "node:crypto";

/** Chunks a run holds on average: a changed run costs its chunks' reading. */
const RUN_SPREAD = 16;
/** Chunks a run holds at most, whatever their UIDs hash to. */
const MAX_RUN = 4 * RUN_SPREAD;
/** What a DTSTAMP value (`YYYYMMDDTHHMMSS`) is replaced by in a digest: a value of the same length and form. */
const DTSTAMP_MASK = Buffer.from("00000000T000000", "latin1");
const DTSTAMP_LINE = "\nDTSTAMP:";

/** A feed's VEVENT chunks and their runs. */
export interface FeedChunks {
  /** The feed's bytes, one character per byte (latin1): an offset in it is an offset in the bytes. */
  readonly view: string;
  /** Chunk i spans bytes [starts[i], ends[i]): from its BEGIN:VEVENT line to the break that ends its END:VEVENT line. */
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  /** Run r holds chunks [runEnds[r - 1] (0 for the first), runEnds[r]). */
  readonly runEnds: Uint32Array;
}

/**
 * The chunks of a feed's bytes, or undefined when the feed is not of the
 * plain shape (no VEVENT, a VEVENT without its END:VEVENT line, one inside
 * another, a line folded onto END:VEVENT): such a feed is read whole.
 */
export function chunkFeed(bytes: Uint8Array): FeedChunks | undefined {
  if (bytes.length >= 2 ** 32) return undefined;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
  const starts: number[] = [];
  const ends: number[] = [];
  let begin = nextLineStarting(view, "BEGIN:VEVENT", 0);
  while (begin !== -1) {
    const afterBegin = lineEnd(view, begin + "BEGIN:VEVENT".length);
    if (afterBegin === -1) return undefined;
    const endLine = nextLineStarting(view, "END:VEVENT", afterBegin);
    if (endLine === -1) return undefined;
    const end = lineEnd(view, endLine + "END:VEVENT".length);
    if (end === -1) return undefined;
    const next = nextLineStarting(view, "BEGIN:VEVENT", afterBegin);
    // A VEVENT opened inside this one, or a row folded onto its END line: not the plain shape.
    if ((next !== -1 && next < end) || isFoldedRow(view, end)) return undefined;
    starts.push(begin);
    ends.push(end);
    begin = next;
  }
  if (starts.length === 0) return undefined;
  return { view, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends), runEnds: runsOf(view, starts, ends) };
}

/** The offset of the next line (at or after `from`) that starts with `text`, or -1. */
function nextLineStarting(view: string, text: string, from: number): number {
  for (let at = view.indexOf(text, from); at !== -1; at = view.indexOf(text, at + 1)) {
    if (at === 0 || view.charCodeAt(at - 1) === 0x0a || view.charCodeAt(at - 1) === 0x0d) return at;
  }
  return -1;
}

/** Where the line whose text ends at `at` ends, its break included; -1 when more text follows on the line, or no break. */
function lineEnd(view: string, at: number): number {
  const next = view.charCodeAt(at);
  if (next === 0x0a) return at + 1;
  if (next !== 0x0d) return -1;
  return view.charCodeAt(at + 1) === 0x0a ? at + 2 : at + 1;
}

/** Whether the row at `at` continues the line before it (RFC 5545 folding). */
function isFoldedRow(view: string, at: number): boolean {
  const first = view.charCodeAt(at);
  return first === 0x20 || first === 0x09;
}

/** Where each run ends: cut after a chunk whose UID line hashes to the residue, before text other than line breaks, or at MAX_RUN. */
function runsOf(view: string, starts: readonly number[], ends: readonly number[]): Uint32Array {
  const runEnds: number[] = [];
  let length = 0;
  for (let i = 0; i < starts.length; i++) {
    length++;
    const last = i === starts.length - 1;
    if (last || length === MAX_RUN || !onlyBreaks(view, ends[i], starts[i + 1]) || sampleOf(view, starts[i], ends[i]) % RUN_SPREAD === 0) {
      runEnds.push(i + 1);
      length = 0;
    }
  }
  return Uint32Array.from(runEnds);
}

/** Whether [from, to) holds nothing but line breaks. */
function onlyBreaks(view: string, from: number, to: number): boolean {
  for (let at = from; at < to; at++) {
    const code = view.charCodeAt(at);
    if (code !== 0x0a && code !== 0x0d) return false;
  }
  return true;
}

/** A hash of a chunk's UID line (of its length when it has none): what decides where runs are cut. */
function sampleOf(view: string, start: number, end: number): number {
  const uid = uidLineOf(view, start, end);
  // FNV-1a over the line, then mixed so that every bit depends on every character.
  let hash = 0x811c9dc5;
  if (uid === -1) hash = Math.imul(hash ^ (end - start), 0x01000193);
  const stop = uid === -1 ? uid : Math.min(end, uid + 80);
  for (let at = uid; at < stop; at++) {
    const code = view.charCodeAt(at);
    if (code === 0x0d || code === 0x0a) break;
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** The offset of a chunk's first line named UID (followed by its value or parameters), or -1. */
function uidLineOf(view: string, start: number, end: number): number {
  for (let at = view.indexOf("\nUID", start); at !== -1 && at < end; at = view.indexOf("\nUID", at + 1)) {
    const next = view.charCodeAt(at + 4);
    if (next === 0x3a || next === 0x3b) return at + 1;
  }
  return -1;
}

/** The digest of bytes [from, to) of a feed (16 bytes of SHA-256, base64url): equal digests, equal bytes. */
export function runDigest(bytes: Uint8Array, from: number, to: number): string {
  return createHash("sha256").update(bytes.subarray(from, to)).digest().subarray(0, 16).toString("base64url");
}

/**
 * The digest of bytes [from, to) of a feed whose chunks are `chunks` (16
 * bytes of SHA-256, base64url), each DTSTAMP line's value of the form
 * `YYYYMMDDTHHMMSS` read as a fixed one: equal digests, equal text but for
 * such values.
 */
export function runDigestWithoutStamps(bytes: Uint8Array, chunks: FeedChunks, from: number, to: number): string {
  const { view } = chunks;
  const digest = createHash("sha256");
  let at = from;
  for (let line = view.indexOf(DTSTAMP_LINE, from); line !== -1 && line < to; line = view.indexOf(DTSTAMP_LINE, line + 1)) {
    const value = line + DTSTAMP_LINE.length;
    if (value + DTSTAMP_MASK.length > to || !isStampValue(view, value)) continue;
    digest.update(bytes.subarray(at, value));
    digest.update(DTSTAMP_MASK);
    at = value + DTSTAMP_MASK.length;
  }
  digest.update(bytes.subarray(at, to));
  return digest.digest().subarray(0, 16).toString("base64url");
}

/** Whether `YYYYMMDDTHHMMSS` (digits, a T, digits) starts at `at`. */
function isStampValue(view: string, at: number): boolean {
  for (let i = 0; i < DTSTAMP_MASK.length; i++) {
    const code = view.charCodeAt(at + i);
    if (i === 8 ? code !== 0x54 : code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/** Line breaks in [from, to): CRLF, LF or a CR alone each end one row, as the lexer reads them. */
export function rowsIn(view: string, from: number, to: number): number {
  let rows = 0;
  for (let at = view.indexOf("\n", from); at !== -1 && at < to; at = view.indexOf("\n", at + 1)) rows++;
  for (let at = view.indexOf("\r", from); at !== -1 && at < to; at = view.indexOf("\r", at + 1)) {
    if (at + 1 >= to || view.charCodeAt(at + 1) !== 0x0a) rows++;
  }
  return rows;
}

/**
 * The UID a chunk's text names, as ical.js reads a plain one: the value of
 * its first line named UID, unfolded. Undefined when that line has
 * parameters, an escape, or there is none: the chunk's events then say
 * their UID once read.
 */
export function textUidOf(bytes: Uint8Array, chunks: FeedChunks, chunk: number): string | undefined {
  const { view, starts, ends } = chunks;
  const line = uidLineOf(view, starts[chunk], ends[chunk]);
  if (line === -1 || view.charCodeAt(line + 3) !== 0x3a) return undefined;
  const parts: Uint8Array[] = [];
  let at = line + 4;
  for (;;) {
    let stop = at;
    while (stop < ends[chunk] && view.charCodeAt(stop) !== 0x0d && view.charCodeAt(stop) !== 0x0a) stop++;
    parts.push(bytes.subarray(at, stop));
    const next = lineEnd(view, stop);
    if (next === -1 || next >= ends[chunk] || !isFoldedRow(view, next)) break;
    at = next + 1;
  }
  const uid = Buffer.concat(parts).toString("utf8");
  return uid === "" || uid.includes("\\") || uid.includes("\ufffd") ? undefined : uid;
}

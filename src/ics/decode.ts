/**
 * Feed bytes to text. RFC 5545 folds lines at 75 octets, and producers
 * (Google among them) fold in the middle of a multi-byte UTF-8 character;
 * decoding such a line as it stands yields two U+FFFD where the character
 * was. Unfolding restores it, but ical.js unfolds text, not bytes, so the
 * continuation bytes of a split character are moved back before the line
 * break here. Line numbers stay the same, so diagnostics still point at the
 * right BEGIN line.
 */

const LF = 0x0a;
const CR = 0x0d;

/** UTF-8 text of a feed, with characters split by folding made whole. Throws on invalid UTF-8 when `fatal`. */
export function decodeFeed(bytes: Uint8Array, fatal = false): string {
  return new TextDecoder("utf-8", { fatal, ignoreBOM: true }).decode(mendSplitCharacters(bytes));
}

/** The 1-based line of the first byte sequence that is not UTF-8, or undefined when all of it is. */
export function invalidUtf8Line(bytes: Uint8Array): number | undefined {
  const mended = mendSplitCharacters(bytes);
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(mended);
    return undefined;
  } catch {
    // Find the first line that does not decode on its own.
    let line = 1;
    let start = 0;
    const strict = new TextDecoder("utf-8", { fatal: true });
    for (let end = mended.indexOf(LF); ; end = mended.indexOf(LF, start)) {
      const stop = end === -1 ? mended.length : end;
      try {
        strict.decode(mended.subarray(start, stop));
      } catch {
        return line;
      }
      if (end === -1) return undefined;
      start = end + 1;
      line++;
    }
  }
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

function mendSplitCharacters(bytes: Uint8Array): Uint8Array {
  let out: Uint8Array | undefined;
  for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, lf + 1)) {
    const next = bytes[lf + 1];
    if (next !== 0x20 && next !== 0x09) continue;
    let count = 0;
    while (count < 3 && isContinuation(bytes[lf + 2 + count])) count++;
    if (count === 0) continue;
    // [break][SP][c1..cn] becomes [c1..cn][break][SP]: unfolding gives the same text.
    out ??= Uint8Array.from(bytes);
    const breakStart = out[lf - 1] === CR ? lf - 1 : lf;
    const moved = out.slice(lf + 2, lf + 2 + count);
    const fold = out.slice(breakStart, lf + 2);
    out.set(moved, breakStart);
    out.set(fold, breakStart + count);
    bytes = out;
  }
  return out ?? bytes;
}

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

/** A feed's text, and where it was not UTF-8. */
export interface DecodedFeed {
  readonly text: string;
  /** The 1-based line of the first bytes that were not UTF-8 (read as U+FFFD); undefined when all were. */
  readonly invalidUtf8Line?: number;
}

/** UTF-8 text of a feed, with characters split by folding made whole; decoded once when it is all UTF-8. */
export function decodeFeed(bytes: Uint8Array): DecodedFeed {
  const mended = mendSplitCharacters(bytes);
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(mended) };
  } catch {
    return { text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(mended), invalidUtf8Line: firstInvalidLine(mended) };
  }
}

/** The first line that does not decode on its own. */
function firstInvalidLine(bytes: Uint8Array): number | undefined {
  const strict = new TextDecoder("utf-8", { fatal: true });
  let start = 0;
  for (let line = 1; ; line++) {
    const end = bytes.indexOf(LF, start);
    try {
      strict.decode(bytes.subarray(start, end === -1 ? bytes.length : end));
    } catch {
      return line;
    }
    if (end === -1) return undefined;
    start = end + 1;
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

/**
 * Reading a feed's bytes from its source, and the ways that can fail. A read
 * is all or nothing: a body that is cut short, too large or late is a
 * failure, never a shorter feed.
 */
import { createHash } from "node:crypto";
import { closesCalendar } from "../ics/feed-lexer.js";

/** Why a feed could not be read; shown to operators, never to search callers. */
export type FeedFailureClass =
  /** The file is missing or unreadable, or the host refused or could not be reached. */
  | "unreachable"
  /** The fetch did not finish within the fetch timeout. */
  | "timeout"
  /** The server answered with a status other than 200 or 304. */
  | "http_status"
  /** The body ended early: a broken connection or no END:VCALENDAR. */
  | "truncated"
  /** The body is larger than the feed size limit. */
  | "too_large"
  /** The body is not iCalendar (for example an HTML login page). */
  | "not_icalendar"
  /** The text could not be read into events at all. */
  | "parse_error"
  /** Reading ran past the build's safety limit and was stopped; the next poll reads the feed again. */
  | "build_stopped";

export class FeedFailure extends Error {
  constructor(
    readonly failure: FeedFailureClass,
    /** For the operator's log only: may name hosts or paths. */
    detail: string,
    /** The upstream status, for http_status. */
    readonly httpStatus?: number,
  ) {
    super(detail);
    this.name = "FeedFailure";
  }
}

/**
 * What identifies the version last read, sent back on the next read so an
 * unchanged feed costs a 304 or a stat, not a rebuild.
 */
export interface FeedVersion {
  readonly etag?: string;
  readonly lastModified?: string;
  /** SHA-256 of the bytes, so an identical body is not rebuilt. */
  readonly digest?: string;
  /** For files: size, mtime and inode as one string. */
  readonly stat?: string;
}

export type FeedRead =
  /** `version`, when given, identifies the same content better than the previous one did. */
  | { readonly changed: false; readonly version?: FeedVersion }
  /** The body as read; decoding it is the ingest worker's work, off the event loop. */
  | { readonly changed: true; readonly version: FeedVersion; readonly bytes: Uint8Array };

export interface FeedReader {
  /** Reads the feed unless it is known to equal `previous`. Throws FeedFailure. */
  read(previous: FeedVersion | undefined): Promise<FeedRead>;
}

/** Bytes hashed between two turns of the event loop: about a millisecond of SHA-256. */
const DIGEST_SLICE = 512 * 1024;

/**
 * The digest a FeedVersion records for a body. Hashed a slice at a time,
 * giving the event loop a turn between slices: a 20 MB feed would otherwise
 * hold every search for some 40 ms.
 */
export async function contentDigest(bytes: Uint8Array): Promise<string> {
  const hash = createHash("sha256");
  for (let at = 0; at < bytes.length; at += DIGEST_SLICE) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    hash.update(bytes.subarray(at, at + DIGEST_SLICE));
  }
  return hash.digest("hex");
}

/**
 * A complete iCalendar stream closes its last VCALENDAR. A file caught
 * mid-write, or a body cut at a chunk boundary, does not; it is refused
 * rather than served as a shorter calendar (the store's exception: a
 * calendar that never loaded, see CalendarStore). Text after the last
 * END:VCALENDAR (a cache comment) does not make a feed incomplete; the
 * reader ignores it with a warning.
 */
export function checkComplete(text: string): void {
  // The lexer's own test, so a misspelled last END:VCALENDAR it reads as one is no cut either.
  if (!closesCalendar(text)) throw new FeedFailure("truncated", "the feed does not end its VCALENDAR with END:VCALENDAR");
}

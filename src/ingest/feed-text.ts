/**
 * Feed bytes to the text and build input a snapshot is made from, with the
 * cheap refusals first (empty, not iCalendar, cut short). Shared by the
 * ingest worker and the builds that stay on the main thread, so both read a
 * feed's bytes alike.
 */
import { checkComplete, FeedFailure } from "../feeds/feed-read.js";
import { decodeFeed } from "../ics/decode.js";
import { type Diagnostic, diagnostic } from "../ics/diagnostic.js";
import { isICalendar } from "../ics/parse-calendar.js";
import { snapshotContentId, snapshotContentIdOf } from "./content-id.js";
import type { SnapshotInput } from "./snapshot.js";

/** What a build needs besides the bytes: the snapshot input, without what it finds in the bytes itself. */
export type BuildRequest = Omit<SnapshotInput, "decoding" | "contentId" | "partial"> & {
  /** A feed cut before END:VCALENDAR is built in part rather than refused (ingest.ts, IngestOptions). */
  readonly partialAllowed: boolean;
  /** The bytes' SHA-256 in hex when the reader already has it (FeedVersion.digest); else it is computed here. */
  readonly feedDigest?: string;
};

/** The text and input to build from; throws FeedFailure for bytes that cannot be a feed. */
export function feedText(bytes: Uint8Array, request: BuildRequest): { text: string; input: SnapshotInput } {
  const { text, invalidUtf8Line } = decodeFeed(bytes);
  // An empty file is most often one caught between truncation and writing.
  if (text.trim() === "") throw new FeedFailure("truncated", "the feed is empty");
  if (!isICalendar(text)) throw new FeedFailure("not_icalendar", "the feed is not iCalendar text (no BEGIN:VCALENDAR)");
  let partial = false;
  try {
    checkComplete(text);
  } catch (error) {
    if (!request.partialAllowed) throw error;
    partial = true;
  }
  const decoding: Diagnostic[] = [];
  if (partial) {
    decoding.push(
      diagnostic(
        "FEED_TRUNCATED",
        "the feed ends before END:VCALENDAR and has never loaded whole; its complete components are served, marked partial (stale), until a complete read replaces them",
      ),
    );
  }
  if (invalidUtf8Line !== undefined) {
    decoding.push(
      diagnostic("INVALID_UTF8", "bytes that are not UTF-8 were read as U+FFFD; re-export the feed as UTF-8", { line: invalidUtf8Line }),
    );
  }
  return { text, input: { ...buildInput(request), decoding, partial, contentId: contentIdOf(bytes, request) } };
}

/** The snapshot input of a request, without what the bytes themselves say. */
export function buildInput(request: BuildRequest): SnapshotInput {
  const { partialAllowed: _partialAllowed, feedDigest: _feedDigest, ...input } = request;
  return input;
}

/** The snapshot id of the bytes read as `request` asks (content-id.ts). */
export function contentIdOf(bytes: Uint8Array, request: BuildRequest): string {
  return request.feedDigest === undefined ? snapshotContentId(bytes, request) : snapshotContentIdOf(request.feedDigest, request);
}

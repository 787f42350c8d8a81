/**
 * Feed bytes to the text and build input a snapshot is made from, with the
 * cheap refusals first (empty, not iCalendar, cut short). Shared by the
 * ingest worker and the builds that stay on the main thread, so both read a
 * feed's bytes alike.
 */
import { checkComplete, FeedFailure } from "../feeds/feed-read.js";
import { decodeFeed } from "../ics/decode.js";
import type { Diagnostic } from "../ics/diagnostic.js";
import { isICalendar } from "../ics/parse-calendar.js";
import type { SnapshotInput } from "../store/snapshot.js";
import { snapshotContentId } from "./content-id.js";

/** What a build needs besides the bytes: the snapshot input, without what it finds in the bytes itself. */
export type BuildRequest = Omit<SnapshotInput, "decoding" | "contentId">;

/** The text and input to build from; throws FeedFailure for bytes that cannot be a feed. */
export function feedText(bytes: Uint8Array, request: BuildRequest): { text: string; input: SnapshotInput } {
  const { text, invalidUtf8Line } = decodeFeed(bytes);
  // An empty file is most often one caught between truncation and writing.
  if (text.trim() === "") throw new FeedFailure("truncated", "the feed is empty");
  if (!isICalendar(text)) throw new FeedFailure("not_icalendar", "the feed is not iCalendar text (no BEGIN:VCALENDAR)");
  checkComplete(text);
  const decoding: Diagnostic[] =
    invalidUtf8Line === undefined
      ? []
      : [
          {
            code: "INVALID_UTF8",
            message: "bytes that are not UTF-8 were read as U+FFFD; re-export the feed as UTF-8",
            line: invalidUtf8Line,
          },
        ];
  return { text, input: { ...request, decoding, contentId: snapshotContentId(bytes, request) } };
}

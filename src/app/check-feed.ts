/**
 * Reading one feed file the way the service would read it, without serving
 * it (`calq check`): the same source reader, the same ingest, the same
 * limits and indexed years, so what it reports is what a load would do.
 */
import type { FeedLimits } from "../config/config-model.js";
import { FeedFailure, type FeedFailureClass } from "../feeds/feed-read.js";
import { FileFeed } from "../feeds/file-feed.js";
import { ingestFeed } from "../ingest/ingest.js";
import type { Snapshot } from "../ingest/snapshot.js";
import { defaultLimits } from "../store/calendar-store.js";

/** What reading a feed gave: its snapshot and the years indexed, or why the service would refuse it. */
export type FeedChecked =
  | { readonly kind: "read"; readonly snapshot: Snapshot; readonly indexedFrom: number; readonly indexedTo: number }
  | { readonly kind: "refused"; readonly failure: FeedFailureClass; readonly detail: string };

/** Reads the feed at `path` as calendar `id` (in `timezone`, when given) at `now`. */
export async function checkFeedFile(
  path: string,
  calendar: { readonly id: string; readonly timezone?: string },
  feeds: FeedLimits,
  now: number,
): Promise<FeedChecked> {
  const limits = defaultLimits(now, feeds);
  try {
    const read = await new FileFeed(path, feeds.maxBytes).read(undefined);
    if (!read.changed) throw new Error("unreachable: a first read always has content");
    const snapshot = await ingestFeed(read.bytes, calendar, feeds, limits, now, { feedDigest: read.version.digest, handOver: true });
    return { kind: "read", snapshot, indexedFrom: limits.hotStart, indexedTo: limits.hotEnd };
  } catch (error) {
    if (!(error instanceof FeedFailure)) throw error;
    return { kind: "refused", failure: error.failure, detail: error.message };
  }
}

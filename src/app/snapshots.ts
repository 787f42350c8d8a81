/**
 * Which snapshot of each calendar a call reads. Every method opens its
 * calendars the same way: the current snapshot of each, refused with
 * PROVIDER_UNAVAILABLE while a feed has never loaded; or, for a page of a
 * search, the snapshots its cursor names, refused with CURSOR_EXPIRED when
 * they are no longer kept (docs/decisions.md, "Snapshot pages").
 */
import { CalqError } from "../calq-error.js";
import type { Snapshot } from "../ingest/snapshot.js";
import type { CalendarStore, CalendarView } from "../store/calendar-store.js";

/** How the snapshots of a page were found: current ones, the cursor's still held, or the cursor's read again from the feed. */
export type SnapshotOrigin = "current" | "held" | "rechecked";

/** The current snapshot of every calendar, in order; PROVIDER_UNAVAILABLE while one has never loaded. */
export function currentSnapshots(views: readonly CalendarView[]): Snapshot[] {
  return views.map((view) => {
    if (view.snapshot === undefined) {
      throw new CalqError(
        "PROVIDER_UNAVAILABLE",
        views.length === 1
          ? `the feed of calendar ${view.config.id} has not loaded yet; retry later`
          : "a calendar's feed has not loaded yet; retry later",
      );
    }
    return view.snapshot;
  });
}

/**
 * The snapshots a cursor names (one id per calendar, space-separated, in
 * the order of `views`). Snapshot ids are digests of the feed: a cursor from
 * another replica, or from before a restart, names a version this server
 * may not have read yet, so a missing one is looked for once more by
 * reading the feed.
 */
export async function cursorSnapshots(
  store: CalendarStore,
  views: readonly CalendarView[],
  snapshotIds: string,
): Promise<{ snapshots: Snapshot[]; origin: SnapshotOrigin }> {
  const ids = snapshotIds.split(" ");
  if (ids.length !== views.length) throw expiredSnapshot();
  let origin: SnapshotOrigin = "held";
  const snapshots: Snapshot[] = [];
  for (const [i, view] of views.entries()) {
    let snapshot = store.snapshot(view.config.id, ids[i]);
    if (snapshot === undefined) {
      await store.reload(view.config.id);
      snapshot = store.snapshot(view.config.id, ids[i]);
      if (snapshot === undefined) throw expiredSnapshot();
      origin = "rechecked";
    }
    snapshots.push(snapshot);
  }
  return { snapshots, origin };
}

/** The snapshot ids of a read, as a cursor carries them. */
export function snapshotIdsOf(snapshots: readonly Snapshot[]): string {
  return snapshots.map((snapshot) => snapshot.id).join(" ");
}

function expiredSnapshot(): CalqError {
  return new CalqError(
    "CURSOR_EXPIRED",
    "the data this search was paging through is no longer kept, and the feed no longer has that version; search again from the first page",
  );
}

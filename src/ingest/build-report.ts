/**
 * How a snapshot was built: from the whole feed, or from the snapshot
 * before it with only the events a reload changed read again
 * (docs/decisions.md, "Rebuilds in proportion to the change"). Operators
 * and the benchmark read it; what a snapshot answers never depends on it.
 */

/** Why a build read the whole feed, each with what it means; one table, so the docs and the log say the same. */
export const FULL_BUILD_REASONS = {
  first: "the calendar had no snapshot built in a worker to start from",
  configuration: "the calendar's configuration, the limits or calq's reading version differ from the last build's",
  feed_wide: "the text outside the VEVENTs (VTIMEZONEs, X-WR-TIMEZONE, the calendar's own properties) changed",
  not_plain: "the feed is not of the plain shape a reload can compare in its bytes (see FeedChunks), or its lexer found other components",
  not_whole: "the feed was cut short, or holds bytes that are not UTF-8",
  shared_reading: "a diagnostic stands at the first event that met a reading shared by several (a TZID, a VTIMEZONE)",
  missing_uid: "a VEVENT has no UID, so its UID is derived from all of its content",
  near_cap: "the feed is at or near a cap of the whole feed (components, indexed occurrences, expansion work, diagnostics of a code)",
  unverified: "what a changed event's text named (its UID, its lines) is not what reading it found",
  most_changed: "most of the feed changed: reading it whole costs no more",
} as const;

/** A reason a build read the whole feed. */
export type FullBuildReason = keyof typeof FULL_BUILD_REASONS;

/** How a snapshot was built. */
export type BuildReport =
  | { readonly kind: "full"; readonly reason: FullBuildReason }
  /** `eventsRead`: VEVENTs read again; `eventsKept`: UIDs whose occurrences came from the snapshot before. */
  | { readonly kind: "incremental"; readonly eventsRead: number; readonly eventsKept: number };

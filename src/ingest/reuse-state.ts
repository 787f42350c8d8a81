/**
 * What a snapshot keeps so the calendar's next build can reuse it: where
 * each VEVENT stood in the feed and which UID it belongs to, the digest of
 * each run of VEVENTs, and which UID each detail, series, version and
 * diagnostic came from (docs/decisions.md, "Rebuilds in proportion to the
 * change"). It travels with the packed snapshot on shared memory, so the
 * worker of the next build reads it without a copy, whatever worker built
 * it.
 */
import { createHash } from "node:crypto";
import packageJson from "../../package.json" with { type: "json" };
import type { ExpansionLimits } from "../expand/expand-calendar.js";
import type { FeedChunks } from "../ics/feed-chunks.js";
import type { FullBuildReason } from "./build-report.js";
import { READING_VERSION } from "./content-id.js";
import type { StringTable } from "./string-table.js";

/**
 * A snapshot's reuse state. Groups are a feed's UIDs (a UID's master,
 * overrides and copies), and VEVENTs that gave no event at all (each a group
 * of its own), in key order: the UID's digest (event_id's first part), then
 * those without a UID (LONE_KEY).
 */
export interface PackedReuse {
  /** Digest of how the feed was read (readingDigest): a build that reads it otherwise reads the whole feed. */
  readonly reading: string;
  /** Digest of the feed's text outside its VEVENTs (skeletonDigest): a build whose skeleton differs reads the whole feed. */
  readonly skeleton: string;
  /** The VEVENTs, in feed order: their bytes [start, end), the line of their BEGIN, their group. */
  readonly chunkStarts: Uint32Array;
  readonly chunkEnds: Uint32Array;
  readonly chunkLines: Uint32Array;
  readonly chunkGroups: Uint32Array;
  /**
   * Run r holds chunks [runEnds[r - 1], runEnds[r]) and spans runRows[r]
   * rows; the digests of its bytes and of its bytes but DTSTAMP values are
   * entries r of runDigests and runStamplessDigests (feed-chunks.ts).
   */
  readonly runEnds: Uint32Array;
  readonly runRows: Uint32Array;
  readonly runDigests: StringTable;
  readonly runStamplessDigests: StringTable;
  /** Each group's key, events kept, occurrences indexed, rule dates visited, and flags (GROUP_HAS_DIAGNOSTICS). */
  readonly groupKeys: StringTable;
  readonly groupEvents: Uint32Array;
  readonly groupOccurrences: Uint32Array;
  readonly groupWork: Float64Array;
  readonly groupFlags: Uint8Array;
  /** The group each detail, on-demand series and version of the snapshot came from. */
  readonly detailGroups: Uint32Array;
  readonly tailGroups: Uint32Array;
  readonly versionGroups: Uint32Array;
  /** The group each diagnostic is about; NO_GROUP for the feed's own. */
  readonly diagnosticGroups: Int32Array;
}

/** A snapshot's reuse state, or why it has none (the reason its successor reads the whole feed). */
export type Reuse = { readonly state: PackedReuse } | { readonly none: FullBuildReason };

/** The key of a group that is a VEVENT which gave no event: after every UID's digest (base64url), in feed order. */
export const LONE_KEY = "~";

/** groupFlags: a diagnostic stands on one of the group's VEVENTs (its lines then matter). */
export const GROUP_HAS_DIAGNOSTICS = 1;

/** diagnosticGroups: a diagnostic about the feed as a whole, made again by every build. */
export const NO_GROUP = -1;

/** What a build reads besides the bytes, as readingDigest digests it. */
export interface ReadingFacts {
  readonly calendarId: string;
  readonly configuredZone?: string;
  readonly maxComponents?: number;
  readonly limits: ExpansionLimits;
}

/**
 * The digest of how a feed is read, besides its text: calq's version and
 * reading version, the calendar's configuration, and every limit (the
 * indexed years among them).
 */
export function readingDigest(facts: ReadingFacts): string {
  const { limits } = facts;
  const reading = JSON.stringify({
    engine: `${packageJson.version}/${READING_VERSION}`,
    calendar: facts.calendarId,
    zone: facts.configuredZone ?? null,
    maxComponents: facts.maxComponents ?? null,
    hotStart: limits.hotStart,
    hotEnd: limits.hotEnd,
    maxOccurrencesPerSeries: limits.maxOccurrencesPerSeries,
    maxOccurrencesPerFeed: limits.maxOccurrencesPerFeed,
    maxExpansionWork: limits.maxExpansionWork,
  });
  return createHash("sha256").update(reading).digest("base64url");
}

/** One stretch of a feed's text outside its runs of VEVENTs. */
export interface SkeletonGap {
  readonly from: number;
  readonly to: number;
}

/**
 * The stretches of text outside the runs (before the first, between two,
 * after the last), but those of line breaks alone: the calendar's own
 * lines, its VTIMEZONEs, anything else it holds.
 */
export function skeletonGaps(chunks: FeedChunks): SkeletonGap[] {
  const { view, starts, ends, runEnds } = chunks;
  const gaps: SkeletonGap[] = [];
  let from = 0;
  let first = 0;
  for (const end of runEnds) {
    const to = starts[first];
    if (!/^[\r\n]*$/.test(view.slice(from, to))) gaps.push({ from, to });
    from = ends[end - 1];
    first = end;
  }
  if (!/^[\r\n]*$/.test(view.slice(from))) gaps.push({ from, to: view.length });
  return gaps;
}

/**
 * The digest of the skeleton's text: its gaps, end to end. Where the gaps
 * stand among the VEVENTs does not change what they say (a build reuses
 * only a feed whose VEVENTs are each read in the same state of the lexer,
 * inside the VCALENDAR with no other component open).
 */
export function skeletonDigest(bytes: Uint8Array, gaps: readonly SkeletonGap[]): string {
  const digest = createHash("sha256");
  for (const { from, to } of gaps) digest.update(bytes.subarray(from, to));
  return digest.digest("base64url");
}

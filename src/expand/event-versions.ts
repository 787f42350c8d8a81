/**
 * What each event of a feed is, in a form two snapshots can be compared by
 * (calendar_service.proto: ChangesSince): one version per event (a single
 * event, or a series with its overrides, keyed like event_id's UID digest),
 * with a digest of everything a search shows of it and the span of time it
 * covers. The digest reads the components as parsed, never where they stand
 * in the feed or when the feed was read, so an event another event moved
 * past keeps its version, and so does one a later load reads again.
 */
import { hash } from "node:crypto";
import type { EventComponent, IcsTime } from "../ics/parse-calendar.js";
import { runAtOnce, type Steps } from "../stepwise.js";

/** One event (a single event, or a series and its overrides) as a snapshot holds it. */
export interface EventVersion {
  /** The UID digest event_ids start with (the whole event_id of a single event). */
  readonly key: string;
  /** 64 bits of SHA-256 over the event's components as parsed: equal digests, equal answers. */
  readonly digest: string;
  /** The first instant the event covers. */
  readonly start: number;
  /** The last instant it covers (excluded); Infinity for a series without end. */
  readonly end: number;
  readonly recurring: boolean;
  readonly summary: string;
  /** PRIVATE or CONFIDENTIAL: a caller through calendar.read.any sees no summary. */
  readonly classified: boolean;
}

/** The digest of an event's components (a series: its master and overrides), in an order of their own. */
export function versionDigest(components: readonly EventComponent[]): string {
  const canonical = components.length === 1 ? canonicalOf(components[0]) : components.map(canonicalOf).sort().join("\n");
  return hash("sha256", canonical, "hex").slice(0, 16);
}

/**
 * A component as JSON: every field but `line` (where it stands in the
 * feed), by position, with zones by name. An array of the fields rather
 * than the component with a replacer: a quarter of the time, which a build
 * spends once per event (test/expand/event-versions.spec.ts changes each
 * field in turn).
 */
function canonicalOf(c: EventComponent): string {
  return JSON.stringify([
    c.uid,
    c.summary,
    c.location,
    c.description,
    c.about ?? null,
    c.status,
    c.transparent,
    c.lastModified ?? null,
    c.sequence,
    timeOf(c.start),
    timeOf(c.end),
    c.duration ?? null,
    c.rrules,
    c.exrules,
    c.rdates.length === 0 ? null : c.rdates.map((rdate) => [timeOf(rdate.start), timeOf(rdate.end), rdate.duration ?? null]),
    c.exdates.length === 0 ? null : c.exdates.map(timeOf),
    timeOf(c.recurrenceId),
    c.thisAndFuture,
  ]);
}

/** A date as its day, a date-time as its local time and zone name (null when floating). */
function timeOf(time: IcsTime | undefined): number | [number, string | null] | null {
  if (time === undefined) return null;
  return time.kind === "date" ? time.local : [time.local, time.zone?.name ?? null];
}

/** Versions in key order, as snapshots keep them for comparing. */
export function byKey(versions: EventVersion[]): EventVersion[] {
  return versions.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** A snapshot's versions in key order, read one at a time (a packed snapshot makes each only when asked). */
export interface VersionTable {
  readonly size: number;
  key(position: number): string;
  digest(position: number): string;
  at(position: number): EventVersion;
  /**
   * The keys and digests as one-byte code units laid end to end, when the
   * table holds them so (a packed snapshot's, crossed from a worker):
   * comparing two such tables reads their bytes rather than making a
   * string of every key and digest, which for 100,000 events held the
   * thread over 100 ms at each reload.
   */
  readonly latin1?: { readonly keys: Latin1Column; readonly digests: Latin1Column };
}

/** Entries of one-byte code units end to end: entry i is bytes [offsets[i], offsets[i + 1]). */
export interface Latin1Column {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
}

/** A table over versions already in key order. */
export function versionTable(versions: readonly EventVersion[]): VersionTable {
  return {
    size: versions.length,
    key: (position) => versions[position].key,
    digest: (position) => versions[position].digest,
    at: (position) => versions[position],
  };
}

/** How one event differs between two tables: added, changed or removed, with its version before and after. */
export interface VersionChange {
  readonly key: string;
  readonly before?: EventVersion;
  readonly after?: EventVersion;
}

/** Events compared between two pauses of versionChangesSteps: about a millisecond's work. */
const EVENTS_PER_STEP = 4_096;

/** The events that differ between `before` and `after`, in key order (one walk over both). */
export function versionChanges(before: VersionTable, after: VersionTable): VersionChange[] {
  return runAtOnce(versionChangesSteps(before, after));
}

/**
 * versionChanges in steps of a few thousand events: a reload of 100,000
 * events compares them all, and the thread that serves calls should not wait
 * for the whole walk.
 */
export function* versionChangesSteps(before: VersionTable, after: VersionTable): Steps<VersionChange[]> {
  const compareKeys = keyOrder(before, after);
  const sameDigests = digestsEqual(before, after);
  const changes: VersionChange[] = [];
  let i = 0;
  let j = 0;
  for (let walked = 1; i < before.size || j < after.size; walked++) {
    if (walked % EVENTS_PER_STEP === 0) yield;
    const order = i === before.size ? 1 : j === after.size ? -1 : compareKeys(i, j);
    if (order < 0) {
      changes.push({ key: before.key(i), before: before.at(i++) });
    } else if (order > 0) {
      changes.push({ key: after.key(j), after: after.at(j++) });
    } else {
      if (!sameDigests(i, j)) changes.push({ key: before.key(i), before: before.at(i), after: after.at(j) });
      i++;
      j++;
    }
  }
  return changes;
}

/** How key i of `before` orders against key j of `after`, as strings compare (in code units). */
function keyOrder(before: VersionTable, after: VersionTable): (i: number, j: number) => number {
  if (before.latin1 !== undefined && after.latin1 !== undefined) {
    const left = before.latin1.keys;
    const right = after.latin1.keys;
    return (i, j) => compareEntries(left, i, right, j);
  }
  return (i, j) => {
    const left = before.key(i);
    const right = after.key(j);
    return left < right ? -1 : left > right ? 1 : 0;
  };
}

/** Whether digest i of `before` equals digest j of `after`. */
function digestsEqual(before: VersionTable, after: VersionTable): (i: number, j: number) => boolean {
  if (before.latin1 !== undefined && after.latin1 !== undefined) {
    const left = before.latin1.digests;
    const right = after.latin1.digests;
    return (i, j) => compareEntries(left, i, right, j) === 0;
  }
  return (i, j) => before.digest(i) === after.digest(j);
}

/** Entry i of `a` against entry j of `b`, code unit by code unit, a prefix first. */
function compareEntries(a: Latin1Column, i: number, b: Latin1Column, j: number): number {
  const aFrom = a.offsets[i];
  const bFrom = b.offsets[j];
  const aLength = a.offsets[i + 1] - aFrom;
  const bLength = b.offsets[j + 1] - bFrom;
  const length = Math.min(aLength, bLength);
  for (let k = 0; k < length; k++) {
    const difference = a.bytes[aFrom + k] - b.bytes[bFrom + k];
    if (difference !== 0) return difference;
  }
  return aLength - bLength;
}

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

/** The events that differ between `before` and `after`, in key order (one walk over both). */
export function versionChanges(before: VersionTable, after: VersionTable): VersionChange[] {
  const changes: VersionChange[] = [];
  let i = 0;
  let j = 0;
  while (i < before.size || j < after.size) {
    const left = i < before.size ? before.key(i) : undefined;
    const right = j < after.size ? after.key(j) : undefined;
    if (right === undefined || (left !== undefined && left < right)) {
      changes.push({ key: left!, before: before.at(i++) });
    } else if (left === undefined || right < left) {
      changes.push({ key: right, after: after.at(j++) });
    } else {
      if (before.digest(i) !== after.digest(j)) changes.push({ key: left, before: before.at(i), after: after.at(j) });
      i++;
      j++;
    }
  }
  return changes;
}

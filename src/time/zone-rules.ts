/**
 * Zone rules: the UTC offset of a time zone at any instant, and the instants a
 * local wall time names there.
 *
 * Instants and local wall times are both epoch-millisecond numbers; a "local"
 * number is the wall clock written as if it were UTC (Date.UTC of its fields).
 * Offsets are milliseconds east of UTC.
 *
 * Asking Intl for an offset costs microseconds, and expansion asks hundreds of
 * thousands of times, so each zone learns its transitions lazily, one bucket of
 * about a year at a time: it samples the offset daily, finds each change by
 * bisection to the second, and then answers from that small table.
 */

import { DAY_MS } from "./units.js";

/** About 398 days: a power of two so the bucket of an instant is a shift away. */
const BUCKET_MS = 2 ** 35;

/** The offsets of one zone. Implementations are immutable and cheap to share. */
export interface ZoneRules {
  /** The zone's name as calq reports it (IANA name, "UTC", or a feed's TZID). */
  readonly name: string;
  /** Milliseconds east of UTC at `instant`. */
  offsetAt(instant: number): number;
}

/** What a local wall time names in a zone. */
export type LocalTimeResolution =
  | { readonly kind: "unique"; readonly instant: number }
  /** A fall-back fold: the wall time happens twice, `earlier` then `later`. */
  | { readonly kind: "fold"; readonly earlier: number; readonly later: number }
  /**
   * A spring-forward gap: the wall time never happens. `shifted` is the
   * instant RFC 5545 §3.3.5 uses: the wall time moved forward by the gap.
   */
  | { readonly kind: "gap"; readonly shifted: number };

/** Resolves a local wall time exactly, reporting gaps and folds. */
export function resolveLocal(zone: ZoneRules, local: number): LocalTimeResolution {
  const before = zone.offsetAt(local - DAY_MS);
  const after = zone.offsetAt(local + DAY_MS);
  const first = local - before;
  const second = local - after;
  const firstValid = zone.offsetAt(first) === before;
  if (before === after) return { kind: "unique", instant: first };
  const secondValid = zone.offsetAt(second) === after;
  if (firstValid && secondValid) {
    return { kind: "fold", earlier: Math.min(first, second), later: Math.max(first, second) };
  }
  if (firstValid) return { kind: "unique", instant: first };
  if (secondValid) return { kind: "unique", instant: second };
  return { kind: "gap", shifted: first };
}

/**
 * The instant of a local wall time by the rule RFC 5545 §3.3.5 gives for
 * generated times: a time in a gap moves forward by the gap's length, a time
 * in a fold takes the first (earlier) instant.
 */
export function localToInstant(zone: ZoneRules, local: number): number {
  const resolution = resolveLocal(zone, local);
  switch (resolution.kind) {
    case "unique":
      return resolution.instant;
    case "fold":
      return resolution.earlier;
    case "gap":
      return resolution.shifted;
  }
}

/** The local wall time of an instant in a zone. */
export function instantToLocal(zone: ZoneRules, instant: number): number {
  return instant + zone.offsetAt(instant);
}

/** A zone whose offset never changes (UTC). */
export class FixedOffsetZone implements ZoneRules {
  constructor(
    readonly name: string,
    private readonly offset: number,
  ) {}
  offsetAt(): number {
    return this.offset;
  }
}

/** UTC, the zone of `Z` times. */
export const UTC_ZONE: ZoneRules = new FixedOffsetZone("UTC", 0);

/** One bucket's offsets: `offsets[i]` holds from `starts[i]` on. */
interface Bucket {
  readonly starts: number[];
  readonly offsets: number[];
}

/**
 * Caches the transitions of a zone whose raw offset function is slow. The raw
 * function must be exact to the second.
 */
export class TransitionCachedZone implements ZoneRules {
  private readonly buckets = new Map<number, Bucket>();

  constructor(
    readonly name: string,
    private readonly rawOffsetAt: (instant: number) => number,
  ) {}

  offsetAt(instant: number): number {
    const key = Math.floor(instant / BUCKET_MS);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = this.learnBucket(key * BUCKET_MS);
      this.buckets.set(key, bucket);
    }
    const { starts, offsets } = bucket;
    let i = starts.length - 1;
    while (i > 0 && starts[i] > instant) i--;
    return offsets[i];
  }

  private learnBucket(from: number): Bucket {
    const to = from + BUCKET_MS;
    const starts = [from];
    const offsets = [this.rawOffsetAt(from)];
    let previousAt = from;
    let previous = offsets[0];
    for (let at = from + DAY_MS; ; at += DAY_MS) {
      const sampleAt = Math.min(at, to - 1000);
      const offset = this.rawOffsetAt(sampleAt);
      if (offset !== previous) {
        starts.push(this.findChange(previousAt, sampleAt, previous));
        offsets.push(offset);
        previous = offset;
      }
      previousAt = sampleAt;
      if (sampleAt >= to - 1000) break;
    }
    return { starts, offsets };
  }

  /**
   * The first instant in (low, high] whose offset differs from `lowOffset`,
   * found to the whole second (zones change offset on whole seconds).
   */
  private findChange(low: number, high: number, lowOffset: number): number {
    let lowSecond = Math.floor(low / 1000);
    let highSecond = Math.ceil(high / 1000);
    while (highSecond - lowSecond > 1) {
      const middle = lowSecond + Math.floor((highSecond - lowSecond) / 2);
      if (this.rawOffsetAt(middle * 1000) === lowOffset) lowSecond = middle;
      else highSecond = middle;
    }
    return Math.min(highSecond * 1000, high);
  }
}

/**
 * Zone rules from a feed's own VTIMEZONE, for TZIDs that are neither IANA nor
 * Windows names. ical.js reads the STANDARD/DAYLIGHT rules; calq caches the
 * transitions like any other zone.
 */
import ICAL from "ical.js";
import { civil } from "../time/civil.js";
import { TransitionCachedZone } from "../time/zone-rules.js";

/** A VTIMEZONE that cannot be turned into zone rules; the reader falls back to the zone its TZID names. */
export class UnreadableTimezone extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UnreadableTimezone";
  }
}

/**
 * Zone rules read from a feed's own VTIMEZONE, with the component they were
 * read from: a snapshot built in an ingest worker carries it to the main
 * thread, which reads it alike (ingest/packed-snapshot.ts), since no other
 * thread knows such a zone by its name.
 */
export class FeedZone extends TransitionCachedZone {
  constructor(
    name: string,
    /** The VTIMEZONE, as jCal. */
    readonly definition: unknown[],
    rawOffsetAt: (instant: number) => number,
  ) {
    super(name, rawOffsetAt);
  }
}

/** Instants every VTIMEZONE is tried at before use: a malformed observance fails here, not in a search. */
const PROBES = [Date.UTC(1970, 0, 1), Date.UTC(2000, 6, 1), Date.UTC(2026, 0, 1), Date.UTC(2026, 6, 1), Date.UTC(2100, 0, 1)];

/** Offsets beyond this (in ms) are no zone's: a slipped digit in TZOFFSETTO. */
const MAX_OFFSET_MS = 18 * 3_600_000;

/**
 * Zone rules for one VTIMEZONE component (jCal form), named by its TZID.
 * Throws UnreadableTimezone for observances that recur more often than
 * yearly (real zones never do, and ical.js would expand them without end),
 * and for any the rules cannot be computed from, tried at a few instants.
 */
export function vtimezoneZone(tzid: string, jcal: unknown[]): FeedZone {
  let offsetOf: (instant: number) => number;
  try {
    offsetOf = icalOffsets(jcal);
  } catch (error) {
    if (error instanceof UnreadableTimezone) throw error;
    // ical.js reading the feed's own values: whatever it throws is the feed's.
    throw new UnreadableTimezone("its observances could not be read", { cause: error });
  }
  let last = 0;
  for (const probe of PROBES) {
    let offset: number;
    try {
      offset = offsetOf(probe);
    } catch (error) {
      throw new UnreadableTimezone("its observances could not be read", { cause: error });
    }
    if (!Number.isFinite(offset) || Math.abs(offset) > MAX_OFFSET_MS) throw new UnreadableTimezone("an offset is out of range");
    last = offset;
  }
  return new FeedZone(tzid, jcal, (instant) => {
    // Probed above; an instant far from the probes that still fails keeps the last good offset.
    try {
      const offset = offsetOf(instant);
      if (Number.isFinite(offset) && Math.abs(offset) <= MAX_OFFSET_MS) last = offset;
    } catch {
      return last;
    }
    return last;
  });
}

function icalOffsets(jcal: unknown[]): (instant: number) => number {
  const component = new ICAL.Component(jcal as never);
  for (const observance of component.getAllSubcomponents()) {
    for (const rule of observance.getAllProperties("rrule")) {
      const freq = (rule.getFirstValue() as { freq?: string } | null)?.freq;
      if (freq !== "YEARLY") throw new UnreadableTimezone(`its ${observance.name.toUpperCase()} recurs ${String(freq)}, not YEARLY`);
    }
  }
  const timezone = new ICAL.Timezone(component);
  const utc = ICAL.Timezone.utcTimezone;
  return (instant) => {
    const wholeSecond = Math.floor(instant / 1000) * 1000;
    const at = new Date(wholeSecond);
    const time = ICAL.Time.fromData(
      {
        year: at.getUTCFullYear(),
        month: at.getUTCMonth() + 1,
        day: at.getUTCDate(),
        hour: at.getUTCHours(),
        minute: at.getUTCMinutes(),
        second: at.getUTCSeconds(),
        isDate: false,
      },
      utc,
    );
    const local = time.convertToZone(timezone);
    return civil(local.year, local.month, local.day, local.hour, local.minute, local.second) - wholeSecond;
  };
}

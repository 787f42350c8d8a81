/**
 * Zone rules from a feed's own VTIMEZONE, for TZIDs that are neither IANA nor
 * Windows names, read by calq itself (docs/imperfect-feeds.md, "Zones a feed
 * defines"). ical.js reads a VTIMEZONE wrong in ways no warning shows: an
 * observance with RDATEs loses its DTSTART and every RDATE value but the
 * first (a zone written as a list of changeover dates, as python-icalendar
 * and khal write one, reads hours off), and its expansion of rules depends
 * on the current year. Here every onset counts, as RFC 5545 §3.6.5 says:
 * each observance's DTSTART, every RDATE value and every instance of its
 * yearly RRULE, and the offset at an instant is the TZOFFSETTO of the last
 * onset at or before it.
 */
import { civil } from "../time/civil.js";
import { DAY_MS } from "../time/units.js";
import type { ZoneRules } from "../time/zone-rules.js";
import { MAX_TIMEZONE_TRANSITIONS } from "./feed-bounds.js";

/** A VTIMEZONE that cannot be turned into zone rules; the reader falls back to the zone its TZID names. */
export class UnreadableTimezone extends Error {
  constructor(
    message: string,
    /** TIMEZONE_TRANSITIONS_CAPPED when its rules would make more transitions than the cap; else UNREADABLE_TIMEZONE. */
    readonly code: "UNREADABLE_TIMEZONE" | "TIMEZONE_TRANSITIONS_CAPPED" = "UNREADABLE_TIMEZONE",
  ) {
    super(message);
    this.name = "UnreadableTimezone";
  }
}

/** Offsets beyond this (in ms) are no zone's: a slipped digit in TZOFFSETTO. */
const MAX_OFFSET_MS = 18 * 3_600_000;

/** Years a rule's instances are computed in: past the last year an instant calq serves can fall in, nothing is asked. */
const LAST_YEAR = 10_000;

/**
 * The Gregorian calendar repeats every 400 years: a yearly rule that has an
 * instance at all has one in every 400 × INTERVAL years of its range.
 */
const CALENDAR_CYCLE_YEARS = 400;

/** One yearly RRULE of an observance, with the parts calq reads in a VTIMEZONE. */
interface YearlyRule {
  readonly to: number;
  readonly from: number;
  /** DTSTART's wall time: the rule's instances come after it. */
  readonly startLocal: number;
  readonly startYear: number;
  /** The last year an instance can fall in (UNTIL's, or LAST_YEAR). */
  readonly lastYear: number;
  readonly interval: number;
  /** BYMONTH, or DTSTART's month. */
  readonly months: readonly number[];
  /** BYDAY: weekday 0 (Sunday) to 6, with its ordinal in the month (0: every such weekday). */
  readonly weekdays: readonly { readonly ordinal: number; readonly weekday: number }[];
  /** BYMONTHDAY, negative counting from the month's end. */
  readonly monthDays: readonly number[];
  /** DTSTART's day of the month, used when neither BYDAY nor BYMONTHDAY is given. */
  readonly day: number;
  /** DTSTART's time of day, in ms. */
  readonly timeOfDay: number;
  /** The last onset instant UNTIL allows. */
  readonly until: number;
  /** Onset instants per year, computed when first asked. */
  readonly years: Map<number, readonly number[]>;
}

/**
 * Zone rules read from a feed's own VTIMEZONE, with the component they were
 * read from: a snapshot built in an ingest worker carries it to the main
 * thread, which reads it alike (ingest/packed-snapshot.ts), since no other
 * thread knows such a zone by its name. Its offsets depend only on the
 * component, never on when it is read.
 */
export class FeedZone implements ZoneRules {
  /** Each bucket's changes, learnt when first asked: `offsets[i]` holds from `starts[i]` on. */
  private readonly buckets = new Map<number, { readonly starts: number[]; readonly offsets: number[] }>();

  constructor(
    readonly name: string,
    /** The VTIMEZONE, as jCal. */
    readonly definition: unknown[],
    /** Listed onsets (DTSTARTs, RDATE values, instances of counted rules), ascending. */
    private readonly onsets: readonly number[],
    /** The offset from each listed onset on. */
    private readonly offsets: readonly number[],
    /** The offset before the first onset: the first observance's TZOFFSETFROM. */
    private readonly initial: number,
    private readonly rules: readonly YearlyRule[],
  ) {}

  /** The offset at `instant`, from a table of its bucket's changes (expansion asks this for every occurrence). */
  offsetAt(instant: number): number {
    const key = Math.floor(instant / BUCKET_MS);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = this.learnBucket(key * BUCKET_MS, (key + 1) * BUCKET_MS);
      this.buckets.set(key, bucket);
    }
    const { starts, offsets } = bucket;
    let i = starts.length - 1;
    while (i > 0 && starts[i] > instant) i--;
    return offsets[i];
  }

  /** The changes in [from, to): the offset at `from`, then each onset in between that changes it. */
  private learnBucket(from: number, to: number): { starts: number[]; offsets: number[] } {
    const candidates: number[] = [];
    for (const onset of this.onsets) if (onset > from && onset < to) candidates.push(onset);
    const first = Math.floor(from / YEAR_MS) + 1969;
    const last = Math.floor(to / YEAR_MS) + 1972;
    for (const rule of this.rules) {
      for (let year = Math.max(first, rule.startYear); year <= Math.min(last, rule.lastYear); year++) {
        for (const onset of onsetsIn(rule, year)) if (onset > from && onset < to) candidates.push(onset);
      }
    }
    candidates.sort((a, b) => a - b);
    const starts = [from];
    const offsets = [this.exactOffsetAt(from)];
    for (const onset of candidates) {
      const offset = this.exactOffsetAt(onset);
      if (offset !== offsets[offsets.length - 1]) {
        starts.push(onset);
        offsets.push(offset);
      }
    }
    return { starts, offsets };
  }

  /** The TZOFFSETTO of the last onset at or before `instant`, listed or of a rule. */
  private exactOffsetAt(instant: number): number {
    let best = Number.NEGATIVE_INFINITY;
    let offset = this.initial;
    let low = 0;
    let high = this.onsets.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.onsets[middle] <= instant) low = middle + 1;
      else high = middle;
    }
    if (low > 0) {
      best = this.onsets[low - 1];
      offset = this.offsets[low - 1];
    }
    for (const rule of this.rules) {
      const latest = latestOnset(rule, instant, best);
      if (latest > best) {
        best = latest;
        offset = rule.to;
      }
    }
    return offset;
  }
}

/** About a year in ms, for the year of an instant to within one. */
const YEAR_MS = 365.2425 * DAY_MS;

/** About 398 days: the span of one table of changes (as time/zone-rules.ts buckets IANA zones). */
const BUCKET_MS = 2 ** 35;

/** The rule's last onset at or before `instant`, if later than `after`; else -Infinity. */
function latestOnset(rule: YearlyRule, instant: number, after: number): number {
  // The instant's year is within one of 1970 + instant / YEAR_MS, and an onset's wall time at most 18 hours ahead of its instant.
  const top = Math.min(rule.lastYear, Math.floor(instant / YEAR_MS) + 1972);
  const bottom = Math.max(rule.startYear, top - CALENDAR_CYCLE_YEARS * rule.interval);
  for (let year = top; year >= bottom; year--) {
    // Nothing in this year or before can be later than `after`.
    if (civil(year + 1, 1, 1) + DAY_MS < after) break;
    const onsets = onsetsIn(rule, year);
    for (let i = onsets.length - 1; i >= 0; i--) {
      if (onsets[i] <= instant) return onsets[i] > after ? onsets[i] : Number.NEGATIVE_INFINITY;
    }
  }
  return Number.NEGATIVE_INFINITY;
}

/** The rule's onset instants whose wall time falls in `year`, ascending. */
function onsetsIn(rule: YearlyRule, year: number): readonly number[] {
  const known = rule.years.get(year);
  if (known !== undefined) return known;
  const onsets: number[] = [];
  if (year >= rule.startYear && year <= rule.lastYear && (year - rule.startYear) % rule.interval === 0) {
    for (const month of rule.months) {
      for (const day of daysOf(rule, year, month)) {
        const local = civil(year, month, day) + rule.timeOfDay;
        const onset = local - rule.from;
        if (local > rule.startLocal && onset <= rule.until) onsets.push(onset);
      }
    }
    onsets.sort((a, b) => a - b);
  }
  rule.years.set(year, onsets);
  return onsets;
}

/** The days of `month` the rule picks, ascending and each once. */
function daysOf(rule: YearlyRule, year: number, month: number): number[] {
  const length = (civil(year, month + 1, 1) - civil(year, month, 1)) / DAY_MS;
  const monthDays = rule.monthDays.map((day) => (day > 0 ? day : length + day + 1)).filter((day) => day >= 1 && day <= length);
  if (rule.weekdays.length === 0) {
    if (rule.monthDays.length > 0) return [...new Set(monthDays)].sort((a, b) => a - b);
    return rule.day <= length ? [rule.day] : [];
  }
  // 1970-01-01 was a Thursday (4).
  const firstWeekday = (((Math.floor(civil(year, month, 1) / DAY_MS) + 4) % 7) + 7) % 7;
  const days = new Set<number>();
  for (const { ordinal, weekday } of rule.weekdays) {
    const first = 1 + ((weekday - firstWeekday + 7) % 7);
    const last = first + 7 * Math.floor((length - first) / 7);
    if (ordinal > 0) days.add(first + 7 * (ordinal - 1));
    else if (ordinal < 0) days.add(last + 7 * (ordinal + 1));
    else for (let day = first; day <= length; day += 7) days.add(day);
  }
  return [...days]
    .filter((day) => day >= 1 && day <= length && (rule.monthDays.length === 0 || monthDays.includes(day)))
    .sort((a, b) => a - b);
}

type JCalProperty = [string, Record<string, unknown>, string, ...unknown[]];
type JCalComponent = [string, JCalProperty[], JCalComponent[]];

/**
 * Zone rules for one VTIMEZONE component (jCal form), named by its TZID.
 * Throws UnreadableTimezone for an observance without DTSTART, TZOFFSETFROM
 * or TZOFFSETTO, an offset beyond ±18 hours, a rule that is not yearly (real
 * zones never recur more often) or uses parts calq does not read in a zone
 * (BYHOUR, BYWEEKNO, BYSETPOS, BYDAY without BYMONTH...), and for more
 * transitions than MAX_TIMEZONE_TRANSITIONS once counted rules are counted.
 */
export function vtimezoneZone(tzid: string, jcal: unknown[]): FeedZone {
  const [, , observances] = jcal as JCalComponent;
  const listed: { at: number; to: number; from: number }[] = [];
  const rules: YearlyRule[] = [];
  for (const observance of Array.isArray(observances) ? observances : []) {
    const kind = String(observance[0]).toUpperCase();
    if (kind !== "STANDARD" && kind !== "DAYLIGHT") continue;
    const properties = observance[1];
    const from = offsetOf(properties, "tzoffsetfrom", kind);
    const to = offsetOf(properties, "tzoffsetto", kind);
    const startProperty = properties.find((property) => property[0] === "dtstart");
    if (startProperty === undefined) throw new UnreadableTimezone(`its ${kind} has no DTSTART`);
    const start = wallTime(startProperty[2], startProperty[3], kind, 0);
    if (start.utc) throw new UnreadableTimezone(`its ${kind}'s DTSTART is in UTC, not in local time`);
    listed.push({ at: start.local - from, to, from });
    const timeOfDay = start.local - Math.floor(start.local / DAY_MS) * DAY_MS;
    for (const property of properties.filter((candidate) => candidate[0] === "rdate")) {
      for (const value of property.slice(3)) {
        // A period's start is the onset.
        const onset = wallTime(
          property[2] === "period" ? "date-time" : property[2],
          Array.isArray(value) ? value[0] : value,
          kind,
          timeOfDay,
        );
        listed.push({ at: onset.utc ? onset.local : onset.local - from, to, from });
      }
    }
    for (const property of properties.filter((candidate) => candidate[0] === "rrule")) {
      const rule = yearlyRule(property[3], kind, start.local, from, to);
      if (rule.count === undefined) rules.push(rule.rule);
      else for (const at of countedOnsets(rule.rule, rule.count - 1)) listed.push({ at, to, from });
    }
    if (listed.length > MAX_TIMEZONE_TRANSITIONS) {
      throw new UnreadableTimezone(`it makes more than ${MAX_TIMEZONE_TRANSITIONS} transitions`, "TIMEZONE_TRANSITIONS_CAPPED");
    }
  }
  if (listed.length === 0) throw new UnreadableTimezone("it has no STANDARD or DAYLIGHT observance");
  // Stable: of two onsets at one instant, the later written wins.
  listed.sort((a, b) => a.at - b.at);
  return new FeedZone(
    tzid,
    jcal,
    listed.map((onset) => onset.at),
    listed.map((onset) => onset.to),
    listed[0].from,
    rules.filter((rule) => hasInstance(rule)),
  );
}

/** A UTC offset property in ms ("+05:30", "-00:53:28" in jCal). */
function offsetOf(properties: readonly JCalProperty[], name: string, kind: string): number {
  const value = properties.find((property) => property[0] === name)?.[3];
  const match = typeof value === "string" ? /^([+-])(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value) : null;
  if (match === null) throw new UnreadableTimezone(`its ${kind} has no readable ${name.toUpperCase()}`);
  const [, sign, hours, minutes, seconds] = match;
  const offset = (sign === "-" ? -1 : 1) * ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds ?? 0)) * 1000;
  if (Math.abs(offset) > MAX_OFFSET_MS) throw new UnreadableTimezone("an offset is out of range");
  return offset;
}

/** A DATE or DATE-TIME jCal value as a wall time (a date at `timeOfDay`), and whether it was written in UTC. */
function wallTime(type: string, value: unknown, kind: string, timeOfDay: number): { local: number; utc: boolean } {
  const match = typeof value === "string" ? /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(Z?))?$/.exec(value) : null;
  if (match === null || (type === "date") !== (match[4] === undefined)) {
    throw new UnreadableTimezone(`its ${kind} has a date that cannot be read`);
  }
  const [, year, month, day, hour, minute, second, z] = match;
  const date = civil(Number(year), Number(month), Number(day));
  if (hour === undefined) return { local: date + timeOfDay, utc: false };
  return { local: date + ((Number(hour) * 60 + Number(minute)) * 60 + Number(second)) * 1000, utc: z === "Z" };
}

/** The rule parts a VTIMEZONE's RRULE may have here; any other is refused rather than misread. */
const READ_PARTS = new Set(["freq", "interval", "until", "count", "bymonth", "byday", "bymonthday", "wkst"]);

const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

/** An observance's RRULE (jCal recur) as a YearlyRule, and its COUNT when it has one. */
function yearlyRule(value: unknown, kind: string, startLocal: number, from: number, to: number): { rule: YearlyRule; count?: number } {
  if (typeof value !== "object" || value === null) throw new UnreadableTimezone(`its ${kind}'s RRULE cannot be read`);
  const recur = value as Record<string, unknown>;
  if (recur.freq !== "YEARLY") throw new UnreadableTimezone(`its ${kind} recurs ${String(recur.freq)}, not YEARLY`);
  const unread = Object.keys(recur).find((part) => !READ_PARTS.has(part));
  if (unread !== undefined)
    throw new UnreadableTimezone(`its ${kind}'s RRULE uses ${unread.toUpperCase()}, which calq does not read in a VTIMEZONE`);
  const list = (part: unknown): unknown[] => (part === undefined ? [] : Array.isArray(part) ? part : [part]);
  /** The part's numbers, each an integer in [low, high], or in [-high, -low] too when `signed`. */
  const numbers = (part: unknown, low: number, high: number, signed = false): number[] =>
    list(part).map((item) => {
      const number = Number(item);
      if (!Number.isInteger(number) || Math.abs(number) < low || Math.abs(number) > high || (number < 0 && !signed)) {
        throw new UnreadableTimezone(`its ${kind}'s RRULE has a value out of range`);
      }
      return number;
    });
  const weekdays = list(recur.byday).map((item) => {
    const match = typeof item === "string" ? /^([+-]?[1-5])?(SU|MO|TU|WE|TH|FR|SA)$/.exec(item) : null;
    if (match === null) throw new UnreadableTimezone(`its ${kind}'s RRULE has a BYDAY calq does not read in a VTIMEZONE`);
    return { ordinal: Number(match[1] ?? 0), weekday: WEEKDAYS.indexOf(match[2]) };
  });
  const months = numbers(recur.bymonth, 1, 12);
  const monthDays = numbers(recur.bymonthday, 1, 31, true);
  if ((weekdays.length > 0 || monthDays.length > 0) && months.length === 0) {
    throw new UnreadableTimezone(`its ${kind}'s RRULE has BYDAY or BYMONTHDAY without BYMONTH, which calq does not read in a VTIMEZONE`);
  }
  const interval = recur.interval === undefined ? 1 : numbers(recur.interval, 1, LAST_YEAR)[0];
  const start = new Date(startLocal);
  let until = Number.POSITIVE_INFINITY;
  if (recur.until !== undefined) {
    const end = typeof recur.until === "string" && recur.until.length === 10 ? "date" : "date-time";
    const written = wallTime(end, recur.until, kind, DAY_MS - 1000);
    until = written.utc ? written.local : written.local - from;
  }
  const count = recur.count === undefined ? undefined : numbers(recur.count, 1, Number.MAX_SAFE_INTEGER)[0];
  if (count !== undefined && count > MAX_TIMEZONE_TRANSITIONS) {
    throw new UnreadableTimezone(
      `its ${kind}'s RRULE makes more than ${MAX_TIMEZONE_TRANSITIONS} transitions`,
      "TIMEZONE_TRANSITIONS_CAPPED",
    );
  }
  const rule: YearlyRule = {
    to,
    from,
    startLocal,
    startYear: start.getUTCFullYear(),
    lastYear: Number.isFinite(until) ? Math.min(LAST_YEAR, new Date(until + DAY_MS).getUTCFullYear()) : LAST_YEAR,
    interval,
    months: months.length > 0 ? [...new Set(months)].sort((a, b) => a - b) : [start.getUTCMonth() + 1],
    weekdays,
    monthDays,
    day: start.getUTCDate(),
    timeOfDay: startLocal - Math.floor(startLocal / DAY_MS) * DAY_MS,
    until,
    years: new Map(),
  };
  return count === undefined ? { rule } : { rule, count };
}

/** The first `count` instances of a rule after its DTSTART (COUNT counts DTSTART as the first). */
function countedOnsets(rule: YearlyRule, count: number): number[] {
  const onsets: number[] = [];
  for (let year = rule.startYear; year <= rule.lastYear && onsets.length < count; year++) {
    for (const onset of onsetsIn(rule, year)) if (onsets.length < count) onsets.push(onset);
  }
  return onsets;
}

/** Whether the rule has an instance at all: if it has, one falls in its first 400 × INTERVAL years. */
function hasInstance(rule: YearlyRule): boolean {
  const last = Math.min(rule.lastYear, rule.startYear + CALENDAR_CYCLE_YEARS * rule.interval);
  for (let year = rule.startYear; year <= last; year += rule.interval) {
    if (onsetsIn(rule, year).length > 0) return true;
  }
  return false;
}

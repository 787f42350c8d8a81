/**
 * Working time as instants: the stretches of time, in a range, that lie
 * within a person's working hours, so a meeting is within them when it
 * lies inside one stretch (calendar_service.proto: FindMeetingTimesRequest).
 *
 * - Weekly hours (a person's settings, or a request's) are read as
 *   FindFreeSlots reads working hours: an instant is within them when its
 *   wall time in the person's zone lies in [start, end) of one working day.
 *   A DST change inside the hours is exact: the day's stretch is as long as
 *   the wall clock says (a spring-forward morning is an hour shorter, a
 *   fall-back hour counts twice), and where the wall clock jumps back into
 *   the hours the day's time is two stretches, since a meeting crossing the
 *   jump would see some wall times twice and others never. Two days'
 *   stretches are never joined: a meeting lies within one working day.
 * - A feed's VAVAILABILITY (RFC 7953, ics/availability.ts) gives periods of
 *   instants, each read as the feed's own events are (RFC 5545 §3.3.5: a
 *   wall time in a gap moves forward, one in a fold takes the earlier
 *   instant). Within the range of a VAVAILABILITY only its AVAILABLE
 *   periods are working time; where ranges overlap, the highest PRIORITY
 *   speaks (equal ones together); time outside every range is not
 *   restricted. Touching periods join.
 */
import { type Availability, type AvailablePeriod, zoneRules } from "../ics/availability.js";
import { DAY_MS, floorTo, HOUR_MS, MINUTE_MS } from "../time/units.js";
import { instantToLocal, localToInstant, type ZoneRules } from "../time/zone-rules.js";

/** A half-open interval [start, end) of instants. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** The same wall-clock hours on each listed weekday, in a zone. */
export interface WeeklyHoursIn {
  readonly zone: ZoneRules;
  /** ISO weekdays, 1 (Monday) to 7 (Sunday). */
  readonly days: ReadonlySet<number>;
  /** Minutes after local midnight, 0 to 1439. */
  readonly startMinute: number;
  /** Minutes after local midnight, after startMinute, at most 1440. */
  readonly endMinute: number;
}

/** Offsets never reach further than this from UTC (the database's extremes are -12:00 and +14:00). */
const MAX_OFFSET_MS = 15 * HOUR_MS;
/** Zones change offset far less often than this: sampling at it finds every change. */
const SAMPLE_MS = 6 * HOUR_MS;

/**
 * The stretches of [from, to) within the weekly hours, in order; a
 * meeting [s, e) is within the hours when one stretch holds it (`holds`).
 */
export function weeklyWorkingTime(hours: WeeklyHoursIn, from: number, to: number): Span[] {
  const { zone } = hours;
  const spans: Span[] = [];
  const firstDay = floorTo(instantToLocal(zone, from), DAY_MS) - DAY_MS;
  const lastDay = floorTo(instantToLocal(zone, to), DAY_MS) + DAY_MS;
  for (let day = firstDay; day <= lastDay; day += DAY_MS) {
    if (!hours.days.has(isoWeekday(day))) continue;
    for (const span of wallTimeSpans(zone, day + hours.startMinute * MINUTE_MS, day + hours.endMinute * MINUTE_MS)) {
      const start = Math.max(span.start, from);
      const end = Math.min(span.end, to);
      if (start < end) spans.push({ start, end });
    }
  }
  return spans;
}

/**
 * The instants whose wall time in `zone` lies in [fromLocal, toLocal), as
 * connected stretches in order: within each stretch of constant offset o
 * they are [fromLocal - o, toLocal - o), and stretches that touch across a
 * change join.
 */
export function wallTimeSpans(zone: ZoneRules, fromLocal: number, toLocal: number): Span[] {
  const low = fromLocal - MAX_OFFSET_MS;
  const high = toLocal + MAX_OFFSET_MS;
  const spans: Span[] = [];
  let segmentStart = low;
  while (segmentStart < high) {
    const offset = zone.offsetAt(segmentStart);
    const change = nextChange(zone, segmentStart, high);
    const segmentEnd = change ?? high;
    const start = Math.max(segmentStart, fromLocal - offset);
    const end = Math.min(segmentEnd, toLocal - offset);
    if (start < end) {
      const last = spans.at(-1);
      if (last !== undefined && last.end === start) spans[spans.length - 1] = { start: last.start, end };
      else spans.push({ start, end });
    }
    segmentStart = segmentEnd;
  }
  return spans;
}

/** The first instant in (from, to) where the zone's offset differs from its offset at `from`; undefined when none. */
function nextChange(zone: ZoneRules, from: number, to: number): number | undefined {
  const offset = zone.offsetAt(from);
  for (let probe = from; probe < to; probe += SAMPLE_MS) {
    const next = Math.min(probe + SAMPLE_MS, to);
    if (zone.offsetAt(next) === offset) continue;
    let low = probe;
    let high = next;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (zone.offsetAt(middle) === offset) low = middle;
      else high = middle;
    }
    return high;
  }
  return undefined;
}

/** Whether one span of `spans` (in order, not overlapping) holds all of [start, end). */
export function holds(spans: readonly Span[], start: number, end: number): boolean {
  let low = 0;
  let high = spans.length;
  // The last span starting at or before `start`.
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (spans[middle].start <= start) low = middle + 1;
    else high = middle;
  }
  const span = spans[low - 1];
  return span !== undefined && span.end >= end;
}

/**
 * The working time a feed's VAVAILABILITY gives in [from, to), as joined
 * stretches in order. `calendarZone` reads floating AVAILABLE times.
 */
export function availableWorkingTime(availability: readonly Availability[], calendarZone: ZoneRules, from: number, to: number): Span[] {
  const priorities = [...new Set(availability.map((component) => component.priority))].sort((a, b) => a - b);
  let covered: Span[] = [];
  let working: Span[] = [];
  for (const priority of priorities) {
    const level = availability.filter((component) => component.priority === priority);
    const ranges = union(level.map((component) => rangeOf(component, from, to)).filter((span) => span.start < span.end));
    const available = union(
      level.flatMap((component) => {
        const range = rangeOf(component, from, to);
        return intersect(union(component.available.flatMap((period) => periodSpans(period, calendarZone, range.start, range.end))), [
          range,
        ]);
      }),
    );
    working = union([...working, ...intersect(available, subtract(ranges, covered))]);
    covered = union([...covered, ...ranges]);
  }
  return union([...working, ...subtract([{ start: from, end: to }], covered)]);
}

function rangeOf(component: Availability, from: number, to: number): Span {
  return { start: Math.max(from, component.start ?? from), end: Math.min(to, component.end ?? to) };
}

/** A period's occurrences that overlap [from, to), unclipped. */
function periodSpans(period: AvailablePeriod, calendarZone: ZoneRules, from: number, to: number): Span[] {
  // A named zone was known to the database when the feed was read, so it still is.
  const zone = zoneRules(period.zone) ?? calendarZone;
  const instantsOf = (startLocal: number): Span => ({
    start: localToInstant(zone, startLocal),
    end: localToInstant(zone, startLocal + period.wallMs) + period.exactMs,
  });
  if (period.weekdays === undefined) {
    const one = instantsOf(period.startLocal);
    return one.start < to && one.end > from ? [one] : [];
  }
  const weekdays = new Set(period.weekdays);
  const timeOfDay = period.startLocal - floorTo(period.startLocal, DAY_MS);
  const reach = period.wallMs + period.exactMs + DAY_MS;
  const firstDay = Math.max(floorTo(period.startLocal, DAY_MS), floorTo(instantToLocal(zone, from) - reach, DAY_MS));
  const lastDay = floorTo(instantToLocal(zone, to), DAY_MS) + DAY_MS;
  const spans: Span[] = [];
  for (let day = firstDay; day <= lastDay; day += DAY_MS) {
    const startLocal = day + timeOfDay;
    if (startLocal < period.startLocal || !weekdays.has(isoWeekday(day))) continue;
    if (period.untilLocal !== undefined && startLocal > period.untilLocal) break;
    const span = instantsOf(startLocal);
    if (span.start < to && span.end > from) spans.push(span);
  }
  return spans;
}

/** The union of spans, in order, touching ones joined. */
export function union(spans: readonly Span[]): Span[] {
  const sorted = [...spans].filter((span) => span.start < span.end).sort((a, b) => a.start - b.start);
  const joined: Span[] = [];
  for (const span of sorted) {
    const last = joined.at(-1);
    if (last !== undefined && span.start <= last.end) joined[joined.length - 1] = { start: last.start, end: Math.max(last.end, span.end) };
    else joined.push(span);
  }
  return joined;
}

/** What both joined lists (in order) cover. */
function intersect(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i].start, b[j].start);
    const end = Math.min(a[i].end, b[j].end);
    if (start < end) out.push({ start, end });
    if (a[i].end < b[j].end) i++;
    else j++;
  }
  return out;
}

/** What `a` covers and `b` does not; both joined, in order. */
function subtract(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const span of a) {
    let start = span.start;
    for (const cut of b) {
      if (cut.end <= start || cut.start >= span.end) continue;
      if (cut.start > start) out.push({ start, end: cut.start });
      start = Math.max(start, cut.end);
    }
    if (start < span.end) out.push({ start, end: span.end });
  }
  return out;
}

/** ISO weekday (1 Monday to 7 Sunday) of a local wall time. */
function isoWeekday(local: number): number {
  const day = new Date(floorTo(local, DAY_MS)).getUTCDay();
  return day === 0 ? 7 : day;
}

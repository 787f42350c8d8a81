/**
 * Days as a reader names them: the local date and weekday of an instant in
 * a zone, the weeks around a day, and the next change of a zone's offset.
 * What answers carry beside each local time so that a model never has to
 * work out a weekday or a DST change itself (calendar_service.proto:
 * `*_local_date`, `*_local_weekday`, GetCallerContextResponse).
 */
import { formatDate } from "./civil.js";
import { DAY_MS, floorTo, HOUR_MS } from "./units.js";
import { instantToLocal, type ZoneRules } from "./zone-rules.js";

/** Weekday names in English, Monday first: index + 1 is the ISO weekday. */
export const WEEKDAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

/** ISO weekday (1 Monday to 7 Sunday) of a local wall-time number. */
export function isoWeekdayOf(local: number): number {
  const day = new Date(floorTo(local, DAY_MS)).getUTCDay();
  return day === 0 ? 7 : day;
}

/** The English weekday of a local wall-time number ("Friday"). */
export function weekdayName(local: number): string {
  return WEEKDAY_NAMES[isoWeekdayOf(local) - 1];
}

/** A local date and its weekday. */
export interface LocalDay {
  /** "YYYY-MM-DD". */
  readonly date: string;
  /** "Friday". */
  readonly weekday: string;
}

/** The local date and weekday of an instant in a zone. */
export function localDayOf(instant: number, zone: ZoneRules): LocalDay {
  const local = instantToLocal(zone, instant);
  return { date: formatDate(local), weekday: weekdayName(local) };
}

/** The date and weekday of a "YYYY-MM-DD" date moved by `days`. */
export function shiftedDay(date: string, days: number): LocalDay {
  const local = Date.parse(`${date}T00:00:00Z`) + days * DAY_MS;
  return { date: formatDate(local), weekday: weekdayName(local) };
}

/** The weekday of a "YYYY-MM-DD" date. */
export function weekdayOfDate(date: string): string {
  return weekdayName(Date.parse(`${date}T00:00:00Z`));
}

/** The first days of this week, next week and the week after, for weeks starting on `weekStart` (ISO weekday). */
export function weeksAround(today: number, weekStart: number): { thisWeek: string; nextWeek: string; weekAfterNext: string } {
  const day = floorTo(today, DAY_MS);
  const back = (isoWeekdayOf(day) - weekStart + 7) % 7;
  const first = day - back * DAY_MS;
  return { thisWeek: formatDate(first), nextWeek: formatDate(first + 7 * DAY_MS), weekAfterNext: formatDate(first + 14 * DAY_MS) };
}

/** A change of a zone's offset: from `time` on, `after` holds instead of `before`. */
export interface OffsetChange {
  readonly time: number;
  readonly before: number;
  readonly after: number;
}

/** Zones change offset far less often than this, so sampling at it finds every change. */
const SAMPLE_MS = 6 * HOUR_MS;

/** The first change of the zone's offset after `from` and no later than `until`; undefined when there is none. */
export function nextOffsetChange(zone: ZoneRules, from: number, until: number): OffsetChange | undefined {
  const before = zone.offsetAt(from);
  for (let low = from; low < until; low += SAMPLE_MS) {
    let high = Math.min(low + SAMPLE_MS, until);
    if (zone.offsetAt(high) === before) continue;
    let below = low;
    // Zones change offset on whole seconds: bisect to the millisecond all the same.
    while (high - below > 1) {
      const middle = Math.floor((below + high) / 2);
      if (zone.offsetAt(middle) === before) below = middle;
      else high = middle;
    }
    return { time: high, before, after: zone.offsetAt(high) };
  }
  return undefined;
}

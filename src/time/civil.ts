/**
 * Civil (wall-clock) values as numbers, and their RFC 3339 renderings.
 *
 * A local wall time is carried as the epoch-millisecond number its fields
 * would have in UTC; a date is the local wall time of its midnight.
 */
import type { ZoneRules } from "./zone-rules.js";

/**
 * The local wall-time number of the given fields (month 1-12). Fields out of
 * range carry over as Date's setters carry them (day 32 is the next month's
 * 1st, month 13 next year's January), and any year is its own (no 1900 for
 * year 99); NaN outside the instants a Date can hold. Arithmetic on days
 * since 1970 (the proleptic Gregorian calendar counted in 400-year eras), so
 * the many calls a build makes allocate nothing.
 */
export function civil(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const months = month - 1;
  const carried = Math.floor(months / 12);
  const m = months - 12 * carried + 1;
  // Years counted from March, so the leap day ends a year.
  const y = year + carried - (m <= 2 ? 1 : 0);
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  const instant = (era * 146_097 + dayOfEra - 719_468) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
  return Math.abs(instant) <= MAX_TIME_VALUE ? instant : Number.NaN;
}

/** The largest distance from 1970 a Date can hold, in milliseconds (ECMA-262 time values). */
const MAX_TIME_VALUE = 8.64e15;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when the fields name a real calendar day (no February 30). */
export function isValidDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leapDay = month === 2 && isLeapYear(year) ? 1 : 0;
  return day <= DAYS_IN_MONTH[month - 1] + leapDay;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

/**
 * "00" to "99". Every result carries two or four local times, and a
 * free/busy answer thousands, so fields are looked up rather than padded.
 */
const TWO_DIGITS: readonly string[] = Array.from({ length: 100 }, (_, value) => pad(value));

function datePart(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${TWO_DIGITS[date.getUTCMonth() + 1]}-${TWO_DIGITS[date.getUTCDate()]}`;
}

/** "YYYY-MM-DD" of a local wall-time number. */
export function formatDate(local: number): string {
  return datePart(new Date(local));
}

/** "YYYY-MM-DDTHH:MM:SS[.mmm]" of a local wall-time number. */
export function formatLocalDateTime(local: number): string {
  const date = new Date(local);
  const ms = date.getUTCMilliseconds();
  const time = `${TWO_DIGITS[date.getUTCHours()]}:${TWO_DIGITS[date.getUTCMinutes()]}:${TWO_DIGITS[date.getUTCSeconds()]}`;
  return `${datePart(date)}T${time}${ms === 0 ? "" : `.${pad(ms, 3)}`}`;
}

/** Each offset's rendering, made once: a zone has few offsets, and every local time shows one. */
const OFFSETS = new Map<number, string>();

/**
 * "+HH:MM" for an offset in milliseconds. Offsets with seconds (local mean
 * time before about 1912) keep their seconds, "+07:06:30", rather than being
 * rounded into a different instant.
 */
export function formatOffset(offset: number): string {
  let text = OFFSETS.get(offset);
  if (text === undefined) {
    const sign = offset < 0 ? "-" : "+";
    const total = Math.abs(offset) / 1000;
    const hours = Math.floor(total / 3600);
    const minutes = Math.floor((total % 3600) / 60);
    const seconds = total % 60;
    text = `${sign}${pad(hours)}:${pad(minutes)}${seconds === 0 ? "" : `:${pad(seconds)}`}`;
    OFFSETS.set(offset, text);
  }
  return text;
}

/** RFC 3339 rendering of an instant in a zone, e.g. "2026-10-02T09:00:00+07:00". */
export function formatInZone(instant: number, zone: ZoneRules): string {
  const offset = zone.offsetAt(instant);
  return formatLocalDateTime(instant + offset) + formatOffset(offset);
}

/** RFC 3339 rendering of an instant in UTC, e.g. "2026-10-02T02:00:00Z". */
export function formatUtc(instant: number): string {
  return `${formatLocalDateTime(instant)}Z`;
}

/** A local time "HH:MM" as minutes after midnight, "24:00" (1440) only as an end; undefined when it is not one. */
export function localTimeMinutes(text: string, end: boolean): number | undefined {
  if (end && text === "24:00") return 1440;
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match === null ? undefined : Number(match[1]) * 60 + Number(match[2]);
}

/**
 * Request instants (calendar_service.proto: SearchEventsRequest): the three accepted forms, checked against the
 * request's IANA zone, and the half-open window they make. Nothing is
 * guessed: a wrong offset, a skipped or repeated wall time, a sub-millisecond
 * digit or an out-of-range year is refused with a reason the caller can act on.
 */
import { CalqError } from "../calq-error.js";
import { civil, formatInZone, formatOffset, isValidDate } from "./civil.js";
import { DAY_MS } from "./units.js";
import { localToInstant, resolveLocal, type ZoneRules } from "./zone-rules.js";
import { ianaZone } from "./zones.js";

/** First supported instant: 1900-01-01T00:00:00Z. */
export const MIN_SUPPORTED_INSTANT = Date.UTC(1900, 0, 1);
/** End of the supported range, excluded: 2200-01-01T00:00:00Z. */
export const MAX_SUPPORTED_INSTANT = Date.UTC(2200, 0, 1);

/** A resolved request window: [start, endExclusive) in epoch milliseconds. */
export interface RequestWindow {
  readonly start: number;
  readonly endExclusive: number;
  /** The request's zone, as sent. */
  readonly timezone: string;
  readonly zone: ZoneRules;
}

/** The raw request fields a window is made of. */
export interface WindowFields {
  readonly start: string;
  readonly endExclusive: string;
  readonly timezone: string;
}

const INSTANT_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

const FORMS =
  'RFC 3339 with offset ("2026-10-02T09:00:00+07:00"), local time without offset ("2026-10-02T09:00:00") or a date ("2026-10-02")';

/**
 * Request zones are IANA names of the form Area/Location ("Asia/Ho_Chi_Minh",
 * "Etc/UTC"), or "UTC". Legacy names that read like abbreviations or
 * countries ("EST", "CET", "EST5EDT", "GB", "Zulu") are refused even though
 * the database links them, because callers who write them rarely mean what
 * the database does.
 */
const REQUEST_ZONE_FORM = /^(?:UTC|[A-Za-z]+\/[A-Za-z0-9_+-]+(?:\/[A-Za-z0-9_+-]+)*)$/;

/** True when `name` is a zone a request may name. */
export function isRequestZone(name: string): boolean {
  return REQUEST_ZONE_FORM.test(name) && ianaZone(name) !== undefined;
}

/** The rules of the request's zone; UNKNOWN_TIMEZONE unless it is an IANA name. */
export function requestZone(timezone: string): ZoneRules {
  const zone = REQUEST_ZONE_FORM.test(timezone) ? ianaZone(timezone) : undefined;
  if (zone === undefined) {
    throw new CalqError(
      "UNKNOWN_TIMEZONE",
      timezone === ""
        ? "timezone is required: send an IANA zone name such as Asia/Ho_Chi_Minh"
        : `timezone "${clip(timezone)}" is not an IANA zone name; send one such as Asia/Ho_Chi_Minh (fixed offsets and abbreviations are not zone names)`,
      "timezone",
    );
  }
  return zone;
}

/**
 * Reads one request instant in `zone`. `field` names the request field in
 * errors ("start" or "end_exclusive").
 */
export function parseRequestInstant(text: string, zone: ZoneRules, field: string): number {
  const match = INSTANT_PATTERN.exec(text);
  if (match === null) {
    throw new CalqError("INVALID_TIMESTAMP", `${field} "${clip(text)}" is not in an accepted form: ${FORMS}`, field);
  }
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fractionText, offsetText] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText ?? 0);
  const minute = Number(minuteText ?? 0);
  const second = Number(secondText ?? 0);
  if (!isValidDate(year, month, day) || hour > 23 || minute > 59 || second > 59) {
    throw new CalqError("INVALID_TIMESTAMP", `${field} "${text}" is not a real date and time`, field);
  }
  const fraction = (fractionText ?? "").padEnd(9, "0");
  if (fraction.slice(3) !== "000000") {
    throw new CalqError(
      "INVALID_TIMESTAMP",
      `${field} "${text}" is more precise than a millisecond; send at most three fraction digits`,
      field,
    );
  }
  const local = civil(year, month, day, hour, minute, second, Number(fraction.slice(0, 3)));
  checkSupported(local, field, text);

  if (offsetText !== undefined) return exactInstant(text, local, offsetText, zone, field);
  // A date is its midnight, or where the clocks land when a DST jump skips midnight.
  if (hourText === undefined) return localToInstant(zone, local);
  return localInstant(text, local, zone, field);
}

function exactInstant(text: string, local: number, offsetText: string, zone: ZoneRules, field: string): number {
  if (offsetText === "-00:00") {
    throw new CalqError(
      "INVALID_TIMESTAMP",
      `${field} "${text}" uses -00:00, which RFC 3339 defines as an unknown local offset; send the real offset`,
      field,
    );
  }
  const offset = offsetText === "Z" ? 0 : parseOffset(offsetText);
  if (offset === undefined) {
    throw new CalqError("INVALID_TIMESTAMP", `${field} "${text}" has an offset out of range`, field);
  }
  const instant = local - offset;
  checkSupported(instant, field, text);
  const zoneOffset = zone.offsetAt(instant);
  if (zoneOffset !== offset) {
    throw new CalqError(
      "TIMEZONE_OFFSET_MISMATCH",
      `${field} "${text}" has offset ${offsetText === "Z" ? "Z" : offsetText}, but ${zone.name} is at ` +
        `${formatOffset(zoneOffset)} at that instant; fix the offset or the zone (for a wall time in ${zone.name}, ` +
        `send it without offset)`,
      field,
      { zone_offset: formatOffset(zoneOffset), instant_in_zone: formatInZone(instant, zone) },
    );
  }
  return instant;
}

function parseOffset(text: string): number | undefined {
  const hours = Number(text.slice(1, 3));
  const minutes = Number(text.slice(4, 6));
  if (hours > 23 || minutes > 59) return undefined;
  const magnitude = (hours * 60 + minutes) * 60_000;
  return text[0] === "-" ? -magnitude : magnitude;
}

function localInstant(text: string, local: number, zone: ZoneRules, field: string): number {
  const resolution = resolveLocal(zone, local);
  switch (resolution.kind) {
    case "unique":
      return resolution.instant;
    case "gap":
      throw new CalqError(
        "NONEXISTENT_LOCAL_TIME",
        `${field} "${text}" never happened in ${zone.name}: clocks jumped over it; ask the user which time they mean`,
        field,
        { next_valid_local: formatInZone(resolution.shifted, zone) },
      );
    case "fold": {
      const earlier = formatInZone(resolution.earlier, zone);
      const later = formatInZone(resolution.later, zone);
      throw new CalqError(
        "AMBIGUOUS_TIMEZONE",
        `${field} "${text}" happens twice in ${zone.name}: ${earlier} (earlier) or ${later} (later); ` +
          `resend one of them with its offset, or ask the user`,
        field,
        { earlier, later },
      );
    }
  }
}

function checkSupported(instant: number, field: string, text: string): void {
  // Local readings may sit up to a day outside the instant range; the exact
  // check happens on the resolved window.
  if (instant < MIN_SUPPORTED_INSTANT - DAY_MS || instant >= MAX_SUPPORTED_INSTANT + DAY_MS) {
    throw outOfRange(field, text);
  }
}

function outOfRange(field: string, text: string): CalqError {
  return new CalqError(
    "INVALID_INTERVAL",
    `${field} "${clip(text)}" is outside the supported range 1900-01-01T00:00:00Z to 2200-01-01T00:00:00Z`,
    field,
    { supported_start: "1900-01-01T00:00:00Z", supported_end_exclusive: "2200-01-01T00:00:00Z" },
  );
}

/**
 * Resolves and checks a request window: non-empty, at most `maxWindowMs`
 * long, and inside the supported range.
 */
export function resolveWindow(fields: WindowFields, maxWindowMs: number): RequestWindow {
  const zone = requestZone(fields.timezone);
  const start = parseRequestInstant(fields.start, zone, "start");
  const endExclusive = parseRequestInstant(fields.endExclusive, zone, "end_exclusive");
  if (start < MIN_SUPPORTED_INSTANT) throw outOfRange("start", fields.start);
  if (endExclusive > MAX_SUPPORTED_INSTANT) throw outOfRange("end_exclusive", fields.endExclusive);
  if (endExclusive <= start) {
    throw new CalqError(
      "INVALID_INTERVAL",
      `the window is empty: end_exclusive ${formatInZone(endExclusive, zone)} is not after start ` +
        `${formatInZone(start, zone)}; the window is [start, end_exclusive)`,
      "end_exclusive",
    );
  }
  if (endExclusive - start > maxWindowMs) {
    const maxDays = String(maxWindowMs / DAY_MS);
    throw new CalqError(
      "INVALID_INTERVAL",
      `the window is longer than the maximum of ${maxDays} days; search a shorter window`,
      "end_exclusive",
      { max_window_days: maxDays },
    );
  }
  return { start, endExclusive, timezone: fields.timezone, zone };
}

/** Echoes at most 64 characters of caller input, so errors stay small. */
function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}

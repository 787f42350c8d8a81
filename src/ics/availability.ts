/**
 * VAVAILABILITY (RFC 7953): when the owner of a calendar is available, as
 * the feed itself publishes it. Meeting times read a person's working hours
 * from here when their feed has it (calendar_service.proto:
 * WorkingHoursSource). What is read is plain data (zone names, wall times),
 * so a snapshot carries it from an ingest worker as JSON.
 *
 * What calq reads, and what it leaves out with an UNSUPPORTED_VALUE
 * diagnostic (the whole VAVAILABILITY, so the person's other working hours
 * apply rather than a half-read one):
 * - VAVAILABILITY: DTSTART and DTEND (or DURATION) bound the range it
 *   speaks for, either end open when absent; PRIORITY (1 highest, 9
 *   lowest, 0 or absent lowest of all); BUSYTYPE is read as unavailable
 *   whatever it says.
 * - AVAILABLE: DTSTART with DTEND or DURATION, in an IANA or Windows zone,
 *   UTC, or floating (the calendar's zone); no RRULE (one period), or an
 *   RRULE of FREQ=WEEKLY (BYDAY, else DTSTART's weekday) or FREQ=DAILY,
 *   INTERVAL 1, with an optional UNTIL. EXDATE, RDATE, COUNT and other
 *   rule parts are not read.
 */
import ICAL from "ical.js";
import { civil, isValidDate } from "../time/civil.js";
import { DAY_MS, floorTo } from "../time/units.js";
import { localToInstant, UTC_ZONE, type ZoneRules } from "../time/zone-rules.js";
import { ianaZone, windowsZone } from "../time/zones.js";
import { type DiagnosticSink, diagnostic } from "./diagnostic.js";
import type { ContentLine } from "./feed-lexer.js";

/** One AVAILABLE period, recurring weekly or daily, or once. */
export interface AvailablePeriod {
  /** The zone its wall times are in: an IANA name, "UTC", or "" for floating (the calendar's zone). */
  readonly zone: string;
  /** DTSTART as a local wall time (epoch milliseconds of the wall clock read as UTC). */
  readonly startLocal: number;
  /** Wall-clock milliseconds from the start to the end (DTEND's wall time, or DURATION's days and weeks). */
  readonly wallMs: number;
  /** Exact milliseconds added after the wall-clock end (DURATION's hours, minutes and seconds). */
  readonly exactMs: number;
  /** ISO weekdays (1 Monday to 7 Sunday) it recurs on; absent for a single period. */
  readonly weekdays?: readonly number[];
  /** RRULE's UNTIL as a wall time in `zone` (a date: its last millisecond): no period starts after it. Absent: no end. */
  readonly untilLocal?: number;
}

/** One VAVAILABILITY: the range it speaks for, its priority, and its AVAILABLE periods. */
export interface Availability {
  /** First instant of its range; absent: from always. */
  readonly start?: number;
  /** First instant after its range; absent: for ever. */
  readonly end?: number;
  /** 1 (highest) to 9, and 10 for PRIORITY 0 or absent (RFC 7953: undefined is lowest). */
  readonly priority: number;
  readonly available: readonly AvailablePeriod[];
}

type JCalProperty = [string, Record<string, unknown>, string, ...unknown[]];
type JCalComponent = [string, JCalProperty[], JCalComponent[]];

/** Why a VAVAILABILITY was left out. */
class Unsupported extends Error {}

const WEEKDAY_CODES = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

/**
 * Reads the VAVAILABILITY components of a feed (as the lexer gave them,
 * each with its BEGIN line); one calq cannot read exactly is left out with
 * a diagnostic naming its line.
 */
export function readAvailability(
  components: readonly { readonly line: number; readonly lines: readonly ContentLine[] }[],
  diagnostics: DiagnosticSink,
): Availability[] {
  const read: Availability[] = [];
  for (const component of components) {
    try {
      read.push(availabilityOf(jcalOf(component.lines)));
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      diagnostics.push(
        diagnostic("UNSUPPORTED_VALUE", `a VAVAILABILITY was left out (${error.message}); working hours come from elsewhere`, {
          line: component.line,
        }),
      );
    }
  }
  return read;
}

function jcalOf(lines: readonly ContentLine[]): JCalComponent {
  const text = ["BEGIN:VCALENDAR", "BEGIN:VAVAILABILITY", ...lines.map((line) => line.text), "END:VAVAILABILITY", "END:VCALENDAR", ""];
  try {
    const calendar = ICAL.parse(text.join("\r\n")) as unknown as JCalComponent;
    const component = calendar[2]?.[0];
    if (component?.[0] !== "vavailability") throw new Unsupported("it could not be read");
    return component;
  } catch (error) {
    if (error instanceof Unsupported) throw error;
    throw new Unsupported("it could not be read");
  }
}

function availabilityOf(component: JCalComponent): Availability {
  const properties = component[1];
  const start = optionalTime(properties, "dtstart");
  const end = optionalTime(properties, "dtend");
  const duration = property(properties, "duration");
  const startInstant = start === undefined ? undefined : instantOf(start);
  let endInstant = end === undefined ? undefined : instantOf(end);
  if (endInstant === undefined && duration !== undefined) {
    if (start === undefined) throw new Unsupported("DURATION without DTSTART");
    endInstant = endOf(start, durationOf(duration[3]));
  }
  if (startInstant !== undefined && endInstant !== undefined && endInstant <= startInstant) {
    throw new Unsupported("its end is not after its start");
  }
  const priorityValue = property(properties, "priority")?.[3];
  const priority = typeof priorityValue === "number" && priorityValue >= 1 && priorityValue <= 9 ? priorityValue : 10;
  const available = component[2].filter((child) => child[0] === "available").map(periodOf);
  return {
    ...(startInstant === undefined ? {} : { start: startInstant }),
    ...(endInstant === undefined ? {} : { end: endInstant }),
    priority,
    available,
  };
}

/** A DATE-TIME as written: its wall time and zone name ("" for floating). */
interface WallTime {
  readonly local: number;
  readonly zone: string;
}

function periodOf(component: JCalComponent): AvailablePeriod {
  const properties = component[1];
  const start = optionalTime(properties, "dtstart");
  if (start === undefined) throw new Unsupported("an AVAILABLE has no DTSTART");
  const end = optionalTime(properties, "dtend");
  const duration = property(properties, "duration");
  let wallMs: number;
  let exactMs = 0;
  if (end !== undefined) {
    if (end.zone !== start.zone) throw new Unsupported("an AVAILABLE's DTEND is in another zone than its DTSTART");
    wallMs = end.local - start.local;
  } else if (duration !== undefined) {
    const parsed = durationOf(duration[3]);
    wallMs = parsed.days * DAY_MS;
    exactMs = parsed.exactMs;
  } else {
    throw new Unsupported("an AVAILABLE has neither DTEND nor DURATION");
  }
  if (wallMs + exactMs <= 0) throw new Unsupported("an AVAILABLE ends before it starts");
  const rules = properties.filter((candidate) => candidate[0] === "rrule");
  if (rules.length > 1) throw new Unsupported("an AVAILABLE has several RRULEs");
  if (properties.some((candidate) => candidate[0] === "rdate" || candidate[0] === "exdate")) {
    throw new Unsupported("an AVAILABLE has RDATE or EXDATE");
  }
  const base = { zone: start.zone, startLocal: start.local, wallMs, exactMs };
  if (rules.length === 0) return base;
  return { ...base, ...ruleOf(rules[0][3], start) };
}

/** A weekly or daily RRULE as weekdays and an end; anything else is refused. */
function ruleOf(value: unknown, start: WallTime): Pick<AvailablePeriod, "weekdays" | "untilLocal"> {
  if (typeof value !== "object" || value === null) throw new Unsupported("an AVAILABLE's RRULE could not be read");
  const parts = value as Record<string, unknown>;
  const known = new Set(["freq", "interval", "byday", "until", "wkst"]);
  for (const key of Object.keys(parts)) if (!known.has(key)) throw new Unsupported(`an AVAILABLE's RRULE has ${key.toUpperCase()}`);
  if (parts.interval !== undefined && Number(parts.interval) !== 1) throw new Unsupported("an AVAILABLE's RRULE has an INTERVAL");
  const startWeekday = isoWeekday(start.local);
  let weekdays: number[];
  if (parts.freq === "DAILY") {
    if (parts.byday !== undefined) throw new Unsupported("an AVAILABLE's daily RRULE has BYDAY");
    weekdays = [1, 2, 3, 4, 5, 6, 7];
  } else if (parts.freq === "WEEKLY") {
    const days = parts.byday === undefined ? [] : Array.isArray(parts.byday) ? parts.byday : [parts.byday];
    weekdays = days.map((day) => {
      const index = WEEKDAY_CODES.indexOf(String(day));
      if (index < 0) throw new Unsupported(`an AVAILABLE's RRULE has BYDAY=${String(day)}`);
      return index + 1;
    });
    if (weekdays.length === 0) weekdays = [startWeekday];
  } else {
    throw new Unsupported(`an AVAILABLE's RRULE has FREQ=${String(parts.freq)}`);
  }
  const sorted = [...new Set(weekdays)].sort();
  if (parts.until === undefined) return { weekdays: sorted };
  const text = String(parts.until);
  if (!text.endsWith("Z")) return { weekdays: sorted, untilLocal: wallTimeOf(text) };
  // A UTC UNTIL (RFC 5545 asks for one with a zoned DTSTART), as a wall time of the period's zone.
  const instant = wallTimeOf(text.slice(0, -1));
  const zone = zoneRules(start.zone);
  return { weekdays: sorted, untilLocal: zone === undefined ? instant : instant + zone.offsetAt(instant) };
}

function property(properties: readonly JCalProperty[], name: string): JCalProperty | undefined {
  return properties.find((candidate) => candidate[0] === name);
}

/** A DATE-TIME property as a wall time in a named zone; a DATE or a zone calq can only read from the feed is refused. */
function optionalTime(properties: readonly JCalProperty[], name: string): WallTime | undefined {
  const found = property(properties, name);
  if (found === undefined) return undefined;
  if (found[2] !== "date-time" || typeof found[3] !== "string") throw new Unsupported(`${name.toUpperCase()} is not a date-time`);
  const text = found[3];
  if (text.endsWith("Z")) return { local: wallTimeOf(text.slice(0, -1)), zone: "UTC" };
  const tzid = found[1].tzid;
  if (tzid === undefined) return { local: wallTimeOf(text), zone: "" };
  const zone = typeof tzid === "string" ? (ianaZone(tzid) ?? windowsZone(tzid)) : undefined;
  if (zone === undefined) throw new Unsupported(`TZID ${String(tzid)} is not an IANA or Windows zone`);
  return { local: wallTimeOf(text), zone: zone.name };
}

/** "2026-01-05T09:00:00" (jCal) or an UNTIL "2026-06-30T23:59:59"/"2026-06-30" as a wall-time number; a date means its last millisecond. */
function wallTimeOf(text: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?Z?$/.exec(text);
  if (match === null) throw new Unsupported(`"${text}" is not a date-time`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!isValidDate(year, month, day)) throw new Unsupported(`"${text}" is not a date`);
  if (match[4] === undefined) return civil(year, month, day) + DAY_MS - 1;
  return civil(year, month, day, Number(match[4]), Number(match[5]), Number(match[6]));
}

/** The instant of a range bound (RFC 5545 §3.3.5 in a gap or a fold); a floating one is not read (its calendar's zone is not known here). */
function instantOf(time: WallTime): number {
  const zone = zoneRules(time.zone);
  if (zone === undefined) throw new Unsupported("its range is in floating time");
  return localToInstant(zone, time.local);
}

function endOf(start: WallTime, duration: { days: number; exactMs: number }): number {
  return instantOf({ local: start.local + duration.days * DAY_MS, zone: start.zone }) + duration.exactMs;
}

/** The rules of a period's zone name; undefined for floating (""). */
export function zoneRules(name: string): ZoneRules | undefined {
  if (name === "") return undefined;
  return name === "UTC" ? UTC_ZONE : ianaZone(name);
}

function durationOf(value: unknown): { days: number; exactMs: number } {
  if (typeof value !== "string") throw new Unsupported("a DURATION could not be read");
  const match = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(value);
  if (match === null || match[1] === "-") throw new Unsupported(`DURATION ${value} could not be read`);
  const [weeks, days, hours, minutes, seconds] = match.slice(2).map((part) => Number(part ?? 0));
  return { days: weeks * 7 + days, exactMs: ((hours * 60 + minutes) * 60 + seconds) * 1000 };
}

function isoWeekday(local: number): number {
  const day = new Date(floorTo(local, DAY_MS)).getUTCDay();
  return day === 0 ? 7 : day;
}

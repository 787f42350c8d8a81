/**
 * Feed text to event components, with diagnostics.
 *
 * ical.js does the lexing (folding, escapes, parameters, value types); this
 * module reads its jCal arrays directly, checks every value it uses, resolves
 * each TZID to zone rules, and reports what it had to leave out. It knows
 * nothing of recurrence or of the calendar's configured zone.
 */
import { createHash } from "node:crypto";
import ICAL from "ical.js";
import { Pacer, runAtOnce, type Steps } from "../stepwise.js";
import { civil, isValidDate } from "../time/civil.js";
import { UTC_ZONE, type ZoneRules } from "../time/zone-rules.js";
import { ianaZone, windowsZone } from "../time/zones.js";
import type { Diagnostic } from "./diagnostic.js";
import { vtimezoneZone } from "./vtimezone-zone.js";

/** A DATE or DATE-TIME value as written: a local wall time and its zone. */
export type IcsTime =
  | { readonly kind: "date"; readonly local: number }
  /** `zone` undefined means floating: read in the calendar's zone. */
  | { readonly kind: "date-time"; readonly local: number; readonly zone: ZoneRules | undefined };

/**
 * An RFC 5545 duration: `days` is nominal (weeks and days, wall-clock days
 * that may last 23 or 25 hours), `exactMs` is exact (hours and below).
 */
export interface IcsDuration {
  readonly days: number;
  readonly exactMs: number;
}

/** One RDATE value: a date, a date-time, or a period with its own end. */
export interface IcsRdate {
  readonly start: IcsTime;
  readonly end?: IcsTime;
  readonly duration?: IcsDuration;
}

/** An RRULE or EXRULE value as ical.js reads it (jCal "recur"). */
export type RecurValue = Readonly<Record<string, unknown>>;

export type EventStatusText = "CONFIRMED" | "TENTATIVE" | "CANCELLED" | "";

/** One VEVENT, every value checked; nothing is interpreted yet. */
export interface EventComponent {
  readonly uid: string;
  /** 1-based line of BEGIN:VEVENT. */
  readonly line: number;
  readonly summary: string;
  readonly location: string;
  readonly status: EventStatusText;
  readonly transparent: boolean;
  readonly lastModified?: number;
  readonly sequence: number;
  readonly start: IcsTime;
  readonly end?: IcsTime;
  readonly duration?: IcsDuration;
  readonly rrules: readonly RecurValue[];
  readonly exrules: readonly RecurValue[];
  readonly rdates: readonly IcsRdate[];
  readonly exdates: readonly IcsTime[];
  readonly recurrenceId?: IcsTime;
  /** RECURRENCE-ID;RANGE=THISANDFUTURE: the override applies to later slots too. */
  readonly thisAndFuture: boolean;
}

/** A feed read into components. */
export interface ParsedCalendar {
  readonly events: readonly EventComponent[];
  /** The feed's X-WR-TIMEZONE, when it names a known zone. */
  readonly declaredZone?: ZoneRules;
  readonly diagnostics: readonly Diagnostic[];
}

/** Thrown when the text is not an iCalendar stream at all. */
export class NotICalendarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotICalendarError";
  }
}

type JCalProperty = [string, Record<string, unknown>, string, ...unknown[]];
type JCalComponent = [string, JCalProperty[], JCalComponent[]];

/** A component that could not be read; carries the reason for the diagnostic. */
class UnreadableValue extends Error {}

/**
 * Parses feed text. Throws NotICalendarError when it holds no VCALENDAR.
 * VEVENTs past the first `maxComponents` are left out with one diagnostic.
 */
export function parseCalendar(text: string, maxComponents = Infinity): ParsedCalendar {
  return runAtOnce(parseCalendarSteps(text, maxComponents));
}

/** parseCalendar as steps: it yields about every 10 ms while reading components. */
export function* parseCalendarSteps(text: string, maxComponents = Infinity): Steps<ParsedCalendar> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!isICalendar(body)) throw new NotICalendarError("the feed is not iCalendar text (no BEGIN:VCALENDAR)");
  const diagnostics: Diagnostic[] = [];
  const scan = scanLines(body);
  const { calendars, veventLines } = lexCalendars(scan.text, scan.begins, diagnostics);
  const reader = new CalendarReader(diagnostics);
  for (const calendar of calendars) reader.readTimezones(calendar);
  const events: EventComponent[] = [];
  let declaredZone: ZoneRules | undefined;
  let veventIndex = 0;
  const pacer = new Pacer();
  for (const calendar of calendars) {
    declaredZone ??= reader.declaredZone(calendar);
    for (const component of calendar[2]) {
      if (component[0] !== "vevent") continue;
      if (pacer.due()) {
        yield;
        pacer.resumed();
      }
      const line = veventLines[veventIndex++];
      if (veventIndex > maxComponents) {
        if (veventIndex === maxComponents + 1) {
          diagnostics.push({
            code: "FEED_COMPONENTS_CAPPED",
            message: `the feed has more than ${maxComponents} VEVENTs; this one and every later one were left out`,
            line,
          });
        }
        continue;
      }
      const event = reader.readEvent(component, line);
      if (event !== undefined) events.push(event);
    }
  }
  return { events, declaredZone, diagnostics };
}

/** Whether the text holds an iCalendar stream at all (a BEGIN:VCALENDAR line). */
export function isICalendar(text: string): boolean {
  return /^\uFEFF?BEGIN:VCALENDAR\r?$/im.test(text);
}

/** Lexed calendars, and the BEGIN line of each of their VEVENTs in order. */
interface Lexed {
  readonly calendars: JCalComponent[];
  readonly veventLines: readonly number[];
}

/** Lexes with ical.js; if the whole text fails, lexes component by component. */
function lexCalendars(text: string, veventLines: readonly number[], diagnostics: Diagnostic[]): Lexed {
  try {
    const parsed = ICAL.parse(text) as unknown;
    const calendars = (typeof (parsed as unknown[])[0] === "string" ? [parsed] : parsed) as JCalComponent[];
    return { calendars, veventLines };
  } catch (error) {
    diagnostics.push({
      code: "UNPARSABLE_TEXT",
      message: `the feed could not be parsed as a whole (${errorText(error)}); components were read one by one`,
    });
    return lexPiecewise(text, diagnostics);
  }
}

/**
 * Splits the text into top-level components and lexes each alone, so one
 * broken component costs only itself. The calendar's own properties
 * (X-WR-TIMEZONE above all) are lexed too, one by one, so the calendar keeps
 * its zone. A component still open when the text ends is reported, not lost
 * silently.
 */
function lexPiecewise(text: string, diagnostics: Diagnostic[]): Lexed {
  const lines = text.split(/\r?\n/);
  const calendar: JCalComponent = ["vcalendar", [], []];
  const veventLines: number[] = [];
  const calendarProperties: string[] = [];
  let block: string[] | undefined;
  let blockLine = 0;
  let depth = 0;
  const leftOut = (source: string, reason: string) =>
    diagnostics.push({
      code: "UNREADABLE_COMPONENT",
      message: `component could not be parsed (${reason}); it was left out`,
      uid: /^UID:(.*)$/im.exec(source)?.[1]?.trim(),
      line: blockLine,
    });
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^BEGIN:/i.test(line)) depth++;
    if (depth === 2 && /^BEGIN:/i.test(line)) {
      block = [];
      blockLine = i + 1;
    }
    if (block !== undefined) block.push(line);
    else if (depth === 1 && !/^BEGIN:VCALENDAR/i.test(line)) {
      if (/^[ \t]/.test(line) && calendarProperties.length > 0) calendarProperties[calendarProperties.length - 1] += `\r\n${line}`;
      else if (line !== "") calendarProperties.push(line);
    }
    if (!/^END:/i.test(line)) continue;
    depth--;
    if (depth !== 1 || block === undefined) continue;
    const source = block.join("\r\n");
    block = undefined;
    try {
      const parsed = ICAL.parse(`BEGIN:VCALENDAR\r\n${source}\r\nEND:VCALENDAR\r\n`) as unknown as JCalComponent;
      for (const component of parsed[2]) {
        calendar[2].push(component);
        if (component[0] === "vevent") veventLines.push(blockLine);
      }
    } catch (error) {
      leftOut(source, errorText(error));
    }
  }
  if (block !== undefined) leftOut(block.join("\r\n"), "the feed ends inside it");
  for (const property of calendarProperties) {
    try {
      calendar[1].push(...(ICAL.parse(`BEGIN:VCALENDAR\r\n${property}\r\nEND:VCALENDAR\r\n`) as unknown as JCalComponent)[1]);
    } catch {
      // A calendar property that cannot be read is one calq would not use anyway.
    }
  }
  return { calendars: [calendar], veventLines };
}

/** The property names an unreadable RRULE or EXRULE is renamed to, keeping its line. */
const UNREADABLE_RULE = { rrule: "X-CALQ-UNREADABLE-RRULE", exrule: "X-CALQ-UNREADABLE-EXRULE" } as const;

/**
 * The 1-based line of each top-level BEGIN:VEVENT, in order, and the text
 * with every RRULE or EXRULE that cannot be read renamed to an X- property.
 * One bad rule would otherwise fail the whole text in ical.js (FREQ=FORTNIGHTLY,
 * BYMONTH=13) or be silently changed by it (INTERVAL=0 read as 1); renamed,
 * it costs only itself, its event is still read, and the reader reports it.
 * Renaming keeps every line where it was, so diagnostics' lines stay true.
 */
function scanLines(text: string): { begins: number[]; text: string } {
  const begins: number[] = [];
  const lines = text.split("\n");
  let renamed = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^BEGIN:VEVENT\s*$/i.test(lines[i])) begins.push(i + 1);
    const rule = /^(RRULE|EXRULE)(?=[;:])/i.exec(lines[i]);
    if (rule === null) continue;
    const first = i;
    let logical = lines[i].replace(/\r$/, "");
    while (i + 1 < lines.length && /^[ \t]/.test(lines[i + 1])) logical += lines[++i].replace(/\r$/, "").slice(1);
    if (ruleReadable(logical)) continue;
    const name = rule[1].toLowerCase() as keyof typeof UNREADABLE_RULE;
    lines[first] = UNREADABLE_RULE[name] + lines[first].slice(rule[1].length);
    renamed = true;
  }
  return { begins, text: renamed ? lines.join("\n") : text };
}

/** Whether ical.js reads a rule line as written: it lexes alone, and no INTERVAL=0. */
function ruleReadable(logical: string): boolean {
  if (/[:;]INTERVAL=0*(;|$)/i.test(logical)) return false;
  try {
    ICAL.parse(`BEGIN:VEVENT\r\n${logical}\r\nEND:VEVENT\r\n`);
    return true;
  } catch {
    return false;
  }
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 120 ? `${message.slice(0, 120)}...` : message;
}

/** Reads components of one feed, resolving TZIDs against its VTIMEZONEs. */
class CalendarReader {
  private readonly definedZones = new Map<string, ZoneRules>();

  constructor(private readonly diagnostics: Diagnostic[]) {}

  readTimezones(calendar: JCalComponent): void {
    for (const component of calendar[2]) {
      if (component[0] !== "vtimezone") continue;
      const tzid = firstValue(component, "tzid");
      if (typeof tzid !== "string") continue;
      try {
        this.definedZones.set(tzid, vtimezoneZone(tzid, component));
      } catch (error) {
        this.diagnostics.push({
          code: "UNREADABLE_COMPONENT",
          message: `VTIMEZONE ${tzid} could not be read (${errorText(error)})`,
        });
      }
    }
  }

  declaredZone(calendar: JCalComponent): ZoneRules | undefined {
    const name = calendar[1].find((property) => property[0] === "x-wr-timezone")?.[3];
    if (typeof name !== "string" || name.trim() === "") return undefined;
    // The calendar's zone is shown to callers, who may send it back: an IANA
    // or Windows name only, never a zone the feed defines for itself.
    const zone = ianaZone(name.trim()) ?? windowsZone(name.trim());
    if (zone === undefined) {
      this.diagnostics.push({
        code: "UNKNOWN_CALENDAR_ZONE",
        message: `X-WR-TIMEZONE "${name}" is not a known zone; it was ignored`,
      });
    }
    return zone;
  }

  /** IANA first, then Windows names, then the feed's own VTIMEZONE. */
  zone(tzid: string): ZoneRules | undefined {
    return ianaZone(tzid) ?? windowsZone(tzid) ?? this.definedZones.get(tzid);
  }

  readEvent(component: JCalComponent, line: number | undefined): EventComponent | undefined {
    if (component[0] !== "vevent") return undefined;
    const properties = component[1];
    const uidValue = firstValue(component, "uid");
    let uid = typeof uidValue === "string" ? uidValue : "";
    if (uid === "") {
      uid = derivedUid(properties);
      this.diagnostics.push({ code: "MISSING_UID", message: "VEVENT has no UID; one was derived from its content", uid, line });
    }
    const unreadable = (name: string) => properties.filter((property) => property[0] === name.toLowerCase()).length;
    if (unreadable(UNREADABLE_RULE.exrule) > 0) {
      // Dropping an exclusion would add dates the feed excludes: leave the event out instead.
      this.diagnostics.push({ code: "UNREADABLE_RRULE", message: "an EXRULE could not be read; the event was left out", uid, line });
      return undefined;
    }
    if (unreadable(UNREADABLE_RULE.rrule) > 0) {
      this.diagnostics.push({
        code: "UNREADABLE_RRULE",
        message:
          "an RRULE could not be read (an unknown FREQ, a value out of range, INTERVAL=0); the rule was dropped and the event keeps its other dates",
        uid,
        line,
      });
    }
    try {
      const startProperty = properties.find((property) => property[0] === "dtstart");
      if (startProperty === undefined) {
        this.diagnostics.push({ code: "MISSING_DTSTART", message: "VEVENT has no DTSTART; it was left out", uid, line });
        return undefined;
      }
      const recurrenceIdProperty = properties.find((property) => property[0] === "recurrence-id");
      const durationValue = firstValue(component, "duration");
      const lastModified = properties.find((property) => property[0] === "last-modified");
      const sequence = firstValue(component, "sequence");
      return {
        uid,
        line: line ?? 0,
        summary: textValue(component, "summary"),
        location: textValue(component, "location"),
        status: statusValue(textValue(component, "status")),
        transparent: textValue(component, "transp").toUpperCase() === "TRANSPARENT",
        lastModified: lastModified === undefined ? undefined : this.instantValue(lastModified),
        sequence: Number.isInteger(sequence) ? (sequence as number) : 0,
        start: this.timeValue(startProperty, startProperty[3]),
        end: this.optionalTime(properties, "dtend"),
        duration: durationValue === undefined ? undefined : parseDuration(String(durationValue)),
        rrules: recurValues(properties, "rrule"),
        exrules: recurValues(properties, "exrule"),
        rdates: properties.filter((property) => property[0] === "rdate").flatMap((property) => this.rdateValues(property)),
        exdates: properties
          .filter((property) => property[0] === "exdate")
          .flatMap((property) => property.slice(3).map((value) => this.timeValue(property, value))),
        recurrenceId: recurrenceIdProperty === undefined ? undefined : this.timeValue(recurrenceIdProperty, recurrenceIdProperty[3]),
        thisAndFuture: String(recurrenceIdProperty?.[1].range ?? "").toUpperCase() === "THISANDFUTURE",
      };
    } catch (error) {
      if (!(error instanceof UnreadableValue)) throw error;
      const code = error.message.startsWith("unknown TZID") ? "UNKNOWN_TZID" : "UNREADABLE_COMPONENT";
      this.diagnostics.push({ code, message: `${error.message}; the event was left out`, uid, line });
      return undefined;
    }
  }

  private optionalTime(properties: JCalProperty[], name: string): IcsTime | undefined {
    const property = properties.find((candidate) => candidate[0] === name);
    return property === undefined ? undefined : this.timeValue(property, property[3]);
  }

  private rdateValues(property: JCalProperty): IcsRdate[] {
    return property.slice(3).map((value) => {
      if (property[2] !== "period") return { start: this.timeValue(property, value) };
      if (!Array.isArray(value) || value.length !== 2) throw new UnreadableValue("RDATE period is malformed");
      const [startText, endText] = value as [unknown, unknown];
      const start = this.dateTime(property, startText);
      if (typeof endText === "string" && /^[+-]?P/.test(endText)) return { start, duration: parseDuration(endText) };
      return { start, end: this.dateTime(property, endText) };
    });
  }

  /** A DATE or DATE-TIME value of a property, with the property's TZID. */
  timeValue(property: JCalProperty, value: unknown): IcsTime {
    if (property[2] === "date") return { kind: "date", local: parseDate(value, property[0]) };
    if (property[2] === "date-time") return this.dateTime(property, value);
    throw new UnreadableValue(`${property[0].toUpperCase()} has unsupported value type ${property[2]}`);
  }

  private dateTime(property: JCalProperty, value: unknown): IcsTime {
    const { local, utc } = parseDateTime(value, property[0]);
    if (utc) return { kind: "date-time", local, zone: UTC_ZONE };
    const tzid = property[1].tzid;
    if (tzid === undefined) return { kind: "date-time", local, zone: undefined };
    const zone = this.zone(String(tzid));
    if (zone === undefined) throw new UnreadableValue(`unknown TZID "${String(tzid)}" on ${property[0].toUpperCase()}`);
    return { kind: "date-time", local, zone };
  }

  private instantValue(property: JCalProperty): number | undefined {
    try {
      const time = this.timeValue(property, property[3]);
      return time.kind === "date-time" && time.zone === UTC_ZONE ? time.local : undefined;
    } catch {
      return undefined;
    }
  }
}

function firstValue(component: JCalComponent, name: string): unknown {
  return component[1].find((property) => property[0] === name)?.[3];
}

function textValue(component: JCalComponent, name: string): string {
  const value = firstValue(component, name);
  return typeof value === "string" ? value : "";
}

function statusValue(text: string): EventStatusText {
  const upper = text.toUpperCase();
  return upper === "CONFIRMED" || upper === "TENTATIVE" || upper === "CANCELLED" ? upper : "";
}

function recurValues(properties: JCalProperty[], name: string): RecurValue[] {
  return properties
    .filter((property) => property[0] === name)
    .flatMap((property) => property.slice(3))
    .filter((value): value is RecurValue => typeof value === "object" && value !== null);
}

/** A stable UID for a component without one: a digest of its own lines. */
function derivedUid(properties: JCalProperty[]): string {
  const digest = createHash("sha256").update(JSON.stringify(properties)).digest("base64url");
  return `calq-derived-${digest.slice(0, 22)}`;
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z?)$/;

function parseDate(value: unknown, name: string): number {
  const match = typeof value === "string" ? DATE_PATTERN.exec(value) : null;
  if (match === null || !isValidDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new UnreadableValue(`${name.toUpperCase()} is not a valid date`);
  }
  return civil(Number(match[1]), Number(match[2]), Number(match[3]));
}

function parseDateTime(value: unknown, name: string): { local: number; utc: boolean } {
  const match = typeof value === "string" ? DATE_TIME_PATTERN.exec(value) : null;
  if (match === null) throw new UnreadableValue(`${name.toUpperCase()} is not a valid date-time`);
  const [, year, month, day, hour, minute, second, z] = match;
  // Second 60 (a leap second) is read as the next second, as RFC 5545 allows.
  if (!isValidDate(Number(year), Number(month), Number(day)) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) {
    throw new UnreadableValue(`${name.toUpperCase()} is not a valid date-time`);
  }
  return {
    local: civil(Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second)),
    utc: z === "Z",
  };
}

const DURATION_PATTERN = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Parses an RFC 5545 duration; weeks and days are nominal, the rest exact. */
export function parseDuration(text: string): IcsDuration {
  const match = DURATION_PATTERN.exec(text);
  if (match === null || text === "P" || text.endsWith("T")) {
    throw new UnreadableValue(`DURATION "${text.slice(0, 40)}" is not a valid duration`);
  }
  const [, sign, weeks, days, hours, minutes, seconds] = match;
  const direction = sign === "-" ? -1 : 1;
  return {
    days: direction * (Number(weeks ?? 0) * 7 + Number(days ?? 0)),
    exactMs: direction * ((Number(hours ?? 0) * 60 + Number(minutes ?? 0)) * 60 + Number(seconds ?? 0)) * 1000,
  };
}

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
import { DAY_MS } from "../time/units.js";
import { UTC_ZONE, type ZoneRules } from "../time/zone-rules.js";
import { ianaZone, windowsZone } from "../time/zones.js";
import { type Availability, readAvailability } from "./availability.js";
import { type Diagnostic, DiagnosticLog, type DiagnosticPlace, type DiagnosticSink, diagnostic } from "./diagnostic.js";
import { aboutOf, type EventAbout } from "./event-about.js";
import { type ComponentBounds, type ContentLine, type FeedText, type LexedComponent, lexFeed, uidOf } from "./feed-lexer.js";
import { mendEventLine } from "./lenient-values.js";
import { ownString } from "./own-string.js";
import { producerTzid } from "./tzid.js";
import { UnreadableTimezone, vtimezoneZone } from "./vtimezone-zone.js";

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
  /** The DESCRIPTION, as written (empty when absent). */
  readonly description: string;
  /** What only a look at this one event needs (GetEvent); undefined when the event has none of it. */
  readonly about?: EventAbout;
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
  /** In feed order; a build hands the list over to expansion, which empties it. */
  readonly events: EventComponent[];
  /** The feed's X-WR-TIMEZONE, when it names a known zone. */
  readonly declaredZone?: ZoneRules;
  readonly diagnostics: readonly Diagnostic[];
  /**
   * Diagnostics reported once per feed for a reading several events share
   * (a TZID read as floating or by a producer's form, a VTIMEZONE that could
   * not be read): each stands at the first event that met it, so which event
   * that is depends on the others.
   */
  readonly sharedReadings: number;
  /** Where each top-level component stood, when ParseOptions.bounds asked for it. */
  readonly bounds?: readonly ComponentBounds[];
  /** The feed's VAVAILABILITY components (availability.ts); absent when it has none. */
  readonly availability?: readonly Availability[];
}

/** How to read a feed. */
export interface ParseOptions {
  /** VEVENTs read at most (FEED_COMPONENTS_CAPPED past it); by default all. */
  readonly maxComponents?: number;
  /** Report where each top-level component stood (ParsedCalendar.bounds). */
  readonly bounds?: boolean;
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

/** A value of a component that has no reading; the component is left out (UNREADABLE_COMPONENT). */
class UnreadableValue extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnreadableValue";
  }
}

/**
 * Parses feed text. Throws NotICalendarError when it holds no VCALENDAR.
 * VEVENTs past the first `maxComponents` are left out with one diagnostic.
 */
export function parseCalendar(text: FeedText, options: ParseOptions = {}): ParsedCalendar {
  return runAtOnce(parseCalendarSteps(text, options));
}

/**
 * parseCalendar as steps: it yields about every 10 ms while reading
 * components. Each component is lexed apart from the others (feed-lexer.ts)
 * and mended (lenient-values.ts); ical.js types them in batches, and a batch
 * it refuses one by one, so what one component holds never costs another.
 *
 * Events are read as the lexer gives them, so that the lines and jCal of
 * each die young (holding a feed's worth of them made garbage collection a
 * third of a build, and the lines alone are three times the feed's size).
 * An event's TZID may name a VTIMEZONE that comes after it, though: a feed
 * with a VTIMEZONE after its first VEVENT is read with every VTIMEZONE first.
 */
export function* parseCalendarSteps(text: FeedText, options: ParseOptions = {}): Steps<ParsedCalendar> {
  const body = withoutByteOrderMark(text);
  // Pieces are few and short (a build reads pieces only for what a reload changed): joined for the checks alone.
  const joined = typeof body === "string" ? body : body.map((piece) => piece.text).join("");
  if (!isICalendar(joined)) throw new NotICalendarError("the feed is not iCalendar text (no BEGIN:VCALENDAR)");
  const reading = { maxComponents: options.maxComponents ?? Infinity, bounds: options.bounds === true };
  if (zonesBeforeEvents(joined)) {
    const streamed = yield* readFeed(body, reading, true);
    if (streamed !== undefined) return streamed;
  }
  const whole = yield* readFeed(body, reading, false);
  return whole!;
}

/** The text without the byte order mark some exporters put before its first line. */
function withoutByteOrderMark(text: FeedText): FeedText {
  if (typeof text === "string") return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const [first, ...rest] = text;
  if (first === undefined || first.text.charCodeAt(0) !== 0xfeff) return text;
  return [{ text: first.text.slice(1), firstLine: first.firstLine }, ...rest];
}

/**
 * Whether no BEGIN:VTIMEZONE line follows the first BEGIN:VEVENT line: a
 * scan of the text (about 2 ms for 19 MiB). Lines the lexer unfolds into
 * such a line escape it; readFeed then meets the VTIMEZONE itself and the
 * feed is read a second time (only a folded BEGIN line costs that).
 */
function zonesBeforeEvents(text: string): boolean {
  const firstEvent = /^BEGIN:VEVENT\s*$/im.exec(text);
  if (firstEvent === null) return true;
  const zone = /^BEGIN:VTIMEZONE\s*$/gim;
  zone.lastIndex = firstEvent.index;
  return !zone.test(text);
}

/**
 * Reads the feed's components. Streaming, each event is read as soon as its
 * batch is typed, and a VTIMEZONE after an event gives up (undefined: read
 * again, not streaming); otherwise every event waits until every VTIMEZONE
 * is typed.
 */
function* readFeed(
  body: FeedText,
  { maxComponents, bounds }: { readonly maxComponents: number; readonly bounds: boolean },
  streaming: boolean,
): Steps<ParsedCalendar | undefined> {
  const diagnostics = new DiagnosticLog();
  const reader = new CalendarReader(diagnostics);
  const found: ComponentBounds[] = [];
  const pacer = new Pacer();
  const events: EventComponent[] = [];
  const readEvent = (jcal: JCalComponent, component: MendedComponent) => {
    const event = reader.readEvent(jcal, component.line);
    if (event !== undefined) events.push(event);
  };
  const waiting: LexedComponent[] = [];
  let batch: MendedComponent[] = [];
  let batchLines = 0;
  const add = (component: LexedComponent) => {
    const mended = mendComponent(component, diagnostics);
    if (batch.length > 0 && batchLines + mended.lines.length > LINES_TYPED_TOGETHER) {
      typeComponents(batch, diagnostics, readEvent);
      batch = [];
      batchLines = 0;
    }
    batch.push(mended);
    batchLines += mended.lines.length;
    if (batch.length === TYPED_TOGETHER) {
      typeComponents(batch, diagnostics, readEvent);
      batch = [];
      batchLines = 0;
    }
  };
  const lexer = lexFeed(body, diagnostics, bounds ? (component) => found.push(component) : undefined);
  const availabilities: LexedComponent[] = [];
  let veventCount = 0;
  let calendarLines: readonly ContentLine[];
  for (;;) {
    if (pacer.due()) {
      yield;
      pacer.resumed();
    }
    const next = lexer.next();
    if (next.done === true) {
      calendarLines = next.value;
      break;
    }
    const component = next.value;
    if (component.name === "VTIMEZONE") {
      if (streaming && veventCount > 0) return undefined;
      typeComponents([mendComponent(component, diagnostics)], diagnostics, (jcal, zone) => reader.readTimezone(jcal, zone.line));
      continue;
    }
    if (component.name === "VAVAILABILITY") availabilities.push(component);
    if (component.name !== "VEVENT") continue;
    if (component.lines.length === 0) {
      // BEGIN:VEVENT then END:VEVENT, or the next BEGIN: nothing to read, and nothing for ical.js to type.
      diagnostics.push(diagnostic("MISSING_DTSTART", "the VEVENT is empty; it was left out", { line: component.line }));
      continue;
    }
    if (++veventCount > maxComponents) {
      if (veventCount === maxComponents + 1) {
        const message = `the feed has more than ${maxComponents} VEVENTs; this one and every later one were left out`;
        diagnostics.push(diagnostic("FEED_COMPONENTS_CAPPED", message, { line: component.line }));
      }
      continue;
    }
    if (streaming) add(component);
    else waiting.push(component);
  }
  for (const component of waiting) {
    if (pacer.due()) {
      yield;
      pacer.resumed();
    }
    add(component);
  }
  typeComponents(batch, diagnostics, readEvent);
  const declaredZone = reader.declaredZone(calendarLines.flatMap(({ text: line }) => calendarProperty(line)));
  const availability = availabilities.length === 0 ? undefined : readAvailability(availabilities, diagnostics);
  return {
    events,
    declaredZone,
    diagnostics: diagnostics.list(),
    sharedReadings: reader.sharedReadings,
    ...(bounds ? { bounds: found } : {}),
    ...(availability === undefined ? {} : { availability }),
  };
}

/** Whether the text holds an iCalendar stream at all (a BEGIN:VCALENDAR line). */
export function isICalendar(text: string): boolean {
  // Whitespace before it is read with a warning (feed-lexer.ts).
  return /^\uFEFF?[ \t]*BEGIN:VCALENDAR[ \t]*\r?$/im.test(text);
}

/** A lexed component with its VEVENT lines mended, ready for ical.js to type. */
interface MendedComponent {
  readonly name: string;
  readonly line: number;
  readonly place: DiagnosticPlace;
  readonly lines: readonly ContentLine[];
  /**
   * It holds a VCARD: ical.js types every later line of the same call by
   * vCard's rules, so it is typed in a call of its own.
   */
  readonly alone: boolean;
}

/** A VCARD's BEGIN line (the lexer left only real BEGIN and END lines). */
const VCARD = /^BEGIN:VCARD\s*$/i;

/**
 * One lexed component's lines, its VEVENT lines mended and unreadable rules
 * renamed so they cost only themselves (the lines of its VALARMs are kept as
 * written).
 */
function mendComponent(component: LexedComponent, diagnostics: DiagnosticSink): MendedComponent {
  const place = { uid: uidOf(component.lines), line: component.line };
  if (component.name !== "VEVENT") {
    const alone = component.lines.some(({ text }) => VCARD.test(text));
    return { name: component.name, line: component.line, place, lines: component.lines, alone };
  }
  const lines: ContentLine[] = [];
  let depth = 0;
  let alone = false;
  for (const content of component.lines) {
    const { text, line } = content;
    const boundary = BOUNDARY.exec(text)?.[1].toUpperCase();
    if (boundary !== undefined || depth > 0) {
      if (boundary === "BEGIN") {
        depth++;
        alone ||= VCARD.test(text);
      } else if (boundary === "END") depth--;
      lines.push(content);
      continue;
    }
    const mended = mendEventLine(text);
    for (const reading of mended.readings) diagnostics.push(diagnostic("LENIENT_VALUE", reading, place));
    for (const value of mended.dropped) {
      diagnostics.push(diagnostic("UNREADABLE_VALUE", `${value} (line ${line}) could not be read; only that value was left out`, place));
    }
    if (mended.text === undefined) continue;
    const renamed = renameUnreadableRule(mended.text);
    lines.push(renamed === text ? content : { text: renamed, line });
  }
  return { name: component.name, line: component.line, place, lines, alone };
}

/** A line that opens or closes a component. */
const BOUNDARY = /^(BEGIN|END):/i;

/**
 * Components typed by one call of ical.js: typing each alone would wrap its
 * few lines in four more. When ical.js refuses the batch, each is typed alone,
 * so what one holds never costs another.
 */
const TYPED_TOGETHER = 64;

/**
 * Lines typed by one call of ical.js at most (a component longer than this
 * is typed alone): what one call builds stays bounded however the feed
 * spreads its lines over components.
 */
const LINES_TYPED_TOGETHER = 4_096;

/** Types mended components with ical.js, handing each one's jCal to `typed`; those it cannot type are reported. */
function typeComponents(
  batch: readonly MendedComponent[],
  diagnostics: DiagnosticSink,
  typed: (jcal: JCalComponent, component: MendedComponent) => void,
): void {
  if (batch.length === 0) return;
  const alone = batch.length === 1 ? -1 : batch.findIndex((component) => component.alone);
  if (alone >= 0) {
    // In feed order: those before it together, it alone, then the rest.
    typeComponents(batch.slice(0, alone), diagnostics, typed);
    typeComponents([batch[alone]], diagnostics, typed);
    typeComponents(batch.slice(alone + 1), diagnostics, typed);
    return;
  }
  const together = batch.length === 1 ? undefined : lexComponents(batch);
  if (together !== undefined) {
    for (const [i, component] of batch.entries()) typed(together[i], component);
    return;
  }
  for (const component of batch) {
    const jcal = typeComponent(component, diagnostics);
    if (jcal !== undefined) typed(jcal, component);
  }
}

/**
 * One component to jCal. A line ical.js refuses is found and left out alone;
 * the component is left out only when it cannot be typed even then.
 */
function typeComponent(component: MendedComponent, diagnostics: DiagnosticSink): JCalComponent | undefined {
  const { name, place, lines } = component;
  const whole = lexComponents([component])?.[0];
  if (whole !== undefined) return whole;
  const kept = lines.filter(({ text, line }) => {
    if (BOUNDARY.test(text) || lexComponents([{ name, lines: [{ text, line }] }]) !== undefined) return true;
    diagnostics.push(diagnostic("UNREADABLE_LINE", `line ${line} could not be read; only that line was left out`, place));
    return false;
  });
  const retried = lexComponents([{ name, lines: kept }])?.[0];
  if (retried !== undefined) return retried;
  diagnostics.push(diagnostic("UNREADABLE_COMPONENT", `the ${name} could not be read; it was left out`, place));
  return undefined;
}

/**
 * ical.js's jCal for components of the given lines, in order; undefined when
 * it refuses any, or when what it read is not one VCALENDAR holding exactly
 * those components.
 */
function lexComponents(components: readonly Pick<MendedComponent, "name" | "lines">[]): JCalComponent[] | undefined {
  const text: string[] = ["BEGIN:VCALENDAR"];
  for (const { name, lines } of components) {
    text.push(`BEGIN:${name}`);
    for (const { text: line } of lines) text.push(line);
    text.push(`END:${name}`);
  }
  text.push("END:VCALENDAR", "");
  let read: unknown;
  try {
    read = ICAL.parse(text.join("\r\n"));
  } catch {
    return undefined;
  }
  const calendar = read as JCalComponent;
  if (!Array.isArray(calendar) || calendar[0] !== "vcalendar" || !Array.isArray(calendar[2])) return undefined;
  const parts = calendar[2];
  if (parts.length !== components.length || parts.some((part, i) => part[0] !== components[i].name.toLowerCase())) return undefined;
  return parts;
}

/** The calendar's own property of one line, when calq reads it (X-WR-TIMEZONE) and ical.js can. */
function calendarProperty(line: string): JCalProperty[] {
  if (!/^X-WR-TIMEZONE[;:]/i.test(line)) return [];
  try {
    return (ICAL.parse(`BEGIN:VCALENDAR\r\n${line}\r\nEND:VCALENDAR\r\n`) as unknown as JCalComponent)[1];
  } catch {
    return [];
  }
}

/** The property names an unreadable RRULE or EXRULE is renamed to. */
const UNREADABLE_RULE = { rrule: "X-CALQ-UNREADABLE-RRULE", exrule: "X-CALQ-UNREADABLE-EXRULE" } as const;

/**
 * The line with an RRULE or EXRULE that cannot be read renamed to an X-
 * property. One bad rule would otherwise fail the component in ical.js
 * (FREQ=FORTNIGHTLY, BYMONTH=13) or be silently changed by it (INTERVAL=0
 * read as 1, BYSETPOS=20260229T120000Z read as a number); renamed, it costs
 * only itself, its event is still read, and the reader reports it.
 */
function renameUnreadableRule(line: string): string {
  const rule = /^(RRULE|EXRULE)(?=[;:])/i.exec(line);
  if (rule === null || ruleReadable(line)) return line;
  const name = rule[1].toLowerCase() as keyof typeof UNREADABLE_RULE;
  return UNREADABLE_RULE[name] + line.slice(rule[1].length);
}

/** The range of each numeric BYxxx part (RFC 5545 §3.3.10); a value outside it has no reading. */
const BY_RANGES: Readonly<Record<string, readonly [number, number, boolean]>> = {
  BYSECOND: [0, 60, false],
  BYMINUTE: [0, 59, false],
  BYHOUR: [0, 23, false],
  BYMONTHDAY: [1, 31, true],
  BYYEARDAY: [1, 366, true],
  BYWEEKNO: [1, 53, true],
  BYMONTH: [1, 12, false],
  BYSETPOS: [1, 366, true],
};

/** Whether ical.js reads a rule line as written: it lexes alone, no INTERVAL=0, and every BYxxx number is in range. */
function ruleReadable(logical: string): boolean {
  if (/[:;]INTERVAL=0*(;|$)/i.test(logical)) return false;
  const value = logical.slice(logical.indexOf(":") + 1);
  for (const part of value.split(";")) {
    const [key, list] = part.split("=");
    const range = BY_RANGES[key?.toUpperCase() ?? ""];
    if (range === undefined || list === undefined) continue;
    const [low, high, signed] = range;
    for (const item of list.split(",")) {
      if (!/^[+-]?\d{1,3}$/.test(item)) return false;
      const number = Number(item);
      const size = Math.abs(number);
      if ((!signed && number < 0) || size < low || size > high) return false;
    }
  }
  try {
    ICAL.parse(`BEGIN:VEVENT\r\n${logical}\r\nEND:VEVENT\r\n`);
    return true;
  } catch {
    return false;
  }
}

/** Reads components of one feed, resolving TZIDs against its VTIMEZONEs. */
class CalendarReader {
  private readonly timezones = new Map<string, { component: JCalComponent; line: number }>();
  /** Each TZID's zone once resolved (undefined: floating), so each reading is reported once per feed. */
  private readonly resolved = new Map<string, ZoneRules | undefined>();
  /** The component being read, for diagnostics. */
  private place: DiagnosticPlace = {};
  /** Diagnostics reported once per feed at the first event that met them (ParsedCalendar.sharedReadings). */
  sharedReadings = 0;

  constructor(private readonly diagnostics: DiagnosticSink) {}

  /**
   * Keeps a VTIMEZONE for its TZID. Its rules are computed only when an
   * event uses that TZID and no IANA or Windows zone has the name (those
   * come first, so a VTIMEZONE that cannot be read costs nothing then).
   */
  readTimezone(component: JCalComponent, line: number): void {
    const tzid = firstValue(component, "tzid");
    if (typeof tzid === "string") this.timezones.set(tzid, { component, line });
  }

  /** The zone of the feed's own VTIMEZONE for a TZID; undefined, with a warning, when it cannot be read. */
  private definedZone(tzid: string): ZoneRules | undefined {
    const defined = this.timezones.get(tzid);
    if (defined === undefined) return undefined;
    try {
      return vtimezoneZone(tzid, defined.component);
    } catch (error) {
      if (!(error instanceof UnreadableTimezone)) throw error;
      this.sharedReadings++;
      this.diagnostics.push(
        diagnostic(error.code, `VTIMEZONE ${tzid} could not be read (${error.message}); its TZID was read without it`, {
          line: defined.line,
        }),
      );
      return undefined;
    }
  }

  declaredZone(properties: readonly JCalProperty[]): ZoneRules | undefined {
    const name = properties.find((property) => property[0] === "x-wr-timezone")?.[3];
    if (typeof name !== "string" || name.trim() === "") return undefined;
    // The calendar's zone is shown to callers, who may send it back: an IANA
    // or Windows name only, never a zone the feed defines for itself.
    const zone = ianaZone(name.trim()) ?? windowsZone(name.trim());
    if (zone === undefined) {
      this.diagnostics.push(diagnostic("UNKNOWN_CALENDAR_ZONE", `X-WR-TIMEZONE "${name}" is not a known zone; it was ignored`));
    }
    return zone;
  }

  /**
   * IANA first, then Windows names, then the feed's own VTIMEZONE, then the
   * producer forms of tzid.ts; a TZID none of them knows is read as floating
   * (in the calendar's zone), with a warning, rather than losing the event.
   */
  zone(written: string): ZoneRules | undefined {
    if (this.resolved.has(written)) return this.resolved.get(written);
    // Zones keep their name, some for the process's life (time/zones.ts caches them).
    const tzid = ownString(written);
    let zone = ianaZone(tzid) ?? windowsZone(tzid) ?? this.definedZone(tzid);
    if (zone === undefined) {
      const reading = producerTzid(tzid);
      zone = reading?.zone;
      this.sharedReadings++;
      this.diagnostics.push(
        reading === undefined
          ? diagnostic(
              "UNKNOWN_TZID",
              `TZID "${tzid}" names no zone calq knows; its times were read as floating, in the calendar's zone`,
              this.place,
            )
          : diagnostic("LENIENT_VALUE", reading.rule, this.place),
      );
    }
    this.resolved.set(tzid, zone);
    return zone;
  }

  readEvent(component: JCalComponent, line: number | undefined): EventComponent | undefined {
    if (component[0] !== "vevent") return undefined;
    const properties = component[1];
    const uidValue = firstValue(component, "uid");
    let uid = typeof uidValue === "string" ? ownString(uidValue) : "";
    if (uid === "") {
      uid = derivedUid(properties);
      this.diagnostics.push(diagnostic("MISSING_UID", "VEVENT has no UID; one was derived from its content", { uid, line }));
    }
    this.place = { uid, line };
    const unreadable = (name: string) => properties.filter((property) => property[0] === name.toLowerCase()).length;
    if (unreadable(UNREADABLE_RULE.exrule) > 0) {
      // Dropping an exclusion would add dates the feed excludes: leave the event out instead.
      this.diagnostics.push(diagnostic("UNREADABLE_RRULE", "an EXRULE could not be read; the event was left out", this.place));
      return undefined;
    }
    if (unreadable(UNREADABLE_RULE.rrule) > 0) {
      this.diagnostics.push(
        diagnostic(
          "UNREADABLE_RRULE",
          "an RRULE could not be read (an unknown FREQ, a value out of range, INTERVAL=0); the rule was dropped and the event keeps its other dates",
          this.place,
        ),
      );
    }
    try {
      const startProperty = properties.find((property) => property[0] === "dtstart");
      if (startProperty === undefined) {
        this.diagnostics.push(diagnostic("MISSING_DTSTART", "VEVENT has no DTSTART; it was left out", this.place));
        return undefined;
      }
      const recurrenceIdProperty = properties.find((property) => property[0] === "recurrence-id");
      const durationValue = firstValue(component, "duration");
      const lastModified = properties.find((property) => property[0] === "last-modified");
      const sequence = firstValue(component, "sequence");
      const written = this.startAndEnd(
        this.timeValue(startProperty, startProperty[3]),
        this.optionalTime(properties, "dtend"),
        durationValue === undefined ? undefined : parseDuration(String(durationValue)),
      );
      const description = textValue(component, "description");
      const location = textValue(component, "location");
      return {
        uid,
        line: line ?? 0,
        summary: textValue(component, "summary"),
        location,
        description,
        about: aboutOf(properties, description, location),
        status: statusValue(textValue(component, "status")),
        transparent: textValue(component, "transp").toUpperCase() === "TRANSPARENT",
        lastModified: lastModified === undefined ? undefined : this.instantValue(lastModified),
        sequence: Number.isInteger(sequence) ? (sequence as number) : 0,
        start: written.start,
        end: written.end,
        duration: written.duration,
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
      this.diagnostics.push(diagnostic("UNREADABLE_COMPONENT", `${error.message}; the event was left out`, this.place));
      return undefined;
    }
  }

  /**
   * DTSTART with DTEND or DURATION, of whatever kinds the producer wrote,
   * brought to one reading (docs/imperfect-feeds.md, the value-type and zone rows), each reported:
   * - a DATE start with a DATE-TIME end is all-day, up to the end's date
   *   (the day after it when the end is not at midnight);
   * - a DATE-TIME start with a DATE end ends at the start of that date, in
   *   the start's zone;
   * - a floating value beside a zoned one is read in the other's zone;
   * - an all-day event whose DTEND equals DTSTART lasts its day;
   * - an all-day event with a DURATION in hours and below lasts whole days:
   *   the duration rounded up, at least one (PT86400S is one day, PT1H is
   *   the start's day).
   */
  private startAndEnd(
    start: IcsTime,
    end: IcsTime | undefined,
    duration: IcsDuration | undefined,
  ): { start: IcsTime; end?: IcsTime; duration?: IcsDuration } {
    const lenient = (reading: string) => this.diagnostics.push(diagnostic("LENIENT_VALUE", reading, this.place));
    if (end !== undefined) {
      if (start.kind === "date" && end.kind === "date-time") {
        const day = Math.floor(end.local / DAY_MS) * DAY_MS;
        end = { kind: "date", local: day === end.local ? day : day + DAY_MS };
        lenient("DTEND is a date-time while DTSTART is a date; the event was read as all-day, up to DTEND's date");
      } else if (start.kind === "date-time" && end.kind === "date") {
        end = { kind: "date-time", local: end.local, zone: start.zone };
        lenient("DTEND is a date while DTSTART is a date-time; the event was read as ending at the start of that date, in DTSTART's zone");
      } else if (start.kind === "date-time" && end.kind === "date-time" && (start.zone === undefined) !== (end.zone === undefined)) {
        if (start.zone === undefined) start = { ...start, zone: end.zone };
        else end = { ...end, zone: start.zone };
        lenient("one of DTSTART and DTEND is floating and the other is not; the floating one was read in the other's zone");
      }
      if (start.kind === "date" && end.local === start.local) {
        lenient("an all-day event's DTEND equals its DTSTART; it was read as lasting its day");
        end = { kind: "date", local: start.local + DAY_MS };
      }
      return { start, end };
    }
    if (duration !== undefined && start.kind === "date" && duration.exactMs !== 0) {
      const days = Math.max(1, duration.days + Math.ceil(duration.exactMs / DAY_MS));
      lenient(`an all-day event's DURATION is not whole days; it was read as ${days} day${days === 1 ? "" : "s"}`);
      return { start, duration: { days, exactMs: 0 } };
    }
    return { start, duration };
  }

  private optionalTime(properties: JCalProperty[], name: string): IcsTime | undefined {
    const property = properties.find((candidate) => candidate[0] === name);
    return property === undefined ? undefined : this.timeValue(property, property[3]);
  }

  /** The values of one RDATE line; one that cannot be read costs only itself (UNREADABLE_VALUE), never the event. */
  private rdateValues(property: JCalProperty): IcsRdate[] {
    return property.slice(3).flatMap((value): IcsRdate[] => {
      try {
        return [this.rdateValue(property, value)];
      } catch (error) {
        if (!(error instanceof UnreadableValue)) throw error;
        this.diagnostics.push(diagnostic("UNREADABLE_VALUE", `${error.message}; only that RDATE was left out`, this.place));
        return [];
      }
    });
  }

  private rdateValue(property: JCalProperty, value: unknown): IcsRdate {
    if (property[2] !== "period") return { start: this.timeValue(property, value) };
    if (!Array.isArray(value) || value.length !== 2) throw new UnreadableValue("an RDATE period is malformed");
    const [startText, endText] = value as [unknown, unknown];
    const start = this.dateTime(property, startText);
    if (typeof endText === "string" && /^[+-]?P/.test(endText)) return { start, duration: parseDuration(endText) };
    return { start, end: this.dateTime(property, endText) };
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
    return { kind: "date-time", local, zone: this.zone(String(tzid)) };
  }

  private instantValue(property: JCalProperty): number | undefined {
    try {
      const time = this.timeValue(property, property[3]);
      return time.kind === "date-time" && time.zone === UTC_ZONE ? time.local : undefined;
    } catch (error) {
      if (!(error instanceof UnreadableValue)) throw error;
      return undefined;
    }
  }
}

function firstValue(component: JCalComponent, name: string): unknown {
  return component[1].find((property) => property[0] === name)?.[3];
}

/** A text property's value, as a string of its own (own-string.ts): events keep these. */
function textValue(component: JCalComponent, name: string): string {
  const value = firstValue(component, name);
  return typeof value === "string" ? ownString(value) : "";
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

/** The number of the `count` ASCII digits of `text` from `at`, or -1 when one is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** A jCal date, "2026-06-17", as its local midnight; NaN when it is not one or no such day exists. */
function readDate(text: string): number {
  if (text.length < 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return Number.NaN;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  return year < 0 || month < 0 || day < 0 || !isValidDate(year, month, day) ? Number.NaN : civil(year, month, day);
}

function parseDate(value: unknown, name: string): number {
  const local = typeof value === "string" && value.length === 10 ? readDate(value) : Number.NaN;
  if (Number.isNaN(local)) throw new UnreadableValue(`${name.toUpperCase()} is not a valid date`);
  return local;
}

/** A jCal date-time, "2026-06-17T15:00:00" with an optional "Z"; second 60 (a leap second) is read as the next second, as RFC 5545 allows. */
function parseDateTime(value: unknown, name: string): { local: number; utc: boolean } {
  if (typeof value === "string" && (value.length === 19 || (value.length === 20 && value.charCodeAt(19) === 90))) {
    const day = readDate(value);
    const hour = digits(value, 11, 2);
    const minute = digits(value, 14, 2);
    const second = digits(value, 17, 2);
    if (
      !Number.isNaN(day) &&
      value.charCodeAt(10) === 84 &&
      value.charCodeAt(13) === 58 &&
      value.charCodeAt(16) === 58 &&
      hour >= 0 &&
      hour <= 23 &&
      minute >= 0 &&
      minute <= 59 &&
      second >= 0 &&
      second <= 60
    ) {
      return { local: day + ((hour * 60 + minute) * 60 + second) * 1000, utc: value.length === 20 };
    }
  }
  throw new UnreadableValue(`${name.toUpperCase()} is not a valid date-time`);
}

/** About 11,000 years: longer than any instant calq can serve (years 0001 to 9999). */
const MAX_DURATION_DAYS = 4_000_000;

const DURATION_PATTERN = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Parses an RFC 5545 duration; weeks and days are nominal, the rest exact. */
export function parseDuration(text: string): IcsDuration {
  const match = DURATION_PATTERN.exec(text);
  if (match === null || text === "P" || text.endsWith("T")) {
    throw new UnreadableValue(`DURATION "${text.slice(0, 40)}" is not a valid duration`);
  }
  const [, sign, weeks, days, hours, minutes, seconds] = match;
  const direction = sign === "-" ? -1 : 1;
  // Capped so the arithmetic stays exact; any end this far out is clamped to the end of 9999 later.
  return {
    days: direction * Math.min(MAX_DURATION_DAYS, Number(weeks ?? 0) * 7 + Number(days ?? 0)),
    exactMs:
      direction *
      Math.min(MAX_DURATION_DAYS * DAY_MS, ((Number(hours ?? 0) * 60 + Number(minutes ?? 0)) * 60 + Number(seconds ?? 0)) * 1000),
  };
}

/**
 * Producer slips in the values calq reads, each mended to its one obvious
 * reading before ical.js types the value (docs/imperfect-feeds.md, the LENIENT_VALUE rows; and the
 * slips of docs/imperfect-feeds.md's later rows: durations as ISO 8601
 * writes them, a date with a Z, an empty parameter). Every
 * reading is one that Google Calendar, Thunderbird and python-icalendar
 * share; each is reported as a LENIENT_VALUE warning naming it. What has no
 * reading (a DTSTART of "Next Year", an EXDATE of 30 February) is left to
 * the reader, which reports it as an error.
 */
import { isValidDate } from "../time/civil.js";

/** A content line after mending: its new text (undefined: drop the line), and what was done. */
export interface MendedLine {
  readonly text: string | undefined;
  /** The readings applied, for LENIENT_VALUE warnings. */
  readonly readings: readonly string[];
  /** Values that had no reading and were dropped, for UNREADABLE_VALUE errors. */
  readonly dropped: readonly string[];
}

/** Properties whose values are dates or date-times. */
const TIME_PROPERTIES = new Set(["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"]);
/** Of those, the ones holding a list; a bad value in a list costs only itself. */
const LIST_PROPERTIES = new Set(["EXDATE", "RDATE"]);

const DATE = /^\d{8}$/;
/** A date with a Z, as Google writes some RDATEs (`20131210Z`). */
const DATE_WITH_Z = /^\d{8}Z$/;
const DATE_TIME = /^\d{8}T\d{6}Z?$/;
const DURATION = /^[+-]?P(?:\d+W|(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+S)?)?)$/;

/** The properties a line may be mended in; any other line is read as written. */
const MENDED_PROPERTIES = new Set([...TIME_PROPERTIES, "DURATION", "RRULE", "EXRULE"]);
const NAME = /^[A-Za-z0-9-]+/;
const NONE: readonly string[] = [];
/**
 * A start, end or recurrence id as nearly every producer writes it: one
 * date-time, UTC or with a plain TZID, or one date with VALUE=DATE. Such a
 * line has nothing to mend once its day is checked (a DTEND on 30 February is
 * dropped below), so it skips the general path.
 */
const PLAIN_TIME = /^(?:DTSTART|DTEND|RECURRENCE-ID)(?:(?:;TZID=[^;:"]*)?:\d{8}T\d{6}Z?|;VALUE=DATE:\d{8})$/;

/** Mends one content line of a VEVENT (not of its VALARMs). */
export function mendEventLine(text: string): MendedLine {
  if (PLAIN_TIME.test(text) && validDay(text.slice(text.lastIndexOf(":") + 1))) return { text, readings: NONE, dropped: NONE };
  // Most lines (SUMMARY, DESCRIPTION, UID, ...) have nothing to mend: they are not even split.
  const lineName = NAME.exec(text)?.[0];
  if (lineName === undefined || !MENDED_PROPERTIES.has(lineName.toUpperCase())) return { text, readings: NONE, dropped: NONE };
  const split = splitLine(text);
  if (split === undefined) return { text, readings: NONE, dropped: NONE };
  const { name, value } = split;
  let { params } = split;
  const readings: string[] = [];
  const dropped: string[] = [];
  const upper = name.toUpperCase();
  let mended = value;
  if (/\s$/.test(mended) && (TIME_PROPERTIES.has(upper) || upper === "DURATION" || upper === "RRULE" || upper === "EXRULE")) {
    mended = mended.trimEnd();
    readings.push(`trailing whitespace after ${upper}'s value was ignored`);
  }
  if (upper === "DURATION" && !isRfcDuration(mended)) {
    const read = lenientDuration(mended);
    if (read !== undefined) {
      readings.push(durationReading(mended, read));
      mended = read;
    }
  }
  if (upper === "RRULE" || upper === "EXRULE") {
    const rule = mendRule(mended);
    readings.push(...rule.readings.map((reading) => `${upper}: ${reading}`));
    mended = rule.value;
  }
  if (TIME_PROPERTIES.has(upper)) {
    const valueType = /;VALUE=([^;:]*)/i.exec(params)?.[1].toUpperCase();
    let values = mended === "" ? [] : mended.split(",").map((part) => part.trim());
    let datesWithZ = 0;
    values = values.map((part) => {
      if (DATE_WITH_Z.test(part) && (valueType === undefined || valueType === "DATE")) {
        datesWithZ++;
        readings.push(`${upper}:${part} is a date with a Z; it was read as the date ${part.slice(0, 8)}`);
        return part.slice(0, 8);
      }
      const period = /^([^/]*)\/(.*)$/.exec(part);
      if (period !== null && !DATE_TIME.test(period[2]) && !isRfcDuration(period[2])) {
        const read = lenientDuration(period[2]);
        if (read !== undefined) {
          readings.push(`${upper}: ${durationReading(period[2], read)}`);
          return `${period[1]}/${read}`;
        }
      }
      return part;
    });
    if (LIST_PROPERTIES.has(upper)) {
      const readable = values.filter((part) => readableTime(part, valueType));
      for (const part of values) if (!readableTime(part, valueType)) dropped.push(`${upper} value "${part.slice(0, 40)}"`);
      values = readable;
      if (values.length === 0) {
        if (dropped.length === 0) readings.push(`an empty ${upper} was ignored`);
        return { text: undefined, readings, dropped };
      }
    } else if (upper === "DTEND" || upper === "DUE") {
      if (values.length !== 1 || !readableTime(values[0], valueType)) {
        readings.push(`${upper} "${mended.slice(0, 40)}" is not a date or date-time; the event was read without it`);
        return { text: undefined, readings, dropped };
      }
    }
    if (valueType === undefined && values.length > 0 && values.every((part) => DATE.test(part))) {
      params = `${params.replace(/;TZID=(?:"[^"]*"|[^;:]*)/i, "")};VALUE=DATE`;
      // A date with a Z was reported as such: its missing VALUE=DATE is the same slip.
      if (datesWithZ < values.length) readings.push(`${upper}:${values[0]} has no VALUE=DATE; it was read as a date`);
    } else if (upper === "RDATE" && valueType === undefined && values.some((part) => part.includes("/"))) {
      params = `${params};VALUE=PERIOD`;
      readings.push("an RDATE period without VALUE=PERIOD was read as a period");
    }
    mended = values.join(",");
  }
  if (mended === value && params === split.params) return { text, readings, dropped };
  return { text: `${name}${params}:${mended}`, readings, dropped };
}

/** Whether a date, date-time or period value can be read (the reader then checks the calendar). */
function readableTime(value: string, valueType: string | undefined): boolean {
  if (valueType === "PERIOD" || value.includes("/")) {
    const [start, end, more] = value.split("/");
    return (
      DATE_TIME.test(start) &&
      validDay(start) &&
      end !== undefined &&
      more === undefined &&
      ((DATE_TIME.test(end) && validDay(end)) || isRfcDuration(end))
    );
  }
  return (DATE.test(value) || DATE_TIME.test(value)) && validDay(value);
}

function validDay(value: string): boolean {
  return isValidDate(Number(value.slice(0, 4)), Number(value.slice(4, 6)), Number(value.slice(6, 8)));
}

/** Whether a duration is written as RFC 5545 §3.3.6 has it (hours, minutes and seconds need not be contiguous). */
export function isRfcDuration(text: string): boolean {
  return DURATION.test(text) && !/^[+-]?PT?$/.test(text) && !text.endsWith("T");
}

/** The units of a duration in the order RFC 5545 writes them. */
const DURATION_UNITS = "WDHMS";

/**
 * The RFC 5545 form of a duration written the way some producers and
 * ISO 8601 do, undefined when it has no one reading (docs/imperfect-feeds.md):
 * - weeks after the T, or beside days and times (`PT1W`, `P1W2D`): weeks
 *   are seven nominal days, as in `P1W`;
 * - hours or seconds without a T (`P1H`, `P1DT2H` needs none), lower-case
 *   letters, a T with nothing after it (`P1DT`).
 * Not read: minutes without a T (`P30M`, months in ISO 8601), years,
 * fractions, a unit twice or out of order, no amount at all.
 */
export function lenientDuration(written: string): string | undefined {
  const text = written.toUpperCase();
  const head = /^([+-]?)P/.exec(text);
  if (head === null) return undefined;
  const amounts = new Map<string, bigint>();
  let afterT = false;
  let rank = -1;
  for (let at = head[0].length; at < text.length; ) {
    if (text[at] === "T" && !afterT) {
      afterT = true;
      at++;
      continue;
    }
    const part = /^(\d+)([WDHMS])/.exec(text.slice(at, at + 24));
    if (part === null) return undefined;
    const unit = part[2];
    if ((unit === "M" && !afterT) || DURATION_UNITS.indexOf(unit) <= rank) return undefined;
    rank = DURATION_UNITS.indexOf(unit);
    amounts.set(unit, BigInt(part[1]));
    at += part[0].length;
  }
  if (amounts.size === 0) return undefined;
  const weeks = amounts.get("W");
  const days = amounts.get("D");
  const time = ["H", "M", "S"].filter((unit) => amounts.has(unit)).map((unit) => `${amounts.get(unit)}${unit}`);
  if (weeks !== undefined && days === undefined && time.length === 0) return `${head[1]}P${weeks}W`;
  const allDays = weeks === undefined && days === undefined ? "" : `${(weeks ?? 0n) * 7n + (days ?? 0n)}D`;
  return `${head[1]}P${allDays}${time.length === 0 ? "" : `T${time.join("")}`}`;
}

function durationReading(written: string, read: string): string {
  return `the duration "${written.slice(0, 40)}" is not written as RFC 5545 has it; it was read as ${read}`;
}

/**
 * A content line with its empty parameters left out (`DTSTART;;VALUE=DATE:`,
 * `DTSTART;:`), or undefined when it has none.
 */
export function withoutEmptyParameters(text: string): string | undefined {
  const split = splitLine(text);
  if (split === undefined || !split.params.startsWith(";")) return undefined;
  const params: string[] = [];
  let current = "";
  let quoted = false;
  for (const char of split.params.slice(1)) {
    if (char === '"') quoted = !quoted;
    if (char === ";" && !quoted) {
      params.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  params.push(current);
  const kept = params.filter((param) => param.trim() !== "");
  if (kept.length === params.length) return undefined;
  return `${split.name}${kept.map((param) => `;${param}`).join("")}:${split.value}`;
}

/** Spaces inside a rule's lists (Microsoft CDO writes BYDAY=MO, TU), and COUNT=-1 beside an UNTIL. */
function mendRule(value: string): { value: string; readings: string[] } {
  const readings: string[] = [];
  let mended = value;
  if (/[,;=]\s|\s[,;=]/.test(mended)) {
    mended = mended.replace(/\s*([,;=])\s*/g, "$1");
    readings.push("spaces inside the rule were ignored");
  }
  const parts = mended.split(";");
  const count = parts.find((part) => /^COUNT=/i.test(part));
  if (count !== undefined && /^COUNT=-\d+$/i.test(count) && parts.some((part) => /^UNTIL=/i.test(part))) {
    mended = parts.filter((part) => part !== count).join(";");
    readings.push(`${count} beside UNTIL was ignored; the rule ends at UNTIL`);
  }
  return { value: mended, readings };
}

/** A content line's name, parameters (with their leading `;`) and value; quoted parameter values may hold `:`. */
export function splitLine(text: string): { name: string; params: string; value: string } | undefined {
  const name = /^[A-Za-z0-9-]+/.exec(text)?.[0];
  if (name === undefined) return undefined;
  let i = name.length;
  let quoted = false;
  for (; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (char === ":" && !quoted) break;
  }
  if (i >= text.length) return undefined;
  return { name, params: text.slice(name.length, i), value: text.slice(i + 1) };
}

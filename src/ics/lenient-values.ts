/**
 * Producer slips in the values calq reads, each mended to its one obvious
 * reading before ical.js types the value (issue 9, cases 1 and 6). Every
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
  if (upper === "RRULE" || upper === "EXRULE") {
    const rule = mendRule(mended);
    readings.push(...rule.readings.map((reading) => `${upper}: ${reading}`));
    mended = rule.value;
  }
  if (TIME_PROPERTIES.has(upper)) {
    const valueType = /;VALUE=([^;:]*)/i.exec(params)?.[1].toUpperCase();
    let values = mended === "" ? [] : mended.split(",").map((part) => part.trim());
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
      readings.push(`${upper}:${values[0]} has no VALUE=DATE; it was read as a date`);
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
    const [start, end] = value.split("/");
    return DATE_TIME.test(start) && validDay(start) && end !== undefined && ((DATE_TIME.test(end) && validDay(end)) || DURATION.test(end));
  }
  return (DATE.test(value) || DATE_TIME.test(value)) && validDay(value);
}

function validDay(value: string): boolean {
  return isValidDate(Number(value.slice(0, 4)), Number(value.slice(4, 6)), Number(value.slice(6, 8)));
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

/**
 * What calq could not use, or used only in part, while reading a feed. A
 * diagnostic names the component (UID) and, where known, the line of its
 * BEGIN, so an operator can find it; it never reaches a search caller.
 *
 * Every diagnostic has a severity, fixed by its code (docs/imperfect-feeds.md): a warning
 * means nothing was lost (the event is served, read by the rule the code
 * names); an error means something the feed holds is left out. `calq check`
 * exits 1 only when there is an error.
 */
import { MAX_DIAGNOSTICS_PER_CODE } from "./feed-bounds.js";

/** One thing calq could not use, or used only in part, with where it stands and a severity its code fixes. */
export interface Diagnostic {
  /** Stable UPPER_SNAKE code, e.g. END_BEFORE_START. */
  readonly code: DiagnosticCode;
  /** Fixed by the code: see SEVERITY_OF. */
  readonly severity: Severity;
  readonly message: string;
  readonly uid?: string;
  /** 1-based line of the component's BEGIN line in the feed text. */
  readonly line?: number;
}

/** "warning": kept, with a reading applied; "error": something was left out. */
export type Severity = "warning" | "error";

/** The severity of each code; a code never changes severity, so operators can alert on it. */
export const SEVERITY_OF = {
  NO_CALENDAR_ZONE: "warning",
  UNKNOWN_CALENDAR_ZONE: "warning",
  UNKNOWN_TZID: "warning",
  INVALID_UTF8: "warning",
  UNREADABLE_COMPONENT: "error",
  UNREADABLE_TIMEZONE: "warning",
  UNREADABLE_LINE: "warning",
  UNREADABLE_VALUE: "error",
  MISSING_DTSTART: "error",
  MISSING_UID: "warning",
  END_BEFORE_START: "error",
  DUPLICATE_UID: "warning",
  UNREADABLE_RRULE: "error",
  RRULE_TOO_EXPENSIVE: "error",
  RRULE_NEVER_MATCHES: "warning",
  SERIES_CAPPED: "warning",
  FEED_CAPPED: "warning",
  FEED_COMPONENTS_CAPPED: "error",
  EXPANSION_BUDGET_EXHAUSTED: "warning",
  UNSUPPORTED_VALUE: "error",
  INSTANT_OUT_OF_RANGE: "error",
  END_CLAMPED: "warning",
  LENIENT_VALUE: "warning",
  LENIENT_SYNTAX: "warning",
  TEXT_AFTER_END: "warning",
  OUTSIDE_CALENDAR: "warning",
  FEED_TRUNCATED: "error",
  RDATES_CAPPED: "error",
  EXDATES_CAPPED: "error",
  TIMEZONE_TRANSITIONS_CAPPED: "warning",
  NESTING_CAPPED: "error",
  PROPERTIES_CAPPED: "error",
  RESOURCE_UNREADABLE: "error",
} as const satisfies Record<string, Severity>;

/**
 * The codes:
 * - NO_CALENDAR_ZONE: the feed has no zone for floating times and all-day days; UTC was used.
 * - UNKNOWN_CALENDAR_ZONE: the feed's X-WR-TIMEZONE is not a zone calq knows; it was ignored.
 * - UNKNOWN_TZID: a TZID that is neither IANA, Windows, a known vendor or Outlook form, nor a VTIMEZONE; the time was read as floating (in the calendar's zone).
 * - INVALID_UTF8: some bytes are not UTF-8; they were read as U+FFFD (the line of the first is given).
 * - UNREADABLE_COMPONENT: a component could not be read at all; it was left out.
 * - UNREADABLE_TIMEZONE: a VTIMEZONE could not be read; its TZID was read as the IANA or Windows zone of that name, or as floating.
 * - UNREADABLE_LINE: one content line could not be read; only that line was left out, the component is kept.
 * - UNREADABLE_VALUE: one value (an EXDATE, an RDATE) could not be read; only that value was left out.
 * - MISSING_DTSTART: DTSTART is missing or unreadable; the component was left out.
 * - MISSING_UID: UID is missing; one was derived from the component's content.
 * - END_BEFORE_START: the end is before the start; the component was left out.
 * - DUPLICATE_UID: a second component with the same UID (and RECURRENCE-ID); the rule that chose one is named.
 * - UNREADABLE_RRULE: a recurrence rule could not be read; the series keeps its other dates.
 * - RRULE_TOO_EXPENSIVE: a recurrence rule would generate too many dates per period; it was not expanded.
 * - RRULE_NEVER_MATCHES: a recurrence rule never produces a date; the series keeps its other dates.
 * - SERIES_CAPPED: a series reached its cap of indexed occurrences; later ones are expanded per query.
 * - FEED_CAPPED: the feed reached its cap of indexed occurrences; later series are expanded per query.
 * - FEED_COMPONENTS_CAPPED: the feed has more VEVENTs than the component limit; the later ones were left out.
 * - EXPANSION_BUDGET_EXHAUSTED: the load's expansion work (feeds.expansion_work) ran out; the rest is expanded per query, with the same answers.
 * - UNSUPPORTED_VALUE: a value calq does not read (e.g. an RDATE date in a timed series); it was left out.
 * - INSTANT_OUT_OF_RANGE: a start outside the years 0001-9999; the component was left out.
 * - END_CLAMPED: an end past 9999-12-31; it was read as the end of 9999.
 * - LENIENT_VALUE: a value that breaks the RFC but has one obvious reading; the message names the reading.
 * - LENIENT_SYNTAX: a line that breaks the RFC's syntax but has one obvious reading (whitespace before BEGIN:VCALENDAR, a misspelled last END:VCALENDAR, an empty parameter); the message names the reading.
 * - TEXT_AFTER_END: text after END:VCALENDAR was ignored.
 * - OUTSIDE_CALENDAR: a component outside the first VCALENDAR (in a second one, or outside any) was read too.
 * - FEED_TRUNCATED: the feed ends mid-way; its complete components are served, marked partial.
 * - RESOURCE_UNREADABLE: a resource of a CalDAV collection could not be read (its href is in the message); the rest of the calendar is served, and the resource's last good version if there was one.
 *
 * The caps of feed-bounds.ts (docs/imperfect-feeds.md, "Bounds"), each met only by a hostile or broken feed:
 * - RDATES_CAPPED: an event lists more than 10,000 RDATE values (MAX_RDATES_PER_EVENT); the first 10,000 are kept, the rest left out.
 * - EXDATES_CAPPED: an event lists more than 10,000 EXDATE values (MAX_EXDATES_PER_EVENT); the event was left out.
 * - TIMEZONE_TRANSITIONS_CAPPED: a VTIMEZONE lists more than 2,000 transitions (MAX_TIMEZONE_TRANSITIONS); it was not used, and its TZID was read as if it were absent (IANA or Windows name, else floating).
 * - NESTING_CAPPED: a component nested more than 10 deep, VCALENDAR counted (MAX_COMPONENT_DEPTH); it was left out with everything in it, the component it stands in kept.
 * - PROPERTIES_CAPPED: a component holds more than 10,000 properties besides RDATE and EXDATE (MAX_PROPERTIES_PER_COMPONENT); a VEVENT or VTIMEZONE was left out, the VCALENDAR's later properties ignored.
 *
 * Past 1,000 diagnostics of one code (MAX_DIAGNOSTICS_PER_CODE), one more of that code says how many were not listed.
 */
export type DiagnosticCode = keyof typeof SEVERITY_OF;

/** Where a diagnostic points: the component's UID and BEGIN line, when known. */
export interface DiagnosticPlace {
  readonly uid?: string;
  readonly line?: number;
}

/** A diagnostic with the severity its code fixes. */
export function diagnostic(code: DiagnosticCode, message: string, place: DiagnosticPlace = {}): Diagnostic {
  return { code, severity: SEVERITY_OF[code], message, ...definedOnly(place) };
}

function definedOnly(place: DiagnosticPlace): DiagnosticPlace {
  const out: { uid?: string; line?: number } = {};
  if (place.uid !== undefined) out.uid = place.uid;
  if (place.line !== undefined) out.line = place.line;
  return out;
}

/** Where diagnostics are reported while a feed is read: a plain array, or a DiagnosticLog. */
export interface DiagnosticSink {
  push(...found: Diagnostic[]): unknown;
}

/**
 * The diagnostics of reading one feed, at most MAX_DIAGNOSTICS_PER_CODE of
 * each code (feed-bounds.ts): a feed of a million slips is reported by the
 * first thousand and a count, so what a build holds and hands over stays
 * bounded whatever the feed.
 */
export class DiagnosticLog implements DiagnosticSink {
  private readonly kept: Diagnostic[] = [];
  private readonly seen = new Map<DiagnosticCode, number>();

  push(...found: Diagnostic[]): void {
    for (const each of found) {
      const count = (this.seen.get(each.code) ?? 0) + 1;
      this.seen.set(each.code, count);
      if (count <= MAX_DIAGNOSTICS_PER_CODE) this.kept.push(each);
    }
  }

  /** The diagnostics kept, in report order, then one per code that went past the cap, saying how many more there were. */
  list(): Diagnostic[] {
    const over = [...this.seen].filter(([, count]) => count > MAX_DIAGNOSTICS_PER_CODE);
    return [
      ...this.kept,
      ...over.map(([code, count]) =>
        diagnostic(
          code,
          `${count - MAX_DIAGNOSTICS_PER_CODE} more ${code} diagnostics were found; only the first ${MAX_DIAGNOSTICS_PER_CODE} are listed`,
        ),
      ),
    ];
  }
}

/**
 * Diagnostics in the order a person reads the feed: by the line they name,
 * then those about the whole feed (no line: its zone, its caps, how many of
 * a code were not listed), each in the order it was reported. The order
 * depends on the feed alone, never on how a build went through it (in
 * batches, or only the components a reload changed: docs/decisions.md,
 * "Rebuilds in proportion to the change").
 */
export function inFeedOrder(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  // A stable sort: equal lines keep the order they were reported in.
  return [...diagnostics].sort((a, b) => (a.line ?? Number.POSITIVE_INFINITY) - (b.line ?? Number.POSITIVE_INFINITY) || 0);
}

/** How many diagnostics of each severity. */
export function countBySeverity(diagnostics: readonly Diagnostic[]): Record<Severity, number> {
  const counts = { warning: 0, error: 0 };
  for (const { severity } of diagnostics) counts[severity]++;
  return counts;
}

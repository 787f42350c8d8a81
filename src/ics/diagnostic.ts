/**
 * What calq could not use, or used only in part, while reading a feed. A
 * diagnostic names the component (UID) and, where known, the line of its
 * BEGIN, so an operator can find it; it never reaches a search caller.
 */
export interface Diagnostic {
  /** Stable UPPER_SNAKE code, e.g. END_BEFORE_START. */
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly uid?: string;
  /** 1-based line of the component's BEGIN line in the feed text. */
  readonly line?: number;
}

export type DiagnosticCode =
  /** The feed has no zone for floating times and all-day days; UTC was used. */
  | "NO_CALENDAR_ZONE"
  /** The feed's X-WR-TIMEZONE is not a zone calq knows. */
  | "UNKNOWN_CALENDAR_ZONE"
  /** A TZID that is neither IANA, Windows, nor defined by a VTIMEZONE. */
  | "UNKNOWN_TZID"
  /** Some bytes are not UTF-8; they were read as U+FFFD (the line of the first is given). */
  | "INVALID_UTF8"
  /** The feed's text could not be parsed as a whole; components were read one by one. */
  | "UNPARSABLE_TEXT"
  /** A component or one of its values could not be read; it was left out. */
  | "UNREADABLE_COMPONENT"
  /** DTSTART is missing; the component was left out. */
  | "MISSING_DTSTART"
  /** UID is missing; one was derived from the component's content. */
  | "MISSING_UID"
  /** The end is before the start; the component was left out. */
  | "END_BEFORE_START"
  /** A second component with the same UID (and RECURRENCE-ID); the one with the higher SEQUENCE was kept. */
  | "DUPLICATE_UID"
  /** A recurrence rule could not be read; the series keeps its other dates. */
  | "UNREADABLE_RRULE"
  /** A recurrence rule would generate too many dates per period; it was not expanded. */
  | "RRULE_TOO_EXPENSIVE"
  /** A recurrence rule never produces a date; it was not expanded. */
  | "RRULE_NEVER_MATCHES"
  /** A series reached its cap of occurrences; later ones were cut. */
  | "SERIES_CAPPED"
  /** The feed reached its cap of indexed occurrences; later series are expanded per query. */
  | "FEED_CAPPED"
  /** The feed has more VEVENTs than the component limit; the later ones were left out. */
  | "FEED_COMPONENTS_CAPPED"
  /** The feed's expansion time budget ran out; the remaining series were cut. */
  | "EXPANSION_BUDGET_EXHAUSTED"
  /** A value calq reads in part only (e.g. an RDATE date in a timed series). */
  | "UNSUPPORTED_VALUE";

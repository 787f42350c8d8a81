/**
 * The local times the service sends (`start_local`, `end_local`: RFC 3339
 * with the offset of the request's zone) taken apart for display. The
 * command never converts instants itself: the server read them in the
 * request's zone, and the CLI only lays out what it was sent.
 */

/** A local time as the tables show it. */
export interface LocalTime {
  /** "2026-11-01". */
  readonly date: string;
  /** "Sun": the English abbreviation of the date's weekday. */
  readonly weekday: string;
  /** "01:15", or "01:15:30" when there are seconds. */
  readonly time: string;
  /** "-04:00", or "Z". */
  readonly offset: string;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:\d{2}(?::\d{2})?)$/;
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The parts of "2026-11-01T01:15:00-04:00", or undefined for anything else. */
export function parseLocal(rfc3339: string): LocalTime | undefined {
  const parts = RFC3339.exec(rfc3339);
  if (parts === null) return undefined;
  const [, year, month, day, minutes, seconds, offset] = parts;
  const weekday = WEEKDAYS[new Date(Date.UTC(Number(year), Number(month) - 1, Number(day))).getUTCDay()];
  const time = `${minutes}${seconds === undefined || seconds === "00" ? "" : `:${seconds}`}`;
  return { date: `${year}-${month}-${day}`, weekday, time, offset };
}

/** "2026-11-01T01:15:00-04:00" as "2026-11-01 01:15 -04:00" (seconds only when there are some); anything else as sent. */
export function localTime(rfc3339: string): string {
  const local = parseLocal(rfc3339);
  return local === undefined ? rfc3339 : `${local.date} ${local.time} ${local.offset}`;
}

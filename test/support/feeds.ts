/**
 * Real ICS text for tests, and the engine path a search takes through it:
 * feed text → buildSnapshot → searchPage, page after page; and a data folder
 * to serve it from.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../src/config/secret.js";
import type { ExpansionLimits } from "../../src/expand/expand-calendar.js";
import type { Occurrence } from "../../src/expand/occurrence.js";
import type { MatchMode, Window } from "../../src/search/match.js";
import { type Position, searchPage } from "../../src/search/search-occurrences.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { buildSnapshot, type Snapshot } from "../../src/store/snapshot.js";

/** Joins ICS lines with CRLF inside a VCALENDAR. */
export function ics(...lines: string[]): string {
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calq//test//EN", ...lines, "END:VCALENDAR", ""].join("\r\n");
}

/**
 * A feed's own VTIMEZONE of a fixed +03:00, named `tzid`: a zone no IANA or
 * Windows name gives (`extra` lines go after its TZID). `begin` replaces the
 * BEGIN:VTIMEZONE line, to write it folded or broken.
 */
export function plusThreeZone(tzid: string, extra: readonly string[] = [], begin: readonly string[] = ["BEGIN:VTIMEZONE"]): string[] {
  return [
    ...begin,
    `TZID:${tzid}`,
    ...extra,
    "BEGIN:STANDARD",
    "DTSTART:19700101T000000",
    "TZOFFSETFROM:+0300",
    "TZOFFSETTO:+0300",
    "END:STANDARD",
    "END:VTIMEZONE",
  ];
}

/** A VTIMEZONE of a feed's own: UTC+1, with UTC+2 in summer by the EU's rules (the last Sundays of March and October). */
export function summerTimeZone(tzid: string): string[] {
  return [
    "BEGIN:VTIMEZONE",
    `TZID:${tzid}`,
    "BEGIN:STANDARD",
    "DTSTART:19701025T030000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "END:STANDARD",
    "BEGIN:DAYLIGHT",
    "DTSTART:19700329T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "END:DAYLIGHT",
    "END:VTIMEZONE",
  ];
}

/** One VEVENT's lines. */
export function vevent(...lines: string[]): string[] {
  return ["BEGIN:VEVENT", "DTSTAMP:20260901T000000Z", ...lines, "END:VEVENT"];
}

/** A feed: calendar-level lines (e.g. X-WR-TIMEZONE) and VEVENTs by their inner lines; a UID is added where missing. */
export function feed(calendarLines: readonly string[], ...events: (readonly string[])[]): string {
  return ics(
    ...calendarLines,
    ...events.flatMap((event, index) =>
      vevent(...(event.some((line) => line.startsWith("UID:")) ? [] : [`UID:event-${index}@calq.test`]), ...event),
    ),
  );
}

/** Where 2026 sits against a snapshot's materialised years: inside them, or before them (expanded on demand). */
export const anchors = [
  { name: "materialised (loaded 2026-11-29)", readAt: Date.UTC(2026, 10, 29) },
  { name: "expanded on demand (loaded 2040-01-01)", readAt: Date.UTC(2040, 0, 1) },
] as const;

/**
 * The default expansion limits at `readAt`, on a clock that stands still: the
 * expansion budget and the rule probe's time limit are measured on the wall
 * clock, so on a busy machine they would cut a build short that an idle one
 * finishes (two builds of one feed gave 389 and 5,489 occurrences). On this
 * clock they never run out, and a build gives the same snapshot anywhere.
 * Tests of those limits pass a clock of their own.
 */
export function steadyLimits(readAt: number): ExpansionLimits {
  return { ...defaultLimits(readAt), clock: () => readAt };
}

/** The snapshot `text` would give if loaded at `readAt`, on a steady clock (steadyLimits). */
export function snapshotOf(text: string, readAt: number, configuredZone?: string): Snapshot {
  return buildSnapshot(text, { calendarId: "t", configuredZone, limits: steadyLimits(readAt), readAt });
}

/** Every match of the window, following pages of `limit` until the last. */
export function searchAll(snapshot: Snapshot, window: Window, mode: MatchMode, limit = 100): Occurrence[] {
  const found: Occurrence[] = [];
  let after: Position | undefined;
  for (let pages = 0; pages < 100_000; pages++) {
    const page = searchPage(snapshot, { window, mode, limit, after });
    found.push(...page.occurrences);
    if (page.next === undefined) return found;
    after = page.next;
  }
  throw new Error("paging did not end");
}

/**
 * A data folder for `calq serve --data`: `work.ics` holding `text`, and a
 * calq.yaml where principal "an" (token "token-an") reads it and holds
 * calendar.admin, so tests can import through it.
 */
export function adminDataFolder(prefix: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, "work.ics"), text);
  writeFileSync(
    join(dir, "calq.yaml"),
    [
      "calendars:",
      "  - {id: work, source: work.ics, readers: [an]}",
      "principals:",
      `  - {id: an, primary: work, tokens: ["sha256:${sha256Hex("token-an")}"], capabilities: [calendar.admin]}`,
    ].join("\n"),
  );
  return dir;
}

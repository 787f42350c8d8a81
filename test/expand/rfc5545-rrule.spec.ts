import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import type { ExpansionLimits } from "../../src/expand/expand-calendar.js";
import { eventIdOf } from "../../src/expand/occurrence.js";
import { buildSnapshot } from "../../src/ingest/snapshot.js";
import type { Window } from "../../src/search/match.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { formatInZone } from "../../src/time/civil.js";
import { ianaZone } from "../../src/time/zones.js";
import { type RruleExample, rfc5545RruleExamples } from "../fixtures/rfc5545-rrule-examples.js";
import { searchAll } from "../support/feeds.js";

// Every example of RFC 5545 §3.8.5.3, written as a real feed, read by buildSnapshot and searched with
// searchPage in START_WITHIN mode. Each example runs with the materialised (indexed) range placed four ways,
// so the hot path, the on-demand tail path and the seams between them all have to give the RFC's answer.

/** "1997-09-02T09:00:00" to "19970902T090000", the ICS form. */
function compact(local: string): string {
  return local.replace(/[-:]/g, "");
}

/** A feed with one VEVENT for the example, using `rrules` as its RRULE lines. */
function exampleFeed(example: RruleExample, rrules: readonly string[], duration: "PT1H" | "none"): string {
  const tzid = `TZID=${example.zone}`;
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//calq//rfc5545-rrule.spec//EN",
    `X-WR-TIMEZONE:${example.zone}`,
    "BEGIN:VEVENT",
    "UID:rfc5545-example@calq.test",
    "DTSTAMP:19970901T000000Z",
    `DTSTART;${tzid}:${compact(example.dtstart)}`,
    ...(duration === "none" ? [] : [`DURATION:${duration}`]),
    "SUMMARY:RFC 5545 example",
    ...rrules.map((rule) => `RRULE:${rule}`),
    ...(example.rdates === undefined ? [] : [`RDATE;${tzid}:${example.rdates.map(compact).join(",")}`]),
    ...(example.exdates === undefined ? [] : [`EXDATE;${tzid}:${example.exdates.map(compact).join(",")}`]),
    "END:VEVENT",
    "END:VCALENDAR",
  ];
  return `${lines.join("\r\n")}\r\n`;
}

/** The instant of a local wall time, computed by luxon (independently of calq's zone code). */
function instantOf(local: string, zone: string): number {
  const time = DateTime.fromISO(local, { zone });
  if (!time.isValid) throw new Error(`bad local time ${local}`);
  return time.toMillis();
}

/** The example's occurrences in its window, as local wall times in its zone. */
function wallTimesFound(example: RruleExample, rrules: readonly string[], placement: Placement): string[] {
  const zone = ianaZone(example.zone)!;
  const window: Window = {
    start: instantOf(example.windowStart, example.zone),
    endExclusive: instantOf(example.windowEndExclusive, example.zone),
  };
  const { readAt, limits } = placement.place(window);
  const snapshot = buildSnapshot(exampleFeed(example, rrules, placement.duration), { calendarId: "t", limits, readAt });
  // "Every 20 minutes ... every day" has more slots in three years than a series may materialise.
  expect(snapshot.diagnostics.filter((diagnostic) => diagnostic.code !== "SERIES_CAPPED")).toEqual([]);
  const found = searchAll(snapshot, window, "startWithin");
  const ids = found.map(eventIdOf);
  expect(new Set(ids).size).toBe(ids.length);
  if (placement.duration === "PT1H") {
    for (const occurrence of found) expect(occurrence.end - occurrence.start).toBe(3_600_000);
  }
  return found.map((occurrence) => formatInZone(occurrence.start, zone).slice(0, 19));
}

/** Where the materialised range of the snapshot lies relative to an example's window. */
interface Placement {
  readonly name: string;
  readonly duration: "PT1H" | "none";
  place(window: Window): { readAt: number; limits: ExpansionLimits };
}

const LOADED_IN_1997 = Date.UTC(1997, 8, 1);
const LOADED_TODAY = Date.now();

const placements: Placement[] = [
  {
    name: "loaded in 1997 (the examples are materialised in the index)",
    duration: "PT1H",
    place: () => ({ readAt: LOADED_IN_1997, limits: defaultLimits(LOADED_IN_1997) }),
  },
  {
    name: "loaded today (1997 lies before the materialised range; the on-demand tail answers)",
    duration: "none",
    place: () => ({ readAt: LOADED_TODAY, limits: defaultLimits(LOADED_TODAY) }),
  },
  {
    name: "the materialised range ends in the middle of the window",
    duration: "PT1H",
    place: (window) => {
      const middle = Math.floor((window.start + window.endExclusive) / 2);
      return { readAt: LOADED_IN_1997, limits: { ...defaultLimits(LOADED_IN_1997), hotStart: middle - 400 * 86_400_000, hotEnd: middle } };
    },
  },
  {
    name: "the materialised range starts in the middle of the window",
    duration: "none",
    place: (window) => {
      const middle = Math.floor((window.start + window.endExclusive) / 2);
      return { readAt: middle, limits: { ...defaultLimits(middle), hotStart: middle, hotEnd: middle + 400 * 86_400_000 } };
    },
  },
];

describe("RFC 5545 §3.8.5.3 recurrence examples", () => {
  it("the fixture holds every example of the section, each window listing its occurrences in order", () => {
    // The section has 39 examples, from "Daily for 10 occurrences" to "February 30 is ignored".
    expect(rfc5545RruleExamples.length).toBe(39);
    for (const example of rfc5545RruleExamples) {
      const sorted = [...example.expected].sort();
      expect(example.expected).toEqual(sorted);
      expect(example.expected[0] >= example.windowStart).toBe(true);
      expect(example.expected[example.expected.length - 1] < example.windowEndExclusive).toBe(true);
    }
  });

  for (const placement of placements) {
    describe(placement.name, () => {
      for (const example of rfc5545RruleExamples) {
        it(example.title, () => {
          expect(wallTimesFound(example, example.rrules, placement)).toEqual(example.expected);
        });
        if (example.rrules.length < 2) continue;
        example.rrules.forEach((rule, index) => {
          it(`${example.title} (alternative rule ${index + 1} alone: ${rule})`, () => {
            expect(wallTimesFound(example, [rule], placement)).toEqual(example.expected);
          });
        });
      }
    });
  }
});

/** A day of the proleptic calendar, with what the oracles below need to know about it. */
interface CivilDay {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** ISO weekday: 1 is Monday, 7 is Sunday. */
  readonly weekday: number;
  readonly daysInMonth: number;
  readonly dayOfYear: number;
  readonly isoWeek: number;
  /** Whole days and calendar months since the example's DTSTART date. */
  readonly daysSince: number;
  readonly monthsSince: number;
}

const NINE = ["09:00"];
const EVERY_20_MINUTES_9_TO_5 = Array.from({ length: 24 }, (_, index) => {
  const minutes = 9 * 60 + index * 20;
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
});

/** Weekdays (Monday to Friday) after `day` in its month. */
function weekdaysAfter(day: CivilDay): number {
  let count = 0;
  for (let later = day.day + 1; later <= day.daysInMonth; later++) {
    const weekday = ((day.weekday - 1 + later - day.day) % 7) + 1;
    if (weekday <= 5) count++;
  }
  return count;
}

/**
 * For every example without COUNT or UNTIL, an independent day-by-day reading of its rule: the local times it
 * has on a given day. Written from the RFC's prose, not from any recurrence library.
 */
const foreverOracles: Record<string, (day: CivilDay) => readonly string[]> = {
  "Every other day - forever": (day) => (day.daysSince % 2 === 0 ? NINE : []),
  "Every other week - forever": (day) => (day.daysSince % 14 === 0 ? NINE : []),
  "Monthly on the third-to-the-last day of the month, forever": (day) => (day.day === day.daysInMonth - 2 ? NINE : []),
  "Every Tuesday, every other month": (day) => (day.monthsSince % 2 === 0 && day.weekday === 2 ? NINE : []),
  "Every 20th Monday of the year, forever": (day) => (day.weekday === 1 && Math.ceil(day.dayOfYear / 7) === 20 ? NINE : []),
  "Monday of week number 20": (day) => (day.weekday === 1 && day.isoWeek === 20 ? NINE : []),
  "Every Thursday in March, forever": (day) => (day.month === 3 && day.weekday === 4 ? NINE : []),
  "Every Thursday, but only during June, July, and August, forever": (day) =>
    day.month >= 6 && day.month <= 8 && day.weekday === 4 ? NINE : [],
  "Every Friday the 13th, forever": (day) => (day.day === 13 && day.weekday === 5 ? NINE : []),
  "The first Saturday that follows the first Sunday of the month, forever": (day) =>
    day.weekday === 6 && day.day >= 7 && day.day <= 13 ? NINE : [],
  "Every 4 years, the first Tuesday after a Monday in November": (day) =>
    (day.year - 1996) % 4 === 0 && day.month === 11 && day.weekday === 2 && day.day >= 2 && day.day <= 8 ? NINE : [],
  "The second-to-last weekday of the month": (day) => (day.weekday <= 5 && weekdaysAfter(day) === 1 ? NINE : []),
  "Every 20 minutes from 9:00 AM to 4:40 PM every day": () => EVERY_20_MINUTES_9_TO_5,
};

function oracleFor(example: RruleExample): (day: CivilDay) => readonly string[] {
  const key = Object.keys(foreverOracles).find((title) => example.title.startsWith(title));
  if (key === undefined) throw new Error(`no oracle for "${example.title}"`);
  return foreverOracles[key];
}

/** The local wall times the oracle gives in [from, to) (dates "YYYY-MM-DD"). */
function oracleWallTimes(example: RruleExample, from: string, to: string): string[] {
  const oracle = oracleFor(example);
  const start = DateTime.fromISO(example.dtstart.slice(0, 10), { zone: "UTC" });
  const result: string[] = [];
  for (let date = DateTime.fromISO(from, { zone: "UTC" }); date.toISODate()! < to; date = date.plus({ days: 1 })) {
    const day: CivilDay = {
      year: date.year,
      month: date.month,
      day: date.day,
      weekday: date.weekday,
      daysInMonth: date.daysInMonth!,
      dayOfYear: date.ordinal,
      isoWeek: date.weekNumber,
      daysSince: Math.round(date.diff(start, "days").days),
      monthsSince: (date.year - start.year) * 12 + date.month - start.month,
    };
    for (const time of oracle(day)) result.push(`${date.toISODate()}T${time}:00`);
  }
  return result;
}

describe("RFC 5545 §3.8.5.3 rules without end, far from DTSTART", () => {
  const forever = rfc5545RruleExamples.filter((example) => example.rrules.every((rule) => !/COUNT=|UNTIL=/.test(rule)));
  const loads = [
    { name: "loaded in 1997", readAt: LOADED_IN_1997 },
    { name: "loaded in 2199, so 2199 is materialised", readAt: Date.UTC(2199, 5, 1) },
  ];

  it("every such example has an oracle, and the oracles agree with the RFC's own listings", () => {
    expect(forever.length).toBe(13);
    for (const example of forever) {
      const dayAfterWindow = DateTime.fromISO(example.windowEndExclusive.slice(0, 10), { zone: "UTC" }).plus({ days: 1 }).toISODate()!;
      const read = oracleWallTimes(example, example.windowStart.slice(0, 10), dayAfterWindow).filter(
        (local) => local >= example.windowStart && local < example.windowEndExclusive && local >= example.dtstart,
      );
      expect({ title: example.title, read }).toEqual({ title: example.title, read: example.expected });
    }
  });

  for (const load of loads) {
    describe(load.name, () => {
      for (const example of forever) {
        const subDaily = example.title.startsWith("Every 20 minutes");
        const windows = subDaily
          ? [
              ["2150-03-07", "2150-03-09"],
              ["2199-11-01", "2199-11-03"],
            ]
          : [
              ["2100-01-01", "2101-01-01"],
              ["2148-01-01", "2149-01-01"],
              ["2196-01-01", "2197-01-01"],
              ["2199-01-01", "2200-01-01"],
            ];
        for (const [rule, label] of example.rrules.map((rule, index) => [rule, example.rrules.length > 1 ? ` (rule ${index + 1})` : ""])) {
          it(`${example.title}${label}: matches a day-by-day reading of the rule in ${windows.map(([from]) => from.slice(0, 4)).join(", ")}`, () => {
            const zone = ianaZone(example.zone)!;
            const snapshot = buildSnapshot(exampleFeed(example, [rule], "PT1H"), {
              calendarId: "t",
              limits: defaultLimits(load.readAt),
              readAt: load.readAt,
            });
            for (const [from, to] of windows) {
              const window: Window = {
                start: instantOf(`${from}T00:00:00`, example.zone),
                endExclusive: instantOf(`${to}T00:00:00`, example.zone),
              };
              const found = searchAll(snapshot, window, "startWithin").map((occurrence) =>
                formatInZone(occurrence.start, zone).slice(0, 19),
              );
              expect({ from, found }).toEqual({ from, found: oracleWallTimes(example, from, to) });
            }
          });
        }
      }
    });
  }
});

import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { eventIdOf, type Occurrence, recurrenceIdOf } from "../../src/expand/occurrence.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import type { MatchMode, Window } from "../../src/search/match.js";
import { formatInZone } from "../../src/time/civil.js";
import { ianaZone } from "../../src/time/zones.js";
import { anchors, feed as feedWith, searchAll as searchEvery, snapshotOf } from "../support/feeds.js";

// Recurrence sets (EventOccurrence.recurrence_id) through real feed text, buildSnapshot and searchPage: several RRULEs, RDATE, EXDATE,
// EXRULE, overrides by RECURRENCE-ID, cancellations, hostile rules, unbounded series far from the load, and ids.

const NEW_YORK = "America/New_York";
const DAY = 86_400_000;

/** A feed in New York: VEVENTs given by their inner lines; a UID is added when a VEVENT has none. */
function feed(...events: (readonly string[])[]): string {
  return feedWith([`X-WR-TIMEZONE:${NEW_YORK}`], ...events);
}

function build(text: string, readAt: number = anchors[0].readAt): Snapshot {
  return snapshotOf(text, readAt);
}

/** The window between two New York wall times, computed by luxon. */
function localWindow(start: string, endExclusive: string): Window {
  return { start: newYork(start), endExclusive: newYork(endExclusive) };
}

function newYork(local: string): number {
  const time = DateTime.fromISO(local, { zone: NEW_YORK });
  if (!time.isValid) throw new Error(`bad local time ${local}`);
  return time.toMillis();
}

function searchAll(snapshot: Snapshot, searched: Window, mode: MatchMode = "overlap"): Occurrence[] {
  return searchEvery(snapshot, searched, mode);
}

const newYorkZone = ianaZone(NEW_YORK)!;

/** "2026-03-02T09:00 Standup (30 min)": start in New York, summary, minutes. */
function describeAll(occurrences: readonly Occurrence[]): string[] {
  return occurrences.map((occurrence) => {
    const start = formatInZone(occurrence.start, newYorkZone).slice(0, 16);
    return `${start} ${occurrence.details.summary} (${(occurrence.end - occurrence.start) / 60_000} min)`;
  });
}

const MARCH_2026 = localWindow("2026-02-01T00:00:00", "2026-05-01T00:00:00");

describe("RRULEs, RDATEs and EXDATEs make one recurrence set", () => {
  for (const anchor of anchors) {
    describe(anchor.name, () => {
      it("the slots of several RRULEs are united, and a slot both rules produce appears once", () => {
        const text = feed([
          "DTSTART;TZID=America/New_York:20260302T090000",
          "DURATION:PT30M",
          "SUMMARY:Review",
          "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3",
          "RRULE:FREQ=MONTHLY;BYMONTHDAY=2;COUNT=3",
        ]);
        expect(describeAll(searchAll(build(text, anchor.readAt), MARCH_2026))).toEqual([
          "2026-03-02T09:00 Review (30 min)",
          "2026-03-09T09:00 Review (30 min)",
          "2026-03-16T09:00 Review (30 min)",
          "2026-04-02T09:00 Review (30 min)",
        ]);
        expect(describeAll(searchAll(build(text, anchor.readAt), localWindow("2026-05-01T00:00:00", "2026-06-01T00:00:00")))).toEqual([
          "2026-05-02T09:00 Review (30 min)",
        ]);
      });

      it("RDATE date-times add slots, written with TZID or in UTC, each lasting the event's duration", () => {
        const text = feed([
          "DTSTART;TZID=America/New_York:20260302T090000",
          "DURATION:PT30M",
          "SUMMARY:Review",
          "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2",
          "RDATE;TZID=America/New_York:20260304T150000,20260311T150000",
          "RDATE:20260305T200000Z",
        ]);
        expect(describeAll(searchAll(build(text, anchor.readAt), MARCH_2026))).toEqual([
          "2026-03-02T09:00 Review (30 min)",
          "2026-03-04T15:00 Review (30 min)",
          "2026-03-05T15:00 Review (30 min)",
          "2026-03-09T09:00 Review (30 min)",
          "2026-03-11T15:00 Review (30 min)",
        ]);
      });

      it("RDATE periods keep their own end, given as an end or as a duration", () => {
        const text = feed([
          "DTSTART;TZID=America/New_York:20260302T090000",
          "DURATION:PT30M",
          "SUMMARY:Review",
          "RDATE;VALUE=PERIOD:20260310T140000Z/20260310T170000Z,20260311T140000Z/PT45M",
        ]);
        expect(describeAll(searchAll(build(text, anchor.readAt), MARCH_2026))).toEqual([
          "2026-03-02T09:00 Review (30 min)",
          "2026-03-10T10:00 Review (180 min)",
          "2026-03-11T10:00 Review (45 min)",
        ]);
      });

      it("EXDATE removes slots whether written with TZID or in UTC, removes RDATE slots too, and ignores instants that are no slot", () => {
        const text = feed([
          "DTSTART;TZID=America/New_York:20260305T090000",
          "DURATION:PT30M",
          "SUMMARY:Daily",
          "RRULE:FREQ=DAILY;COUNT=7",
          "RDATE;TZID=America/New_York:20260312T090000,20260313T090000",
          "EXDATE;TZID=America/New_York:20260306T090000",
          "EXDATE:20260310T130000Z",
          "EXDATE:20260307T090000Z",
          "EXDATE;TZID=America/New_York:20260313T090000",
        ]);
        expect(describeAll(searchAll(build(text, anchor.readAt), MARCH_2026))).toEqual([
          "2026-03-05T09:00 Daily (30 min)",
          "2026-03-07T09:00 Daily (30 min)",
          "2026-03-08T09:00 Daily (30 min)",
          "2026-03-09T09:00 Daily (30 min)",
          "2026-03-11T09:00 Daily (30 min)",
          "2026-03-12T09:00 Daily (30 min)",
        ]);
      });

      it("an EXDATE;VALUE=DATE removes that day's slots of a timed series", () => {
        const text = feed([
          "DTSTART;TZID=America/New_York:20260305T090000",
          "DURATION:PT30M",
          "SUMMARY:Daily",
          "RRULE:FREQ=DAILY;COUNT=4",
          "EXDATE;VALUE=DATE:20260306",
        ]);
        expect(describeAll(searchAll(build(text, anchor.readAt), MARCH_2026))).toEqual([
          "2026-03-05T09:00 Daily (30 min)",
          "2026-03-07T09:00 Daily (30 min)",
          "2026-03-08T09:00 Daily (30 min)",
        ]);
      });

      it("an EXDATE;VALUE=DATE removes that day's slot, not its neighbour's, before 1970 too", () => {
        const text = feed([
          "DTSTART;TZID=America/New_York:19600104T090000",
          "DURATION:PT30M",
          "SUMMARY:Daily",
          "RRULE:FREQ=DAILY;COUNT=4",
          "EXDATE;VALUE=DATE:19600105",
        ]);
        expect(describeAll(searchAll(build(text, anchor.readAt), localWindow("1960-01-01T00:00:00", "1960-02-01T00:00:00")))).toEqual([
          "1960-01-04T09:00 Daily (30 min)",
          "1960-01-06T09:00 Daily (30 min)",
          "1960-01-07T09:00 Daily (30 min)",
        ]);
      });

      it("EXRULE removes the slots it generates (weekends out of a daily series without end)", () => {
        const text = feed([
          "DTSTART;TZID=America/New_York:20200106T090000",
          "DURATION:PT30M",
          "SUMMARY:Workday",
          "RRULE:FREQ=DAILY",
          "EXRULE:FREQ=WEEKLY;BYDAY=SA,SU",
        ]);
        const snapshot = build(text, anchor.readAt);
        expect(snapshot.diagnostics).toEqual([]);
        expect(describeAll(searchAll(snapshot, localWindow("2026-03-06T00:00:00", "2026-03-14T00:00:00")))).toEqual([
          "2026-03-06T09:00 Workday (30 min)",
          "2026-03-09T09:00 Workday (30 min)",
          "2026-03-10T09:00 Workday (30 min)",
          "2026-03-11T09:00 Workday (30 min)",
          "2026-03-12T09:00 Workday (30 min)",
          "2026-03-13T09:00 Workday (30 min)",
        ]);
      });
    });
  }
});

describe("overrides by RECURRENCE-ID", () => {
  const standup = [
    "UID:standup@calq.test",
    "DTSTART;TZID=America/New_York:20260302T090000",
    "DURATION:PT30M",
    "SUMMARY:Standup",
    "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=5",
  ];

  for (const anchor of anchors) {
    describe(anchor.name, () => {
      for (const [written, recurrenceId] of [
        ["with TZID", "RECURRENCE-ID;TZID=America/New_York:20260309T090000"],
        ["in UTC", "RECURRENCE-ID:20260309T130000Z"],
      ] as const) {
        it(`a moved occurrence appears only at its new time, and names its original slot (RECURRENCE-ID ${written})`, () => {
          const moved = [
            "UID:standup@calq.test",
            recurrenceId,
            "DTSTART;TZID=America/New_York:20260310T140000",
            "DURATION:PT1H",
            "SUMMARY:Standup (moved)",
          ];
          const snapshot = build(feed(standup, moved), anchor.readAt);
          const found = searchAll(snapshot, MARCH_2026);
          expect(describeAll(found)).toEqual([
            "2026-03-02T09:00 Standup (30 min)",
            "2026-03-10T14:00 Standup (moved) (60 min)",
            "2026-03-16T09:00 Standup (30 min)",
            "2026-03-23T09:00 Standup (30 min)",
            "2026-03-30T09:00 Standup (30 min)",
          ]);
          expect(searchAll(snapshot, localWindow("2026-03-09T00:00:00", "2026-03-10T00:00:00"))).toEqual([]);

          const override = found[1];
          expect(override.slot).toBe(Date.parse("2026-03-09T13:00:00Z"));
          expect(recurrenceIdOf(override)).toBe("2026-03-09T13:00:00Z");
          const [original] = searchAll(build(feed(standup), anchor.readAt), localWindow("2026-03-09T00:00:00", "2026-03-10T00:00:00"));
          expect(recurrenceIdOf(original)).toBe("2026-03-09T13:00:00Z");
          expect(eventIdOf(override)).toBe(eventIdOf(original));
        });
      }

      it("a cancelled override (STATUS:CANCELLED) removes its slot", () => {
        const cancelled = [
          "UID:standup@calq.test",
          "RECURRENCE-ID;TZID=America/New_York:20260316T090000",
          "DTSTART;TZID=America/New_York:20260316T090000",
          "DURATION:PT30M",
          "SUMMARY:Standup",
          "STATUS:CANCELLED",
        ];
        expect(describeAll(searchAll(build(feed(standup, cancelled), anchor.readAt), MARCH_2026))).toEqual([
          "2026-03-02T09:00 Standup (30 min)",
          "2026-03-09T09:00 Standup (30 min)",
          "2026-03-23T09:00 Standup (30 min)",
          "2026-03-30T09:00 Standup (30 min)",
        ]);
      });

      it("RANGE=THISANDFUTURE changes summary, time and duration of its slot and of every later one", () => {
        const future = [
          "UID:standup@calq.test",
          "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=America/New_York:20260316T090000",
          "DTSTART;TZID=America/New_York:20260316T100000",
          "DURATION:PT45M",
          "SUMMARY:Standup (new time)",
        ];
        const found = searchAll(build(feed(standup, future), anchor.readAt), MARCH_2026);
        expect(describeAll(found)).toEqual([
          "2026-03-02T09:00 Standup (30 min)",
          "2026-03-09T09:00 Standup (30 min)",
          "2026-03-16T10:00 Standup (new time) (45 min)",
          "2026-03-23T10:00 Standup (new time) (45 min)",
          "2026-03-30T10:00 Standup (new time) (45 min)",
        ]);
        expect(found.map(recurrenceIdOf)).toEqual([
          "2026-03-02T14:00:00Z",
          "2026-03-09T13:00:00Z",
          "2026-03-16T13:00:00Z",
          "2026-03-23T13:00:00Z",
          "2026-03-30T13:00:00Z",
        ]);
      });

      it("RANGE=THISANDFUTURE moving Saturdays 09:00 to Sundays 09:00 across the spring change keeps 09:00 for later slots", () => {
        const saturdays = [
          "UID:club@calq.test",
          "DTSTART;TZID=America/New_York:20260228T090000",
          "DURATION:PT1H",
          "SUMMARY:Club",
          "RRULE:FREQ=WEEKLY;COUNT=4",
        ];
        const toSundays = [
          "UID:club@calq.test",
          "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=America/New_York:20260307T090000",
          "DTSTART;TZID=America/New_York:20260308T090000",
          "DURATION:PT1H",
          "SUMMARY:Club (Sundays)",
        ];
        expect(describeAll(searchAll(build(feed(saturdays, toSundays), anchor.readAt), MARCH_2026))).toEqual([
          "2026-02-28T09:00 Club (60 min)",
          "2026-03-08T09:00 Club (Sundays) (60 min)",
          "2026-03-15T09:00 Club (Sundays) (60 min)",
          "2026-03-22T09:00 Club (Sundays) (60 min)",
        ]);
      });

      it("an all-day override moves one day of an all-day series and names the original date", () => {
        const mondays = ["UID:gym@calq.test", "DTSTART;VALUE=DATE:20260302", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Gym"];
        const moved = ["UID:gym@calq.test", "RECURRENCE-ID;VALUE=DATE:20260309", "DTSTART;VALUE=DATE:20260310", "SUMMARY:Gym (Tuesday)"];
        const found = searchAll(build(feed(mondays, moved), anchor.readAt), MARCH_2026);
        const rows = found.map((occurrence) => [
          new Date(occurrence.start).toISOString(),
          occurrence.details.summary,
          recurrenceIdOf(occurrence),
        ]);
        expect(rows).toEqual([
          ["2026-03-02T05:00:00.000Z", "Gym", "2026-03-02"],
          ["2026-03-10T04:00:00.000Z", "Gym (Tuesday)", "2026-03-09"],
          ["2026-03-16T04:00:00.000Z", "Gym", "2026-03-16"],
          ["2026-03-23T04:00:00.000Z", "Gym", "2026-03-23"],
        ]);
        expect(found.every((occurrence) => occurrence.details.allDay)).toBe(true);
      });

      it("an override of a single (non-recurring) event's only slot replaces it", () => {
        const single = ["UID:dentist@calq.test", "DTSTART;TZID=America/New_York:20260304T100000", "DURATION:PT1H", "SUMMARY:Dentist"];
        const moved = [
          "UID:dentist@calq.test",
          "RECURRENCE-ID;TZID=America/New_York:20260304T100000",
          "DTSTART;TZID=America/New_York:20260306T160000",
          "DURATION:PT1H",
          "SUMMARY:Dentist (moved)",
        ];
        expect(describeAll(searchAll(build(feed(single, moved), anchor.readAt), MARCH_2026))).toEqual([
          "2026-03-06T16:00 Dentist (moved) (60 min)",
        ]);
      });

      it("an override whose master is absent is still returned, naming its slot", () => {
        const orphan = [
          "UID:orphan@calq.test",
          "RECURRENCE-ID;TZID=America/New_York:20260309T090000",
          "DTSTART;TZID=America/New_York:20260309T110000",
          "DURATION:PT30M",
          "SUMMARY:Orphan",
        ];
        const found = searchAll(build(feed(orphan), anchor.readAt), MARCH_2026);
        expect(describeAll(found)).toEqual(["2026-03-09T11:00 Orphan (30 min)"]);
        expect(recurrenceIdOf(found[0])).toBe("2026-03-09T13:00:00Z");
      });

      it("a STATUS:CANCELLED master returns nothing, recurring or single", () => {
        const text = feed(
          [...standup, "STATUS:CANCELLED"],
          ["UID:single@calq.test", "DTSTART;TZID=America/New_York:20260304T120000", "DURATION:PT1H", "STATUS:CANCELLED"],
          ["UID:kept@calq.test", "DTSTART;TZID=America/New_York:20260305T120000", "DURATION:PT1H", "SUMMARY:Lunch"],
        );
        expect(describeAll(searchAll(build(text, anchor.readAt), MARCH_2026))).toEqual(["2026-03-05T12:00 Lunch (60 min)"]);
      });
    });
  }
});

describe("components calq cannot use are left out and reported", () => {
  const lunch = ["UID:lunch@calq.test", "DTSTART;TZID=America/New_York:20260305T120000", "DURATION:PT1H", "SUMMARY:Lunch"];

  it("an event whose DTEND is before its DTSTART is left out with END_BEFORE_START, single or recurring", () => {
    const text = feed(
      ["UID:backwards@calq.test", "DTSTART;TZID=America/New_York:20260304T100000", "DTEND;TZID=America/New_York:20260304T090000"],
      [
        "UID:backwards-series@calq.test",
        "DTSTART;TZID=America/New_York:20260302T100000",
        "DTEND;TZID=America/New_York:20260302T093000",
        "RRULE:FREQ=DAILY;COUNT=5",
      ],
      lunch,
    );
    const snapshot = build(text);
    expect(snapshot.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.uid])).toEqual([
      ["END_BEFORE_START", "backwards@calq.test"],
      ["END_BEFORE_START", "backwards-series@calq.test"],
    ]);
    expect(snapshot.diagnostics[0].line).toBe(5);
    expect(describeAll(searchAll(snapshot, MARCH_2026))).toEqual(["2026-03-05T12:00 Lunch (60 min)"]);
  });

  it("an event with an unknown TZID is read as floating, in the calendar's zone, with UNKNOWN_TZID; a Windows zone name is read as its IANA zone", () => {
    const text = feed(
      ["UID:atlantis@calq.test", "DTSTART;TZID=Atlantis/Poseidonis:20260304T100000", "DURATION:PT1H", "SUMMARY:Atlantis"],
      ["UID:outlook@calq.test", "DTSTART;TZID=Eastern Standard Time:20260304T100000", "DURATION:PT1H", "SUMMARY:Outlook"],
      lunch,
    );
    const snapshot = build(text);
    expect(snapshot.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.uid])).toEqual([["UNKNOWN_TZID", "atlantis@calq.test"]]);
    // Same instant: ordered by event_id, a digest of the UID.
    expect(describeAll(searchAll(snapshot, MARCH_2026)).sort()).toEqual([
      "2026-03-04T10:00 Atlantis (60 min)",
      "2026-03-04T10:00 Outlook (60 min)",
      "2026-03-05T12:00 Lunch (60 min)",
    ]);
  });

  it("an event whose only RRULE cannot be read keeps its DTSTART occurrence (UNREADABLE_RRULE: the series keeps its other dates)", () => {
    const text = feed(
      [
        "UID:count-zero@calq.test",
        "DTSTART;TZID=America/New_York:20260304T100000",
        "DURATION:PT1H",
        "SUMMARY:Kickoff",
        "RRULE:FREQ=DAILY;COUNT=0",
      ],
      lunch,
    );
    const snapshot = build(text);
    expect(snapshot.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.uid])).toEqual([
      ["UNREADABLE_RRULE", "count-zero@calq.test"],
    ]);
    expect(describeAll(searchAll(snapshot, MARCH_2026))).toEqual(["2026-03-04T10:00 Kickoff (60 min)", "2026-03-05T12:00 Lunch (60 min)"]);
  });
});

describe("hostile rules are bounded (EventOccurrence.recurrence_id)", () => {
  const readAt = anchors[0].readAt;
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index).join(",");
  const hostile = feed(
    ["UID:secondly@calq.test", "DTSTART:20261129T000000Z", "RRULE:FREQ=SECONDLY", "SUMMARY:Tick"],
    [
      "UID:huge@calq.test",
      "DTSTART:20261001T000000Z",
      `RRULE:FREQ=YEARLY;BYMONTH=${range(1, 12)};BYMONTHDAY=${range(1, 31)};BYHOUR=${range(0, 23)};BYMINUTE=${range(0, 59)}`,
      "SUMMARY:Every minute of the year",
    ],
    [
      "UID:weekly@calq.test",
      "DTSTART;TZID=America/New_York:20261005T100000",
      "DURATION:PT1H",
      "RRULE:FREQ=WEEKLY;BYDAY=MO",
      "SUMMARY:Planning",
    ],
    ["UID:lunch@calq.test", "DTSTART;TZID=America/New_York:20261125T120000", "DURATION:PT1H", "SUMMARY:Lunch"],
  );

  it("a feed with a FREQ=SECONDLY rule without end and a huge BYxxx product loads, reporting SERIES_CAPPED and RRULE_TOO_EXPENSIVE", () => {
    const snapshot = build(hostile, readAt);
    const codes = snapshot.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.uid]);
    expect(codes).toContainEqual(["SERIES_CAPPED", "secondly@calq.test"]);
    expect(codes).toContainEqual(["RRULE_TOO_EXPENSIVE", "huge@calq.test"]);
  });

  it("the other events of the feed are still searchable", () => {
    const snapshot = build(hostile, readAt);
    expect(describeAll(searchAll(snapshot, localWindow("2026-11-16T00:00:00", "2026-11-28T00:00:00")))).toEqual([
      "2026-11-16T10:00 Planning (60 min)",
      "2026-11-23T10:00 Planning (60 min)",
      "2026-11-25T12:00 Lunch (60 min)",
    ]);
  });

  it("the capped series answers a window inside its materialised part", () => {
    const tenSeconds = { start: Date.parse("2026-11-29T00:00:00Z"), endExclusive: Date.parse("2026-11-29T00:00:10Z") };
    const found = searchAll(build(hostile, readAt), tenSeconds);
    expect(found.map((occurrence) => new Date(occurrence.start).toISOString())).toEqual(
      Array.from({ length: 10 }, (_, second) => `2026-11-29T00:00:0${second}.000Z`),
    );
  });

  it("the capped series answers a 10-second window after its cap with exactly those 10 occurrences (expanded per query)", () => {
    const tenSeconds = { start: Date.parse("2026-11-29T12:00:00Z"), endExclusive: Date.parse("2026-11-29T12:00:10Z") };
    const found = searchAll(build(hostile, readAt), tenSeconds);
    expect(found.map((occurrence) => new Date(occurrence.start).toISOString())).toEqual(
      Array.from({ length: 10 }, (_, second) => `2026-11-29T12:00:0${second}.000Z`),
    );
  });
});

describe("series without end are right for any window in [1900, 2200) (EventOccurrence.recurrence_id)", () => {
  /** A rule from 1950 and an independent test of whether a New York date is one of its days. */
  interface LongSeries {
    readonly rule: string;
    readonly dtstart: string;
    readonly hasDay: (date: { year: number; month: number; day: number; weekday: number; daysSinceStart: number }) => boolean;
  }

  const series: LongSeries[] = [
    { rule: "FREQ=WEEKLY", dtstart: "1950-01-02", hasDay: ({ daysSinceStart }) => daysSinceStart % 7 === 0 },
    {
      rule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR",
      dtstart: "1950-01-02",
      hasDay: ({ daysSinceStart, weekday }) => Math.floor(daysSinceStart / 7) % 2 === 0 && [1, 3, 5].includes(weekday),
    },
    { rule: "FREQ=WEEKLY;INTERVAL=2", dtstart: "1950-01-08", hasDay: ({ daysSinceStart }) => daysSinceStart % 14 === 0 },
    { rule: "FREQ=DAILY;INTERVAL=3", dtstart: "1950-01-02", hasDay: ({ daysSinceStart }) => daysSinceStart % 3 === 0 },
    { rule: "FREQ=MONTHLY;BYMONTHDAY=31", dtstart: "1950-01-31", hasDay: ({ day }) => day === 31 },
    {
      rule: "FREQ=MONTHLY;INTERVAL=5;BYDAY=-1FR",
      dtstart: "1950-01-27",
      hasDay: ({ year, month, day, weekday }) =>
        ((year - 1950) * 12 + month - 1) % 5 === 0 && weekday === 5 && day + 7 > new Date(Date.UTC(year, month, 0)).getUTCDate(),
    },
    { rule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", dtstart: "1952-02-29", hasDay: ({ month, day }) => month === 2 && day === 29 },
  ];

  const years = [1951, 1952, 2196, 2199];

  /** The expected starts in a New York year, by stepping through every day since DTSTART. */
  function bruteForce(entry: LongSeries, year: number): string[] {
    const start = Date.parse(`${entry.dtstart}T00:00:00Z`);
    const result: string[] = [];
    for (let at = Date.UTC(year, 0, 1); at < Date.UTC(year + 1, 0, 1); at += DAY) {
      if (at < start) continue;
      const date = new Date(at);
      const fields = {
        year: date.getUTCFullYear(),
        month: date.getUTCMonth() + 1,
        day: date.getUTCDate(),
        weekday: date.getUTCDay(),
        daysSinceStart: Math.round((at - start) / DAY),
      };
      if (!entry.hasDay(fields)) continue;
      const instant = DateTime.fromObject({ year: fields.year, month: fields.month, day: fields.day, hour: 9 }, { zone: NEW_YORK });
      result.push(new Date(instant.toMillis()).toISOString());
    }
    return result;
  }

  const longAnchors = [
    { name: "loaded 2026-11-29", readAt: Date.UTC(2026, 10, 29) },
    { name: "loaded 2199-01-01", readAt: Date.UTC(2199, 0, 1) },
  ];

  for (const anchor of longAnchors) {
    for (const entry of series) {
      it(`${entry.rule} from ${entry.dtstart} 09:00 New York matches a day-by-day count in 1951, 1952, 2196 and 2199 (${anchor.name})`, () => {
        const text = feed([
          `UID:${entry.rule}@calq.test`,
          `DTSTART;TZID=America/New_York:${entry.dtstart.replace(/-/g, "")}T090000`,
          "DURATION:PT1H",
          `RRULE:${entry.rule}`,
        ]);
        const snapshot = build(text, anchor.readAt);
        for (const year of years) {
          const found = searchAll(snapshot, localWindow(`${year}-01-01T00:00:00`, `${year + 1}-01-01T00:00:00`), "startWithin");
          expect({ year, starts: found.map((occurrence) => new Date(occurrence.start).toISOString()) }).toEqual({
            year,
            starts: bruteForce(entry, year),
          });
        }
      });
    }
  }

  for (const anchor of longAnchors) {
    it(`FREQ=HOURLY;INTERVAL=5 from 1950-01-02 09:30 New York has its slots every 5 hours in January 1952 (${anchor.name})`, () => {
      const text = feed([
        "UID:hourly@calq.test",
        "DTSTART;TZID=America/New_York:19500102T093000",
        "DURATION:PT15M",
        "RRULE:FREQ=HOURLY;INTERVAL=5",
      ]);
      const searched = localWindow("1952-01-01T00:00:00", "1952-01-03T00:00:00");
      // Two whole years of DST changes cancel out, so wall-clock and elapsed hours agree in January 1952.
      const expected: string[] = [];
      for (let local = Date.UTC(1950, 0, 2, 9, 30); local < Date.UTC(1952, 0, 3); local += 5 * 3_600_000) {
        const instant = DateTime.fromISO(new Date(local).toISOString().slice(0, 19), { zone: NEW_YORK }).toMillis();
        if (instant >= searched.start && instant < searched.endExclusive) expected.push(new Date(instant).toISOString());
      }
      expect(expected[0]).toBe("1952-01-01T08:30:00.000Z");
      const found = searchAll(build(text, anchor.readAt), searched, "startWithin");
      expect(found.map((occurrence) => new Date(occurrence.start).toISOString())).toEqual(expected);
    });
  }

  it("the brute force itself sees the rules' known dates (2199-06-03 is a Monday; 2196 has a 29 February)", () => {
    expect(bruteForce(series[0], 2199)).toContain("2199-06-03T13:00:00.000Z");
    const leapDay = series.find((entry) => entry.rule.includes("BYMONTHDAY=29"))!;
    expect(bruteForce(leapDay, 2196)).toEqual(["2196-02-29T14:00:00.000Z"]);
    expect(bruteForce(leapDay, 2199)).toEqual([]);
  });
});

describe("event ids (EventOccurrence.event_id)", () => {
  const text = feed(
    ["UID:single@calq.test", "DTSTART;TZID=America/New_York:20260304T120000", "DURATION:PT1H", "SUMMARY:Lunch"],
    [
      "UID:standup@calq.test",
      "DTSTART;TZID=America/New_York:20260302T090000",
      "DURATION:PT30M",
      "SUMMARY:Standup",
      "RRULE:FREQ=DAILY;COUNT=20",
      "RDATE;TZID=America/New_York:20260302T150000",
    ],
    [
      "UID:standup@calq.test",
      "RECURRENCE-ID;TZID=America/New_York:20260305T090000",
      "DTSTART;TZID=America/New_York:20260305T110000",
      "DURATION:PT30M",
    ],
    ["UID:holiday@calq.test", "DTSTART;VALUE=DATE:20260302", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Day off"],
    ["UID:other@calq.test", "DTSTART;TZID=America/New_York:20260302T090000", "DURATION:PT30M", "RRULE:FREQ=DAILY;COUNT=20"],
  );

  function ids(snapshot: Snapshot): string[] {
    return searchAll(snapshot, MARCH_2026).map(eventIdOf);
  }

  it("are the same across two builds of the same text, and whether materialised or expanded on demand", () => {
    const first = ids(build(text, anchors[0].readAt));
    expect(first.length).toBe(1 + 21 + 4 + 20);
    expect(ids(build(text, anchors[0].readAt))).toEqual(first);
    expect(ids(build(text, anchors[1].readAt))).toEqual(first);
  });

  it("are unique within the calendar, even for two series starting at the same instant", () => {
    const all = ids(build(text));
    expect(new Set(all).size).toBe(all.length);
  });

  it("stay the same when the summary changes, and change with the UID", () => {
    const before = ids(build(text));
    expect(ids(build(text.replace(/SUMMARY:Standup/g, "SUMMARY:Daily sync")))).toEqual(before);
    const renamed = ids(build(text.replace(/UID:standup@calq.test/g, "UID:standup-2@calq.test")));
    expect(renamed.filter((id) => before.includes(id)).length).toBe(1 + 4 + 20);
  });
});

/**
 * Paging through occurrences that are expanded on demand (outside the
 * materialised years): pages stop expanding early, and must still
 * concatenate to the unpaged result.
 */
import { describe, expect, it } from "vitest";
import { eventIdOf } from "../../src/expand/occurrence.js";
import { buildSnapshot, type Snapshot } from "../../src/ingest/snapshot.js";
import type { MatchMode } from "../../src/search/match.js";
import { searchPage } from "../../src/search/search-occurrences.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { ics, searchAll, snapshotOf, vevent } from "../support/feeds.js";

const readAt = Date.UTC(2026, 10, 29);

function snapshot(...lines: string[]): Snapshot {
  return snapshotOf(ics("X-WR-TIMEZONE:America/New_York", ...lines), readAt);
}

function allPages(calendar: Snapshot, start: number, endExclusive: number, mode: MatchMode, limit: number): string[] {
  return searchAll(calendar, { start, endExclusive }, mode, limit).map(eventIdOf);
}

describe("paging series expanded on demand", () => {
  const calendar = snapshot(
    ...vevent(
      "UID:daily",
      "DTSTART;TZID=America/New_York:20200101T090000",
      "DURATION:PT90M",
      "RRULE:FREQ=DAILY",
      "EXDATE;TZID=America/New_York:21900305T090000",
    ),
    ...vevent("UID:hourly", "DTSTART;TZID=America/New_York:20200101T000000", "DURATION:PT2H", "RRULE:FREQ=HOURLY;INTERVAL=5"),
    ...vevent(
      "UID:weekly",
      "DTSTART;TZID=America/New_York:20200104T083000",
      "DTEND;TZID=America/New_York:20200104T093000",
      "RRULE:FREQ=WEEKLY;BYDAY=SA,SU",
    ),
    ...vevent(
      "UID:weekly",
      "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=America/New_York:21900301T083000",
      "DTSTART;TZID=America/New_York:21900301T103000",
      "DTEND;TZID=America/New_York:21900301T110000",
      "SUMMARY:moved later",
    ),
    ...vevent("UID:allday", "DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=DAILY;INTERVAL=2"),
  );
  // 2190-02-20 to 2190-03-20, New York: far past the materialised years.
  const start = Date.UTC(2190, 1, 20, 5);
  const endExclusive = Date.UTC(2190, 2, 20, 4);

  for (const mode of ["overlap", "startWithin"] as const) {
    it(`pages of 1 to 7 concatenate to the unpaged result (${mode})`, () => {
      const whole = allPages(calendar, start, endExclusive, mode, 100_000);
      expect(whole.length).toBeGreaterThan(150);
      expect(new Set(whole).size).toBe(whole.length);
      for (const limit of [1, 2, 3, 5, 7]) expect(allPages(calendar, start, endExclusive, mode, limit)).toEqual(whole);
    });
  }

  it("a window that starts on a shared start instant pages ties in event_id order", () => {
    const window = { start: Date.UTC(2190, 2, 2, 5), endExclusive: Date.UTC(2190, 2, 3, 5) };
    const whole = allPages(calendar, window.start, window.endExclusive, "overlap", 1000);
    expect(allPages(calendar, window.start, window.endExclusive, "overlap", 1)).toEqual(whole);
  });
});

describe("pages on demand count only what they return", () => {
  it("EXDATEs inside an on-demand window neither cost results nor end the search early", () => {
    const calendar = snapshot(
      ...vevent(
        "UID:daily",
        "DTSTART:20200101T090000Z",
        "RRULE:FREQ=DAILY",
        "EXDATE:21001224T090000Z,21001225T090000Z,21001226T090000Z,21001227T090000Z",
      ),
    );
    const window = { start: Date.UTC(2100, 11, 23), endExclusive: Date.UTC(2101, 0, 1) };
    const days = searchAll(calendar, window, "startWithin", 3).map((occurrence) => new Date(occurrence.start).getUTCDate());
    expect(days).toEqual([23, 28, 29, 30, 31]);
  });

  it("an hourly series over a spring-forward gap has one occurrence per instant, however it is paged", () => {
    const calendar = snapshot(...vevent("UID:hourly", "DTSTART;TZID=America/New_York:20270313T220000", "RRULE:FREQ=HOURLY;COUNT=8"));
    const window = { start: Date.UTC(2027, 2, 14), endExclusive: Date.UTC(2027, 2, 15) };
    const whole = searchAll(calendar, window, "overlap").map(eventIdOf);
    expect(new Set(whole).size).toBe(whole.length);
    expect(searchAll(calendar, window, "overlap", 1).map(eventIdOf)).toEqual(whole);
  });

  it("long occurrences far from the load answer a page without expanding their whole reach", () => {
    const events = Array.from({ length: 20 }, (_, i) =>
      vevent(`UID:long-${i}`, "DTSTART:20200101T000000Z", "DURATION:P5000W", "RRULE:FREQ=DAILY"),
    );
    const calendar = snapshot(...events.flat());
    const page = searchPage(calendar, {
      window: { start: Date.UTC(2150, 0, 1), endExclusive: Date.UTC(2150, 0, 2) },
      mode: "overlap",
      limit: 10,
    });
    expect(page.occurrences).toHaveLength(10);
    expect(page.more).toBe(true);
  });
});

describe("dense series stay cheap to page", () => {
  it("a SECONDLY series without end answers a window a month after its start with its first seconds", () => {
    const calendar = snapshot(...vevent("UID:seconds", "DTSTART:20261129T000000Z", "RRULE:FREQ=SECONDLY"));
    const start = Date.UTC(2026, 11, 29, 12);
    const page = searchPage(calendar, { window: { start, endExclusive: start + 86_400_000 }, mode: "startWithin", limit: 3 });
    expect(page.occurrences.map((occurrence) => occurrence.start - start)).toEqual([0, 1000, 2000]);
    expect(page.more).toBe(true);
  });

  it("refuses COUNT past 100,000 dates at the cap and says so", () => {
    const calendar = snapshot(...vevent("UID:many", "DTSTART:20261129T000000Z", "RRULE:FREQ=SECONDLY;COUNT=1000000"));
    expect(calendar.diagnostics.map((diagnostic) => diagnostic.code)).toContain("SERIES_CAPPED");
    const afterCap = Date.UTC(2026, 10, 29) + 100_000 * 1000;
    const page = searchPage(calendar, {
      window: { start: afterCap - 2000, endExclusive: afterCap + 60_000 },
      mode: "startWithin",
      limit: 10,
    });
    expect(page.occurrences.map((occurrence) => occurrence.start - afterCap)).toEqual([-2000, -1000]);
  });
});

describe("on-demand pages stay exact and bounded (second review)", () => {
  const far = (y: number, m: number, d: number, h = 0, mi = 0) => Date.UTC(y, m - 1, d, h, mi);

  it("ten SECONDLY series answer a page in 2040 without stalling", () => {
    const calendar = snapshot(
      ...Array.from({ length: 10 }, (_, i) => vevent(`UID:sec-${i}`, "DTSTART:20260101T090000Z", "RRULE:FREQ=SECONDLY")).flat(),
    );
    const page = searchPage(calendar, {
      window: { start: far(2040, 6, 1, 12), endExclusive: far(2040, 6, 2) },
      mode: "startWithin",
      limit: 1,
    });
    expect(page.occurrences.map((occurrence) => occurrence.start)).toEqual([far(2040, 6, 1, 12)]);
    expect(page.complete).toBe(true);
  });

  it("slots merged by a DST gap are one occurrence, found whatever the page size", () => {
    const calendar = snapshot(
      ...vevent("UID:gap", "DTSTART;TZID=America/New_York:20260101T020000", "DURATION:PT15M", "RRULE:FREQ=DAILY;BYHOUR=2,3;BYMINUTE=0,30"),
    );
    const window = { start: far(2040, 3, 11, 6, 30), endExclusive: far(2040, 3, 13) };
    const whole = searchAll(calendar, window, "startWithin").map(eventIdOf);
    expect(new Set(whole).size).toBe(whole.length);
    for (const limit of [1, 2, 3]) expect(searchAll(calendar, window, "startWithin", limit).map(eventIdOf)).toEqual(whole);
  });

  it("an RDATE period on a rule's slot keeps its own end when a page is judged", () => {
    const calendar = snapshot(
      ...vevent(
        "UID:p",
        "DTSTART:20260101T000000Z",
        "DURATION:PT3H",
        "RRULE:FREQ=HOURLY",
        "RDATE;VALUE=PERIOD:20400601T070000Z/20400601T073000Z",
      ),
    );
    const window = { start: far(2040, 6, 1, 9, 30), endExclusive: far(2040, 6, 1, 12) };
    const hours = (limit: number) =>
      searchAll(calendar, window, "overlap", limit).map((occurrence) => new Date(occurrence.start).getUTCHours());
    expect(hours(100)).toEqual([7, 8, 9, 10, 11].filter((hour) => hour !== 7));
    expect(hours(1)).toEqual(hours(100));
  });

  it("a long look-back does not use up the per-query cap before the window", () => {
    const calendar = snapshot(...vevent("UID:m", "DTSTART:20260101T000000Z", "DURATION:P14D", "RRULE:FREQ=MINUTELY"));
    const page = searchPage(calendar, {
      window: { start: far(2040, 6, 1, 9), endExclusive: far(2040, 6, 1, 9, 5) },
      mode: "startWithin",
      limit: 5,
    });
    expect(page.occurrences).toHaveLength(5);
  });

  it("an RDATE given in UTC inside a fold keeps its instant", () => {
    const calendar = snapshot(...vevent("UID:f", "DTSTART;TZID=America/New_York:20261025T013000", "RDATE:20261101T063000Z"));
    const found = searchAll(calendar, { start: far(2026, 11, 1), endExclusive: far(2026, 11, 2) }, "startWithin");
    expect(found.map((occurrence) => new Date(occurrence.start).toISOString())).toEqual(["2026-11-01T06:30:00.000Z"]);
  });

  it("COUNT counts DTSTART even when it is not a date of the rule (RFC 5545 §3.3.10)", () => {
    const calendar = snapshot(...vevent("UID:c", "DTSTART:20260303T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"));
    const found = searchAll(calendar, { start: far(2026, 3, 1), endExclusive: far(2026, 4, 1) }, "startWithin");
    expect(found.map((occurrence) => new Date(occurrence.start).getUTCDate())).toEqual([3, 9, 16]);
  });

  it("a dense EXRULE keeps excluding, far from the load too", () => {
    // The build runs out of its expansion work and leaves the series to each query, as with the default
    // budget (1,000,000 rule dates, some 7 s here): a smaller one reaches the same state sooner.
    const calendar = buildSnapshot(
      ics(
        "X-WR-TIMEZONE:America/New_York",
        ...vevent("UID:x", "DTSTART:20260101T090000Z", "RRULE:FREQ=DAILY", "EXRULE:FREQ=SECONDLY;BYHOUR=9"),
      ),
      { calendarId: "t", limits: { ...defaultLimits(readAt), maxExpansionWork: 50_000 }, readAt },
    );
    expect(calendar.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["EXPANSION_BUDGET_EXHAUSTED"]);
    const page = searchPage(calendar, { window: { start: far(2040, 1, 1), endExclusive: far(2040, 1, 20) }, mode: "overlap", limit: 5 });
    expect(page.occurrences).toEqual([]);
    expect(page.complete).toBe(true);
  });
});

/**
 * Paging through occurrences that are expanded on demand (outside the
 * materialised years): pages stop expanding early, and must still
 * concatenate to the unpaged result.
 */
import { describe, expect, it } from "vitest";
import { eventIdOf } from "../../src/expand/occurrence.js";
import type { MatchMode } from "../../src/search/match.js";
import { searchPage } from "../../src/search/search-occurrences.js";
import type { Snapshot } from "../../src/store/snapshot.js";
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
    ...vevent("UID:daily", "DTSTART;TZID=America/New_York:20200101T090000", "DURATION:PT90M", "RRULE:FREQ=DAILY", "EXDATE;TZID=America/New_York:21900305T090000"),
    ...vevent("UID:hourly", "DTSTART;TZID=America/New_York:20200101T000000", "DURATION:PT2H", "RRULE:FREQ=HOURLY;INTERVAL=5"),
    ...vevent("UID:weekly", "DTSTART;TZID=America/New_York:20200104T083000", "DTEND;TZID=America/New_York:20200104T093000", "RRULE:FREQ=WEEKLY;BYDAY=SA,SU"),
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
    const events = Array.from({ length: 20 }, (_, i) => vevent(`UID:long-${i}`, "DTSTART:20200101T000000Z", "DURATION:P5000W", "RRULE:FREQ=DAILY"));
    const calendar = snapshot(...events.flat());
    const page = searchPage(calendar, { window: { start: Date.UTC(2150, 0, 1), endExclusive: Date.UTC(2150, 0, 2) }, mode: "overlap", limit: 10 });
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
    const page = searchPage(calendar, { window: { start: afterCap - 2000, endExclusive: afterCap + 60_000 }, mode: "startWithin", limit: 10 });
    expect(page.occurrences.map((occurrence) => occurrence.start - afterCap)).toEqual([-2000, -1000]);
  });
});

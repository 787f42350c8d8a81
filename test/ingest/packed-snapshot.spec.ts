/**
 * A snapshot packed in an ingest worker and unpacked on the main thread
 * answers every search exactly as a snapshot built on the main thread, its
 * arrays shared rather than copied, its on-demand series rebuilt from their
 * recipes.
 */
import { describe, expect, it } from "vitest";
import { eventIdOf, type Occurrence } from "../../src/expand/occurrence.js";
import type { Window } from "../../src/search/match.js";
import { ics, plusThreeZone, searchAll, snapshotOf, vevent } from "../support/feeds.js";
import { workerBuild } from "../support/worker-build.js";

const readAt = Date.UTC(2026, 10, 29);

const text = ics(
  "X-WR-TIMEZONE:America/New_York",
  ...vevent("UID:single", "DTSTART:20261201T150000Z", "DTEND:20261201T160000Z", "SUMMARY:single", "LOCATION:Room 1"),
  ...vevent("UID:allday", "DTSTART;VALUE=DATE:20261224", "SUMMARY:holiday", "RRULE:FREQ=YEARLY"),
  ...vevent(
    "UID:weekly",
    "DTSTART;TZID=America/New_York:20200104T083000",
    "DTEND;TZID=America/New_York:20200104T093000",
    "RRULE:FREQ=WEEKLY;BYDAY=SA,SU",
    "EXDATE;TZID=America/New_York:21500104T083000",
  ),
  ...vevent(
    "UID:weekly",
    "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=America/New_York:21500301T083000",
    "DTSTART;TZID=America/New_York:21500301T103000",
    "DTEND;TZID=America/New_York:21500301T110000",
    "SUMMARY:moved later",
  ),
  ...vevent("UID:berlin", "DTSTART;TZID=Europe/Berlin:20260101T090000", "DURATION:PT1H", "RRULE:FREQ=MONTHLY;BYDAY=2TH,-1FR"),
  ...vevent("UID:hourly", "DTSTART:20260101T000000Z", "RRULE:FREQ=HOURLY;INTERVAL=5;COUNT=200000"),
);

const view = (occurrence: Occurrence) => ({
  id: eventIdOf(occurrence),
  start: occurrence.start,
  end: occurrence.end,
  details: occurrence.details,
});

const windows: Record<string, Window> = {
  "the materialised years": { start: Date.UTC(2026, 10, 1), endExclusive: Date.UTC(2027, 1, 1) },
  "far future (on demand, THISANDFUTURE)": { start: Date.UTC(2150, 0, 1), endExclusive: Date.UTC(2150, 3, 1) },
  "far past (on demand)": { start: Date.UTC(2021, 0, 1), endExclusive: Date.UTC(2021, 1, 1) },
};

describe("a packed snapshot", () => {
  const original = snapshotOf(text, readAt);
  const unpacked = workerBuild(text, { readAt });

  for (const [name, window] of Object.entries(windows)) {
    for (const mode of ["overlap", "startWithin"] as const) {
      it(`answers ${name} exactly as the original (${mode}), in pages of 7 too`, () => {
        const expected = searchAll(original, window, mode).map(view);
        expect(expected.length).toBeGreaterThan(0);
        expect(searchAll(unpacked, window, mode).map(view)).toEqual(expected);
        expect(searchAll(unpacked, window, mode, 7).map(view)).toEqual(expected);
      });
    }
  }

  it("holds every occurrence of the original, in index order, equal field for field", () => {
    expect(unpacked.index.size).toBe(original.index.size);
    expect(unpacked.index.items).toStrictEqual(original.index.items);
  });

  it("keeps the snapshot's facts: zone, counts, diagnostics", () => {
    const built = snapshotOf(text, readAt);
    const size = built.index.size;
    const copy = unpacked;
    expect(copy).toMatchObject({
      calendarId: built.calendarId,
      zoneSource: built.zoneSource,
      dataAsOf: built.dataAsOf,
      eventCount: built.eventCount,
    });
    expect(copy.zone.name).toBe("America/New_York");
    expect(copy.diagnostics).toEqual(built.diagnostics);
    expect(copy.index.size).toBe(size);
    expect(size).toBeGreaterThan(1000);
    expect(copy.tails.length).toBe(built.tails.length);
    expect(built.tails.length).toBeGreaterThan(0);
  });

  it("shares its arrays with the thread that built it rather than copying them", () => {
    const { starts } = unpacked.index.parts;
    expect(starts.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it("carries a feed's own VTIMEZONE that a series uses, and answers in it far from the materialised years", () => {
    const custom = ics(
      ...plusThreeZone("Office Time"),
      ...vevent("UID:custom", "DTSTART;TZID=Office Time:20200101T090000", "RRULE:FREQ=DAILY"),
    );
    const built = snapshotOf(custom, readAt, "UTC");
    expect(built.tails.length).toBe(1);
    const copy = workerBuild(custom, { readAt, configuredZone: "UTC" });
    for (const window of Object.values(windows)) {
      const expected = searchAll(built, window, "overlap").map(view);
      expect(expected.length).toBeGreaterThan(0);
      expect(searchAll(copy, window, "overlap").map(view)).toEqual(expected);
    }
  });
});

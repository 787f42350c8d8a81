/**
 * Working time as instants (search/working-time.ts): weekly hours across
 * DST changes (a spring-forward morning is shorter, a fall-back hour is
 * two stretches), days never joined, and a feed's VAVAILABILITY by its
 * ranges and priorities (RFC 7953), where time outside every range is not
 * restricted.
 */
import { describe, expect, it } from "vitest";
import type { Availability } from "../../src/ics/availability.js";
import { availableWorkingTime, holds, weeklyWorkingTime } from "../../src/search/working-time.js";
import { ianaZone } from "../../src/time/zones.js";

const HOUR = 3_600_000;
const ny = ianaZone("America/New_York")!;
const everyDay = new Set([1, 2, 3, 4, 5, 6, 7]);

describe("weekly working time", () => {
  it("is as long as the wall clock says across a spring-forward: 01:00 to 04:00 lasts two hours on 2026-03-08", () => {
    const day = Date.UTC(2026, 2, 8);
    const spans = weeklyWorkingTime({ zone: ny, days: everyDay, startMinute: 60, endMinute: 240 }, day, day + 2 * 24 * HOUR);
    expect(spans[0]).toEqual({ start: Date.UTC(2026, 2, 8, 6), end: Date.UTC(2026, 2, 8, 8) });
  });

  it("is two stretches where the fall-back repeats the hours: 01:00 to 01:30 happens twice on 2026-11-01", () => {
    const day = Date.UTC(2026, 10, 1);
    const spans = weeklyWorkingTime({ zone: ny, days: new Set([7]), startMinute: 60, endMinute: 90 }, day, day + 24 * HOUR);
    expect(spans).toEqual([
      { start: Date.UTC(2026, 10, 1, 5), end: Date.UTC(2026, 10, 1, 5, 30) },
      { start: Date.UTC(2026, 10, 1, 6), end: Date.UTC(2026, 10, 1, 6, 30) },
    ]);
    // A meeting across the jump would see 01:00 to 01:30 twice and nothing after: not within the hours.
    expect(holds(spans, Date.UTC(2026, 10, 1, 5, 15), Date.UTC(2026, 10, 1, 6, 15))).toBe(false);
    expect(holds(spans, Date.UTC(2026, 10, 1, 6), Date.UTC(2026, 10, 1, 6, 30))).toBe(true);
  });

  it("never joins two days, even when one's hours end at midnight and the next's begin there", () => {
    const from = Date.UTC(2026, 9, 5, 4);
    const spans = weeklyWorkingTime({ zone: ny, days: everyDay, startMinute: 0, endMinute: 1440 }, from, from + 3 * 24 * HOUR);
    const midnight = Date.UTC(2026, 9, 6, 4);
    expect(holds(spans, midnight - HOUR, midnight)).toBe(true);
    expect(holds(spans, midnight - HOUR, midnight + HOUR)).toBe(false);
  });
});

describe("working time from a feed's VAVAILABILITY", () => {
  const weekdays8to12: Availability = {
    start: Date.UTC(2026, 0, 1, 5),
    priority: 10,
    available: [{ zone: "America/New_York", startLocal: Date.UTC(2026, 0, 5, 8), wallMs: 4 * HOUR, exactMs: 0, weekdays: [1, 2, 3, 4, 5] }],
  };

  it("is the AVAILABLE periods within its range, from their first one on, and unrestricted before the range", () => {
    const from = Date.UTC(2025, 11, 31, 5); // Wednesday 2025-12-31, 00:00 in New York
    const spans = availableWorkingTime([weekdays8to12], ny, from, from + 7 * 24 * HOUR);
    // The range opens on Thursday 2026-01-01; the weekly period starts on Monday 2026-01-05.
    expect(spans).toEqual([
      { start: from, end: Date.UTC(2026, 0, 1, 5) },
      { start: Date.UTC(2026, 0, 5, 13), end: Date.UTC(2026, 0, 5, 17) },
      { start: Date.UTC(2026, 0, 6, 13), end: Date.UTC(2026, 0, 6, 17) },
    ]);
  });

  it("lets a higher PRIORITY speak where ranges overlap: a week of leave with no AVAILABLE empties it", () => {
    const leave: Availability = { start: Date.UTC(2026, 9, 12, 4), end: Date.UTC(2026, 9, 17, 4), priority: 1, available: [] };
    const from = Date.UTC(2026, 9, 9, 4); // Friday 2026-10-09
    const spans = availableWorkingTime([weekdays8to12, leave], ny, from, from + 11 * 24 * HOUR);
    const days = spans.map((span) => new Date(span.start).toISOString().slice(0, 10));
    expect(days).toEqual(["2026-10-09", "2026-10-19"]);
  });

  it("reads floating periods in the calendar's zone", () => {
    const floating: Availability = {
      priority: 10,
      available: [{ zone: "", startLocal: Date.UTC(2026, 9, 5, 9), wallMs: HOUR, exactMs: 0 }],
    };
    const berlin = ianaZone("Europe/Berlin")!;
    expect(availableWorkingTime([floating], berlin, Date.UTC(2026, 9, 5), Date.UTC(2026, 9, 6))).toEqual([
      { start: Date.UTC(2026, 9, 5, 7), end: Date.UTC(2026, 9, 5, 8) },
    ]);
  });
});

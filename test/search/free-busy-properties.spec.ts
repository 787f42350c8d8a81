/**
 * Free/busy and free slots against brute force: the merged busy time equals
 * a minute-by-minute reference, and the free slots equal, slot for slot, the
 * first slots found by scanning every minute of the window with luxon (an
 * independent reading of the zone) across DST changes in four zones.
 */
import fc from "fast-check";
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { type BusyInterval, blockedTime, busyKindOf, mergeBusy } from "../../src/search/busy-time.js";
import { findFreeSlots, type WorkingHours } from "../../src/search/free-slots.js";
import { ianaZone } from "../../src/time/zones.js";

const MINUTE = 60_000;

const busyIntervals = (windowStart: number, minutes: number) =>
  fc
    .array(
      fc.record({
        from: fc.integer({ min: -60, max: minutes + 60 }),
        length: fc.integer({ min: 0, max: 240 }),
        kind: fc.constantFrom<BusyInterval["kind"]>("busy", "tentative"),
      }),
      { maxLength: 12 },
    )
    .map((items) =>
      items.map(({ from, length, kind }) => ({ start: windowStart + from * MINUTE, end: windowStart + (from + length) * MINUTE, kind })),
    );

describe("merged busy time", () => {
  const windowStart = Date.UTC(2026, 10, 1);
  const minutes = 24 * 60;

  it("equals the minute-by-minute union, busy over tentative, with touching intervals of a kind merged", () => {
    fc.assert(
      fc.property(busyIntervals(windowStart, minutes), (intervals) => {
        const merged = mergeBusy(intervals, windowStart, windowStart + minutes * MINUTE);
        // Minute by minute, the kind the merge gives and the kind the intervals give, compared at once.
        const given: (string | undefined)[] = [];
        const expected: (string | undefined)[] = [];
        for (let m = 0; m < minutes; m++) {
          const t = windowStart + m * MINUTE;
          const covering = intervals.filter((interval) => interval.start <= t && t < interval.end);
          expected.push(covering.some((interval) => interval.kind === "busy") ? "busy" : covering.length > 0 ? "tentative" : undefined);
          given.push(merged.find((interval) => interval.start <= t && t < interval.end)?.kind);
        }
        expect(given).toEqual(expected);
        for (let i = 1; i < merged.length; i++) {
          expect(merged[i].start).toBeGreaterThanOrEqual(merged[i - 1].end);
          if (merged[i].start === merged[i - 1].end) expect(merged[i].kind).not.toBe(merged[i - 1].kind);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("blocks the same time whether read from every calendar's intervals or from their combined merge, tentative counted or not", () => {
    // FindFreeSlots reads the blocked time from the combined merge: busy wherever any calendar is busy.
    const end = windowStart + minutes * MINUTE;
    fc.assert(
      fc.property(fc.array(busyIntervals(windowStart, minutes), { maxLength: 4 }), fc.boolean(), (calendars, tentativeBlocks) => {
        const each = calendars.flatMap((intervals) => mergeBusy(intervals, windowStart, end));
        expect(blockedTime(mergeBusy(each, windowStart, end), tentativeBlocks, windowStart, end)).toEqual(
          blockedTime(each, tentativeBlocks, windowStart, end),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("merges touching half-open intervals: [9:00, 10:00) and [10:00, 11:00) give [9:00, 11:00)", () => {
    const nine = Date.UTC(2026, 9, 2, 9);
    const hour = 60 * MINUTE;
    expect(
      mergeBusy(
        [
          { start: nine, end: nine + hour, kind: "busy" },
          { start: nine + hour, end: nine + 2 * hour, kind: "busy" },
        ],
        nine - hour,
        nine + 5 * hour,
      ),
    ).toEqual([{ start: nine, end: nine + 2 * hour, kind: "busy" }]);
  });

  it("lets neither cancelled, transparent nor zero-duration occurrences block; tentative is its own kind", () => {
    expect(busyKindOf(0, MINUTE, "", false)).toBe("busy");
    expect(busyKindOf(0, MINUTE, "CONFIRMED", false)).toBe("busy");
    expect(busyKindOf(0, MINUTE, "TENTATIVE", false)).toBe("tentative");
    expect(busyKindOf(0, MINUTE, "CANCELLED", false)).toBeUndefined();
    expect(busyKindOf(0, MINUTE, "", true)).toBeUndefined();
    expect(busyKindOf(0, 0, "", false)).toBeUndefined();
  });
});

/** The zones and DST changes the slots are checked across (Lord Howe moves by 30 minutes). */
const CHANGES = [
  { zone: "America/New_York", at: Date.UTC(2026, 10, 1, 6) },
  { zone: "America/New_York", at: Date.UTC(2026, 2, 8, 7) },
  { zone: "Europe/London", at: Date.UTC(2026, 2, 29, 1) },
  { zone: "Australia/Lord_Howe", at: Date.UTC(2026, 3, 4, 15) },
  { zone: "Asia/Ho_Chi_Minh", at: Date.UTC(2026, 9, 2, 2) },
];

/** The brute-force reading: scan every minute of the window, decide each candidate with luxon. */
function bruteForceSlots(
  zone: string,
  start: number,
  end: number,
  durationMinutes: number,
  stepMinutes: number,
  hours: WorkingHours | undefined,
  blocked: readonly { start: number; end: number }[],
  limit: number,
): { start: number; end: number }[] {
  // One luxon reading per minute, kept: the scan asks for most minutes several times.
  const readings = new Map<number, DateTime>();
  const local = (t: number) => {
    const kept = readings.get(t);
    if (kept !== undefined) return kept;
    const reading = DateTime.fromMillis(t, { zone });
    readings.set(t, reading);
    return reading;
  };
  const minuteOfDay = (t: number) => local(t).hour * 60 + local(t).minute;
  const slots: { start: number; end: number }[] = [];
  for (let t = start; t + durationMinutes * MINUTE <= end && slots.length < limit; t += MINUTE) {
    if (minuteOfDay(t) % stepMinutes !== 0) continue;
    const slotEnd = t + durationMinutes * MINUTE;
    if (blocked.some((interval) => interval.start < slotEnd && interval.end > t)) continue;
    if (hours !== undefined) {
      const day = local(t).toISODate();
      let inside = hours.days.has(local(t).weekday);
      for (let u = t; inside && u < slotEnd; u += MINUTE) {
        const m = minuteOfDay(u);
        inside = local(u).toISODate() === day && m >= hours.startMinute && m < hours.endMinute;
      }
      if (!inside) continue;
    }
    slots.push({ start: t, end: slotEnd });
  }
  return slots;
}

describe("free slots", () => {
  it("are the first slots a minute-by-minute scan finds: aligned, outside blocked time, inside working hours, across DST", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CHANGES),
        fc.integer({ min: -36, max: 12 }),
        fc.constantFrom(15, 30, 45, 60, 90),
        fc.constantFrom(15, 30, 60),
        fc.option(
          fc.record({
            days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
            startMinute: fc.integer({ min: 0, max: 22 * 4 }).map((quarter) => quarter * 15),
            length: fc.integer({ min: 1, max: 12 * 4 }).map((quarters) => quarters * 15),
          }),
          { nil: undefined },
        ),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        ({ zone, at }, hoursBefore, duration, step, hours, limit, tentativeBlocks) => {
          const start = at + hoursBefore * 60 * MINUTE;
          const end = start + 48 * 60 * MINUTE;
          const intervals = fc.sample(busyIntervals(start, 48 * 60), { numRuns: 1, seed: start })[0];
          const blocked = blockedTime(mergeBusy(intervals, start, end), tentativeBlocks, start, end);
          const workingHours =
            hours === undefined
              ? undefined
              : { days: new Set(hours.days), startMinute: hours.startMinute, endMinute: Math.min(1440, hours.startMinute + hours.length) };
          const slots = findFreeSlots(blocked, {
            start,
            endExclusive: end,
            zone: ianaZone(zone)!,
            durationMs: duration * MINUTE,
            stepMs: step * MINUTE,
            workingHours,
            limit,
          });
          expect(slots).toEqual(bruteForceSlots(zone, start, end, duration, step, workingHours, blocked, limit));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("offers 01:30 twice on the New York fall-back day, once per instant, and never a time in the spring-forward gap", () => {
    const ny = ianaZone("America/New_York")!;
    const fallBack = Date.UTC(2026, 10, 1, 4); // 00:00 EDT on 2026-11-01
    const slots = findFreeSlots([], {
      start: fallBack,
      endExclusive: fallBack + 4 * 3_600_000,
      zone: ny,
      durationMs: 30 * MINUTE,
      stepMs: 30 * MINUTE,
      limit: 10,
    });
    const shown = slots.map((slot) => DateTime.fromMillis(slot.start, { zone: "America/New_York" }).toFormat("HH:mm ZZ"));
    expect(shown).toEqual([
      "00:00 -04:00",
      "00:30 -04:00",
      "01:00 -04:00",
      "01:30 -04:00",
      "01:00 -05:00",
      "01:30 -05:00",
      "02:00 -05:00",
      "02:30 -05:00",
    ]);
    const springForward = Date.UTC(2026, 2, 8, 5); // 00:00 EST on 2026-03-08
    const spring = findFreeSlots([], {
      start: springForward,
      endExclusive: springForward + 4 * 3_600_000,
      zone: ny,
      durationMs: 30 * MINUTE,
      stepMs: 30 * MINUTE,
      limit: 10,
    });
    const springShown = spring.map((slot) => DateTime.fromMillis(slot.start, { zone: "America/New_York" }).toFormat("HH:mm"));
    expect(springShown).toEqual(["00:00", "00:30", "01:00", "01:30", "03:00", "03:30", "04:00", "04:30"]);
  });

  it("refuses a slot that the fall-back carries back before the start of working hours", () => {
    const ny = ianaZone("America/New_York")!;
    const midnight = Date.UTC(2026, 10, 1, 4); // 00:00 EDT on 2026-11-01
    const hours = { days: new Set([1, 2, 3, 4, 5, 6, 7]), startMinute: 75, endMinute: 300 }; // 01:15 to 05:00
    const query = {
      start: midnight,
      endExclusive: midnight + 7 * 3_600_000,
      zone: ny,
      durationMs: 90 * MINUTE,
      stepMs: 30 * MINUTE,
      workingHours: hours,
      limit: 20,
    };
    const slots = findFreeSlots([], query);
    // 01:30 EDT + 90 minutes runs through 01:00-01:15 EST, before work starts: not a slot.
    expect(slots.map((slot) => DateTime.fromMillis(slot.start, { zone: "America/New_York" }).toFormat("HH:mm ZZ"))[0]).toBe("01:30 -05:00");
    expect(slots).toEqual(bruteForceSlots("America/New_York", query.start, query.endExclusive, 90, 30, hours, [], 20));
  });
});

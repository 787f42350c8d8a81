/**
 * Series of one fixed-step rule (FREQ=HOURLY, MINUTELY or SECONDLY with no
 * BY part but DTSTART's) in UTC give their next slot by arithmetic
 * (Series.slotBoundFrom), so a search opens only the series whose next
 * occurrence comes first. The bound must never pass a real occurrence:
 * searches expanded on demand must find exactly what the same feed
 * materialised finds, EXDATE, COUNT and UNTIL included.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Budget } from "../../src/expand/budget.js";
import { eventIdOf, type Occurrence } from "../../src/expand/occurrence.js";
import { OnDemandSeries } from "../../src/expand/series-tail.js";
import { buildSnapshot } from "../../src/ingest/snapshot.js";
import type { MatchMode } from "../../src/search/match.js";
import { feed, searchAll, snapshotOf } from "../support/feeds.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Far from 2026: with the feed loaded in 2026 this is expanded on demand; loaded at WINDOW_BASE it is materialised. */
const WINDOW_BASE = Date.UTC(2150, 2, 1);
const FREQUENCIES = [
  { freq: "HOURLY", step: 3_600_000 },
  { freq: "MINUTELY", step: 60_000 },
  { freq: "SECONDLY", step: 1_000 },
] as const;

/** An instant as a UTC DATE-TIME value: 20260101T090000Z. */
const compact = (instant: number) =>
  new Date(instant)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

const view = (occurrence: Occurrence) => `${eventIdOf(occurrence)} ${occurrence.start} ${occurrence.end}`;

const seriesArbitrary = fc.record({
  kind: fc.constantFrom(...FREQUENCIES),
  interval: fc.integer({ min: 1, max: 7 }),
  // DTSTART within a few steps of the window, before or inside it.
  startOffsetSteps: fc.integer({ min: -5_000, max: 50 }),
  startSecond: fc.integer({ min: 0, max: 59 }),
  end: fc.constantFrom("none", "count", "until"),
  endSteps: fc.integer({ min: 1, max: 6_000 }),
  exdates: fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 4 }),
  durationSeconds: fc.constantFrom(0, 1, 59, 3_600, 7_200),
});

type SeriesShape = typeof seriesArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The series' DTSTART and the step between its slots, in milliseconds. */
function slotsOf(series: SeriesShape): { start: number; step: number } {
  const step = series.kind.step * series.interval;
  return {
    start: WINDOW_BASE + series.startOffsetSteps * step + series.startSecond * 1000 * (series.kind.freq === "SECONDLY" ? 0 : 1),
    step,
  };
}

function feedOf(series: SeriesShape): string {
  const { start, step } = slotsOf(series);
  const rule = [`FREQ=${series.kind.freq}`, `INTERVAL=${series.interval}`];
  if (series.end === "count") rule.push(`COUNT=${series.endSteps}`);
  if (series.end === "until") rule.push(`UNTIL=${compact(start + series.endSteps * step)}`);
  return feed(
    ["X-WR-TIMEZONE:UTC"],
    [
      "UID:fixed@calq.test",
      `DTSTART:${compact(start)}`,
      `DURATION:PT${series.durationSeconds}S`,
      `RRULE:${rule.join(";")}`,
      ...series.exdates.map((slot: number) => `EXDATE:${compact(start + slot * step)}`),
    ],
  );
}

/**
 * The start of the series' first occurrence that `accepts` takes, by RFC 5545
 * arithmetic rather than by calq: slot k starts at DTSTART + k steps, COUNT
 * counts slots before EXDATE removes any, UNTIL is inclusive. Infinity when
 * none is accepted. Only slots that can end after the window starts are looked at.
 */
function firstAccepted(series: SeriesShape, window: { start: number; endExclusive: number }, accepts: (occurrence: Occurrence) => boolean) {
  const { start, step } = slotsOf(series);
  const duration = series.durationSeconds * 1000;
  const excluded = new Set(series.exdates);
  const lastSlot = series.end === "none" ? Number.POSITIVE_INFINITY : series.end === "count" ? series.endSteps - 1 : series.endSteps;
  for (
    let k = Math.max(0, Math.floor((window.start - duration - start) / step));
    start + k * step < window.endExclusive && k <= lastSlot;
    k++
  ) {
    const slot = start + k * step;
    if (!excluded.has(k) && accepts({ start: slot, end: slot + duration } as Occurrence)) return slot;
  }
  return Number.POSITIVE_INFINITY;
}

describe("fixed-step series expanded on demand", () => {
  it("find exactly what the same feed materialised finds", () => {
    fc.assert(
      fc.property(
        seriesArbitrary,
        fc.integer({ min: -2 * DAY, max: DAY }),
        fc.integer({ min: 1, max: 2 * HOUR }),
        fc.constantFrom<MatchMode>("overlap", "startWithin"),
        (series, windowOffset, windowLength, mode) => {
          const text = feedOf(series);
          const window = { start: WINDOW_BASE + windowOffset, endExclusive: WINDOW_BASE + windowOffset + windowLength };
          const onDemand = snapshotOf(text, Date.UTC(2026, 10, 29));
          // Every occurrence that can meet the window (none lasts over 2 h) is in the index here.
          const materialised = buildSnapshot(text, {
            calendarId: "t",
            readAt: WINDOW_BASE,
            limits: {
              hotStart: window.start - 3 * HOUR,
              hotEnd: window.endExclusive + 3 * HOUR,
              maxOccurrencesPerSeries: 1_000_000,
              maxOccurrencesPerFeed: 1_000_000,
              maxExpansionWork: Number.POSITIVE_INFINITY,
            },
          });
          expect(onDemand.tails.length).toBe(1);
          expect(searchAll(onDemand, window, mode, 7).map(view)).toEqual(searchAll(materialised, window, mode, 7).map(view));
        },
      ),
      { numRuns: 100 },
    );
  });

  it("bound each series by its next slot, never past its first occurrence", () => {
    fc.assert(
      fc.property(seriesArbitrary, fc.integer({ min: -2 * DAY, max: DAY }), (series, windowOffset) => {
        const [tail] = snapshotOf(feedOf(series), Date.UTC(2026, 10, 29)).tails;
        if (!(tail instanceof OnDemandSeries)) throw new Error("expected an on-demand series");
        const window = { start: WINDOW_BASE + windowOffset, endExclusive: WINDOW_BASE + windowOffset + DAY };
        const request = {
          ...window,
          startingFrom: Number.NEGATIVE_INFINITY,
          // OVERLAP as the contract reads it: an instant (zero duration) at the window's start is inside.
          accepts: (occurrence: Occurrence) =>
            occurrence.start === occurrence.end
              ? window.start <= occurrence.start && occurrence.start < window.endExclusive
              : occurrence.start < window.endExclusive && occurrence.end > window.start,
          budget: new Budget(),
        };
        const first = firstAccepted(series, window, request.accepts);
        const bound = tail.earliestStart(request);
        expect(bound).toBeLessThanOrEqual(first);
        // With nothing excluded, the bound is the first occurrence's own start.
        if (series.exdates.length === 0 && first !== Number.POSITIVE_INFINITY && series.durationSeconds === 0) expect(bound).toBe(first);
      }),
      { numRuns: 300 },
    );
  });
});

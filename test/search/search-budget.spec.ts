/**
 * A search over many series expanded on demand costs about its answer, not
 * its window, and stops at its budget or its caller's deadline with an exact
 * prefix and a cursor that continues (issue 10).
 */
import { describe, expect, it } from "vitest";
import { compareOccurrences, eventIdOf, type Occurrence } from "../../src/expand/occurrence.js";
import type { SeriesTail } from "../../src/expand/series-tail.js";
import type { Window } from "../../src/search/match.js";
import {
  BEFORE_ALL,
  type Page,
  type Position,
  type SearchableOccurrences,
  searchPage,
  searchPageSteps,
} from "../../src/search/search-occurrences.js";
import { feed, searchAll, snapshotOf } from "../support/feeds.js";

const readAt = Date.UTC(2026, 10, 29);
const HOUR = 3_600_000;
const SERIES = 40;
// Each series starts on its own minute of the hour, 7 minutes apart (mod 60), and lasts 30 minutes.
const minuteOf = (i: number) => (i * 7) % 60;

/** SERIES hourly series without end, loaded in 2026, so 2150 is answered on demand only. */
const calendar = snapshotOf(
  feed(
    ["X-WR-TIMEZONE:UTC"],
    ...Array.from({ length: SERIES }, (_, i) => [
      `UID:h${i}@calq.test`,
      `DTSTART:20260101T00${String(minuteOf(i)).padStart(2, "0")}00Z`,
      "DURATION:PT30M",
      "RRULE:FREQ=HOURLY",
    ]),
  ),
  readAt,
);
const window: Window = { start: Date.UTC(2150, 0, 1, 9), endExclusive: Date.UTC(2150, 0, 1, 15) };

/** The same answer written out from the rules themselves: every series' hours that overlap the window. */
function bruteForce(): string[] {
  const found: Occurrence[] = [];
  const template = searchAll(calendar, window, "startWithin", 1000);
  const detailsOf = new Map(template.map((occurrence) => [occurrence.details.uid, occurrence.details]));
  for (let i = 0; i < SERIES; i++) {
    const details = detailsOf.get(`h${i}@calq.test`)!;
    for (let hour = window.start - HOUR; hour < window.endExclusive; hour += HOUR) {
      const start = hour + minuteOf(i) * 60_000;
      if (start < window.endExclusive && start + 30 * 60_000 > window.start)
        found.push({ start, end: start + 30 * 60_000, slot: start, details });
    }
  }
  return found.sort(compareOccurrences).map(eventIdOf);
}

/** Wraps a calendar's tails to count the batches they are asked for and the occurrences they expand. */
function counted(of: SearchableOccurrences): { calendar: SearchableOccurrences; calls: () => number; expanded: () => number } {
  let calls = 0;
  let expanded = 0;
  const tails = of.tails.map(
    (tail): SeriesTail => ({
      earliestStart: (request) => tail.earliestStart(request),
      next(request, after, wanted, out) {
        calls++;
        const before = out.length;
        const batch = tail.next(request, after, wanted, out);
        expanded += out.length - before;
        return batch;
      },
    }),
  );
  return { calendar: { index: of.index, tails }, calls: () => calls, expanded: () => expanded };
}

/** A clock that moves one millisecond each time it is read. */
function tickingClock(start = 0): () => number {
  let now = start;
  return () => now++;
}

/**
 * Follows every page, partial ones included, as a client with cursors would,
 * on a clock that only moves when a series expands a batch (a millisecond each).
 */
function followAll(limit: number, budgetMs: number): { ids: string[]; pages: Page[] } {
  const ids: string[] = [];
  const pages: Page[] = [];
  let now = 0;
  const working: SearchableOccurrences = {
    index: calendar.index,
    tails: calendar.tails.map((tail) => ({
      earliestStart: (request) => tail.earliestStart(request),
      next(request, after, wanted, out) {
        now += 1;
        return tail.next(request, after, wanted, out);
      },
    })),
  };
  let after: Position | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = searchPage(working, { window, mode: "overlap", limit, after }, { budgetMs, clock: () => now });
    pages.push(page);
    ids.push(...page.occurrences.map(eventIdOf));
    if (page.next === undefined) return { ids, pages };
    after = page.next;
  }
  throw new Error("paging did not end");
}

describe("a page over many on-demand series (k-way merge)", () => {
  it("equals the brute-force sorted result, unpaged and in pages of 1 to 7", () => {
    const expected = bruteForce();
    // Six hours of every series, plus the 08:mm ones of series past the half hour, which end after 09:00.
    const lateStarters = Array.from({ length: SERIES }, (_, i) => minuteOf(i)).filter((minute) => minute > 30).length;
    expect(expected.length).toBe(SERIES * 6 + lateStarters);
    expect(searchAll(calendar, window, "overlap", 1000).map(eventIdOf)).toEqual(expected);
    for (const limit of [1, 2, 3, 7]) expect(searchAll(calendar, window, "overlap", limit).map(eventIdOf)).toEqual(expected);
  });

  it("opens each series once and asks for few more batches than the page holds", () => {
    const { calendar: watched, calls, expanded } = counted(calendar);
    const page = searchPage(watched, { window, mode: "overlap", limit: 20 });
    expect(page.occurrences).toHaveLength(20);
    // S openings plus at most a batch per result: about S + L batches and
    // occurrences, where expanding each series for the page would cost S x L.
    expect(calls()).toBeGreaterThanOrEqual(SERIES);
    expect(calls()).toBeLessThanOrEqual(SERIES + 21);
    expect(expanded()).toBeLessThanOrEqual(2 * (SERIES + 21));
  });
});

describe("a search that runs out of budget", () => {
  it("returns an exact prefix marked partial, and its cursors continue to exactly the unpaged result", () => {
    const expected = bruteForce();
    // A series is opened when its next slot comes first, and each result costs about a batch: a
    // millisecond on this clock, so a 6 ms budget holds a few results of a page of 10.
    const { ids, pages } = followAll(10, 6);
    expect(pages.some((page) => page.partial === "budget")).toBe(true);
    expect(pages.some((page) => page.partial === "budget" && page.occurrences.length < 10)).toBe(true);
    expect(ids).toEqual(expected);
    for (const page of pages.filter((each) => each.partial !== undefined)) {
      expect(page.more).toBe(true);
      expect(page.next).toBeDefined();
    }
  });

  it("with no time to open the first series, returns nothing and a cursor from the start", () => {
    const page = searchPage(calendar, { window, mode: "overlap", limit: 10 }, { budgetMs: 0, clock: tickingClock() });
    expect(page).toMatchObject({ occurrences: [], partial: "budget", more: true, next: BEFORE_ALL });
  });

  it("answers nothing-matches as complete when placing the series used the budget up: an empty heap is the whole answer", () => {
    let now = 0;
    // 20 series that cannot reach the window, each costing a millisecond to rule out.
    const nowhere: SearchableOccurrences = {
      index: calendar.index,
      tails: Array.from({ length: 20 }, () => ({
        earliestStart: () => {
          now += 1;
          return Number.POSITIVE_INFINITY;
        },
        next: () => ({ cut: "none" as const, more: false }),
      })),
    };
    // 2150 is past what the index holds: only the series could answer.
    const page = searchPage(nowhere, { window, mode: "overlap", limit: 10 }, { budgetMs: 15, clock: () => now });
    expect(now).toBeGreaterThan(15);
    expect(page).toMatchObject({ occurrences: [], more: false, complete: true });
    expect(page.partial).toBeUndefined();
  });

  it("does not count time paused for other requests against the budget", () => {
    let now = 0;
    const clock = () => (now += 1);
    const steps = searchPageSteps(calendar, { window, mode: "overlap", limit: 50 }, { budgetMs: 1000, clock });
    let pauses = 0;
    for (;;) {
      // Each reading of the clock is a millisecond of work; each pause for others takes 10 s.
      const step = steps.next();
      if (step.done) {
        expect(step.value.partial).toBeUndefined();
        expect(step.value.occurrences).toHaveLength(50);
        break;
      }
      pauses++;
      now += 10_000;
    }
    expect(pauses).toBeGreaterThan(0);
  });
});

describe("a search past its caller's deadline", () => {
  it("stops at answerBy with what it has, marked deadline", () => {
    const clock = tickingClock(1000);
    const page = searchPage(calendar, { window, mode: "overlap", limit: 100 }, { budgetMs: Infinity, answerBy: 1300, clock });
    expect(page.partial).toBe("deadline");
    expect(page.occurrences.map(eventIdOf)).toEqual(bruteForce().slice(0, page.occurrences.length));
  });

  it("stops at once when the caller has gone", () => {
    const cancelled = new AbortController();
    cancelled.abort();
    const after = { start: window.start, eventId: "x" };
    const page = searchPage(calendar, { window, mode: "overlap", limit: 10, after }, { budgetMs: Infinity, signal: cancelled.signal });
    expect(page).toMatchObject({ occurrences: [], partial: "deadline", next: after });
  });
});

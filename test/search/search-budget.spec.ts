/**
 * A search over many series expanded on demand costs about its answer, not
 * its window, and stops at its budget or its caller's deadline with an exact
 * prefix and a cursor that continues. Its budget counts work, so it stops
 * at the same place on any machine (docs/decisions.md, "Budgets count work").
 */
import { describe, expect, it, vi } from "vitest";
import { compareOccurrences, eventIdOf, type Occurrence } from "../../src/expand/occurrence.js";
import type { SeriesTail } from "../../src/expand/series-tail.js";
import type { Window } from "../../src/search/match.js";
import {
  BEFORE_ALL,
  type Page,
  type PageQuery,
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
      reordered: tail.reordered,
      reachAhead: tail.reachAhead,
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

/** Follows every page, partial ones included, as a client with cursors would, each page with `work` units. */
function followAll(of: SearchableOccurrences, query: Omit<PageQuery, "after">, work: number): { ids: string[]; pages: Page[] } {
  const ids: string[] = [];
  const pages: Page[] = [];
  let after: Position | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = searchPage(of, { ...query, after }, { work });
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

describe("a search that runs out of its work budget", () => {
  it("returns an exact prefix marked partial, and its cursors continue to exactly the unpaged result", () => {
    const expected = bruteForce();
    // Opening the 40 series costs 40 units and each result a few more: 60 units hold a few results of a page of 10.
    const { ids, pages } = followAll(calendar, { window, mode: "overlap", limit: 10 }, 60);
    expect(pages.some((page) => page.partial === "budget")).toBe(true);
    expect(pages.some((page) => page.partial === "budget" && page.occurrences.length < 10)).toBe(true);
    expect(ids).toEqual(expected);
    for (const page of pages.filter((each) => each.partial !== undefined)) {
      expect(page.more).toBe(true);
      expect(page.next).toBeDefined();
    }
  });

  it("with no work to open the first series, returns nothing and a cursor from the start", () => {
    const page = searchPage(calendar, { window, mode: "overlap", limit: 10 }, { work: 0 });
    expect(page).toMatchObject({ occurrences: [], partial: "budget", more: true, next: BEFORE_ALL });
  });

  it("answers nothing-matches as complete once every series is ruled out: an empty heap is the whole answer", () => {
    // 20 series that cannot reach the window, a unit each to rule out.
    const nowhere: SearchableOccurrences = {
      index: calendar.index,
      tails: Array.from({ length: 20 }, () => ({
        reordered: false,
        reachAhead: 0,
        earliestStart: () => Number.POSITIVE_INFINITY,
        next: () => ({ cut: "none" as const, more: false }),
      })),
    };
    // 2150 is past what the index holds: only the series could answer.
    const page = searchPage(nowhere, { window, mode: "overlap", limit: 10 }, { work: 20 });
    expect(page).toMatchObject({ occurrences: [], more: false, complete: true, work: 20 });
    expect(page.partial).toBeUndefined();
  });

  it("gives the same page, pausing at the same points, whatever the clock says", () => {
    const run = () => {
      const steps = searchPageSteps(calendar, { window, mode: "overlap", limit: 50 }, { work: 5_000 });
      let pauses = 0;
      for (;;) {
        const step = steps.next();
        if (step.done) return { pauses, ids: step.value.occurrences.map(eventIdOf), partial: step.value.partial };
        pauses++;
      }
    };
    const still = run();
    let racing = 0;
    vi.spyOn(Date, "now").mockImplementation(() => (racing += 60_000));
    vi.spyOn(performance, "now").mockImplementation(() => (racing += 60_000));
    const raced = run();
    vi.restoreAllMocks();
    expect(racing).toBe(0);
    expect(raced).toEqual(still);
    expect(still.ids).toEqual(bruteForce().slice(0, 50));
  });
});

describe("a search past its caller's deadline", () => {
  it("stops when interrupted with what it has, marked deadline", () => {
    let asked = 0;
    const page = searchPage(calendar, { window, mode: "overlap", limit: 100 }, { work: Infinity, interrupted: () => ++asked > 60 });
    expect(page.partial).toBe("deadline");
    expect(page.occurrences.length).toBeGreaterThan(0);
    expect(page.occurrences.map(eventIdOf)).toEqual(bruteForce().slice(0, page.occurrences.length));
  });

  it("stops at once when the caller has gone", () => {
    const after = { start: window.start, eventId: "x" };
    const page = searchPage(calendar, { window, mode: "overlap", limit: 10, after }, { work: Infinity, interrupted: () => true });
    expect(page).toMatchObject({ occurrences: [], partial: "deadline", next: after });
  });
});

describe("work spent in the window's order", () => {
  // A day of a 5-minute series (288 dates), with one event that holds the word at the window's start.
  const busy = snapshotOf(
    feed(
      ["X-WR-TIMEZONE:UTC"],
      ["UID:tick@calq.test", "DTSTART:20200101T000000Z", "DURATION:PT1M", "RRULE:FREQ=MINUTELY;INTERVAL=5", "SUMMARY:tick"],
      ...Array.from({ length: 5 }, (_, i) => [
        `UID:m${i}@calq.test`,
        `DTSTART:2150010${1 + i}T000000Z`,
        "DURATION:PT30M",
        "SUMMARY:standup",
      ]),
    ),
    readAt,
  );
  const day = { start: Date.UTC(2150, 0, 1), endExclusive: Date.UTC(2150, 0, 2) };

  it("a text search finds the match at a day's start, however many dates a series holds that day", () => {
    const found = searchAll(busy, day, "overlap", 20);
    expect(found).toHaveLength(1 + 288);
    // 200 units cannot rule out the whole day's 288 dates, but the match at its start comes first.
    const words = searchPage(busy, { window: day, mode: "overlap", limit: 5, words: ["standup"] }, { work: 200 });
    expect(words.occurrences.map((occurrence) => occurrence.details.uid)).toEqual(["m0@calq.test"]);
    expect(words.partial).toBe("budget");
    // Following its cursor with the same small budget rules out the rest of the day a page at a time, then ends.
    const { ids, pages } = followAll(busy, { window: day, mode: "overlap", limit: 5, words: ["standup"] }, 200);
    expect(ids).toEqual([eventIdOf(words.occurrences[0])]);
    expect(pages.length).toBeLessThan(5);
  });

  it("a search the budget cuts keeps the matches before the cut, and its cursor goes on to the rest, also past pages that found nothing", () => {
    const week = { start: Date.UTC(2150, 0, 1), endExclusive: Date.UTC(2150, 0, 8) };
    const { ids, pages } = followAll(busy, { window: week, mode: "overlap", limit: 5, words: ["standup"] }, 700);
    expect(pages.some((page) => page.partial === "budget")).toBe(true);
    expect(ids).toEqual(
      searchAll(busy, week, "overlap")
        .filter((o) => o.details.summary === "standup")
        .map(eventIdOf),
    );
    expect(pages.length).toBeLessThan(10);
  });
});

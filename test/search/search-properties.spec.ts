import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareOccurrences, type EventDetails, eventIdOf, type Occurrence } from "../../src/expand/occurrence.js";
import type { SeriesTail } from "../../src/expand/series-tail.js";
import { IntervalIndex } from "../../src/index/interval-index.js";
import type { MatchMode, Window } from "../../src/search/match.js";
import {
  type KeyedCalendar,
  type Position,
  type SearchableOccurrences,
  searchCalendarsPageSteps,
  searchPage,
  UNLIMITED,
} from "../../src/search/search-occurrences.js";
import { runAtOnce } from "../../src/stepwise.js";

/**
 * uidKeys are base64url digests in production; these mix digits, both cases,
 * "-" and "_" so that byte order differs from locale order.
 */
const UID_KEYS = ["k0001", "k0002", "K0001", "k-001", "k_001", "kA001", "ka001", "kz999"];
const SLOT_BASE = Date.UTC(2026, 9, 2, 2);
const HOUR = 3_600_000;
const MODES: readonly MatchMode[] = ["overlap", "startWithin"];

function details(uidKey: string, recurring: boolean, allDay: boolean): EventDetails {
  return {
    uid: `${uidKey}@calq.test`,
    uidKey,
    summary: `event ${uidKey}`,
    location: "",
    searchable: `event ${uidKey}`,
    status: "CONFIRMED",
    transparent: false,
    eventTimezone: allDay ? "" : "Asia/Ho_Chi_Minh",
    allDay,
    recurring,
  };
}

function occurrence(
  start: number,
  end: number,
  uidKey: string,
  { recurring = false, allDay = false, slot = 0 }: { recurring?: boolean; allDay?: boolean; slot?: number } = {},
): Occurrence {
  return { start, end, slot, details: details(uidKey, recurring, allDay) };
}

/** A tail that pushes the same occurrences whatever the window, all at once: extras are allowed. */
function fixedTail(occurrences: readonly Occurrence[]): SeriesTail {
  return {
    reordered: false,
    reachAhead: 0,
    earliestStart: () => Number.NEGATIVE_INFINITY,
    next(_request, _after, _wanted, out) {
      out.push(...occurrences);
      return { cut: "none", more: false };
    },
  };
}

/**
 * A tail that pushes only what may meet the window (closed at both ends, so
 * still loose), `wanted` at a time after `after` in start order, with a
 * truthful lower bound: the way real series (unique starts) are streamed.
 */
function looseTail(occurrences: readonly Occurrence[]): SeriesTail {
  const sorted = [...occurrences].sort(compareOccurrences);
  return {
    reordered: false,
    reachAhead: 0,
    earliestStart: ({ start }) => Math.min(...sorted.filter((candidate) => candidate.end >= start).map((candidate) => candidate.start)),
    next({ start, endExclusive, accepts }, after, wanted, out) {
      const left = sorted.filter((candidate) => candidate.start > after && candidate.start <= endExclusive && candidate.end >= start);
      // Up to the wanted-th accepted one, with the unaccepted ones around it, as a real series pushes them.
      let accepted = 0;
      for (const candidate of left) {
        if (accepted === wanted) return { cut: "none", more: true };
        out.push(candidate);
        if (accepts(candidate)) accepted++;
      }
      return { cut: "none", more: false };
    },
  };
}

function calendarOf(indexed: readonly Occurrence[], tails: readonly SeriesTail[] = []): SearchableOccurrences {
  return { index: new IntervalIndex([...indexed], compareOccurrences), tails };
}

// The oracle: the MatchMode and EventOccurrence comments of calendar_service.proto written out again, independently of src/search/match.ts.

function oracleMatches(o: Occurrence, window: Window, mode: MatchMode): boolean {
  const instant = o.start === o.end;
  if (instant || mode === "startWithin") return window.start <= o.start && o.start < window.endExclusive;
  return o.start < window.endExclusive && o.end > window.start;
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function oracleOrder(a: Occurrence, b: Occurrence): number {
  if (a.start !== b.start) return a.start < b.start ? -1 : 1;
  return byteCompare(eventIdOf(a), eventIdOf(b));
}

function bruteForce(all: readonly Occurrence[], window: Window, mode: MatchMode, after?: Position): Occurrence[] {
  return all
    .filter((o) => oracleMatches(o, window, mode))
    .filter(
      (o) => after === undefined || o.start > after.start || (o.start === after.start && byteCompare(eventIdOf(o), after.eventId) > 0),
    )
    .sort(oracleOrder);
}

/** Readable identity of an occurrence in failure messages. */
function label(o: Occurrence): string {
  return `[${o.start},${o.end}) ${eventIdOf(o)}`;
}

function labels(occurrences: readonly Occurrence[]): string[] {
  return occurrences.map(label);
}

/** Follows every page of a search, as a client with cursors would. */
function followPages(calendar: SearchableOccurrences, window: Window, mode: MatchMode, limit: number) {
  const pages: Array<{ occurrences: readonly Occurrence[]; more: boolean }> = [];
  let after: Position | undefined;
  for (let guard = 0; guard < 500; guard++) {
    const page = searchPage(calendar, { window, mode, limit, after });
    pages.push(page);
    if (!page.more) return pages;
    const last = page.occurrences[page.occurrences.length - 1];
    if (last === undefined) throw new Error("a page that says more follows is empty");
    after = { start: last.start, eventId: eventIdOf(last) };
  }
  throw new Error("paging did not end");
}

/** Checks each page against the oracle's slice, and the concatenation against the whole. */
function expectPagesEqual(calendar: SearchableOccurrences, all: readonly Occurrence[], window: Window, mode: MatchMode, limit: number) {
  const expected = labels(bruteForce(all, window, mode));
  const pages = followPages(calendar, window, mode, limit);
  pages.forEach((page, i) => {
    expect(labels(page.occurrences), `page ${i}`).toEqual(expected.slice(i * limit, (i + 1) * limit));
    expect(page.more, `page ${i} more`).toBe((i + 1) * limit < expected.length);
  });
  const concatenated = pages.flatMap((page) => labels(page.occurrences));
  expect(new Set(concatenated).size).toBe(concatenated.length);
  expect(concatenated).toEqual(expected);
}

// Generators: small integer instants so ties and touching boundaries are common.

/** Where a generated occurrence lives: the index, or one of two tails. */
type Home = "index" | "fixedTail" | "looseTail";

const occurrenceArb = fc
  .record({
    start: fc.integer({ min: 0, max: 24 }),
    length: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 40, max: 400 })),
    key: fc.integer({ min: 0, max: UID_KEYS.length - 1 }),
    recurring: fc.boolean(),
    allDay: fc.boolean(),
    slot: fc.integer({ min: 0, max: 5 }),
    home: fc.constantFrom<Home>("index", "fixedTail", "looseTail"),
  })
  .map(({ start, length, key, recurring, allDay, slot, home }) => ({
    home,
    occurrence: occurrence(start, start + length, UID_KEYS[key], {
      recurring,
      allDay,
      slot: allDay ? Date.UTC(2026, 9, 2 + slot) : SLOT_BASE + slot * HOUR,
    }),
  }));

/** Occurrences with unique event_ids (an event_id is unique in its calendar). */
const universeArb = fc.array(occurrenceArb, { maxLength: 45 }).map((generated) => {
  const seen = new Set<string>();
  return generated.filter(({ occurrence: o }) => {
    const id = eventIdOf(o);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
});

const windowArb: fc.Arbitrary<Window> = fc
  .tuple(fc.integer({ min: -3, max: 27 }), fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 500 })))
  .map(([start, length]) => ({ start, endExclusive: start + length }));

const modeArb = fc.constantFrom(...MODES);

function split(universe: ReadonlyArray<{ home: Home; occurrence: Occurrence }>) {
  const of = (home: Home) => universe.filter((u) => u.home === home).map((u) => u.occurrence);
  const all = universe.map((u) => u.occurrence);
  return {
    all,
    indexedOnly: calendarOf(all),
    withTails: calendarOf(of("index"), [fixedTail(of("fixedTail")), ...seriesOf(of("looseTail")).map(looseTail)]),
  };
}

/** Occurrences dealt into series the way real ones are: no two in one series share a start. */
function seriesOf(occurrences: readonly Occurrence[]): Occurrence[][] {
  const series: Occurrence[][] = [];
  for (const occurrence of occurrences) {
    const home = series.find((members) => members.every((member) => member.start !== occurrence.start));
    if (home === undefined) series.push([occurrence]);
    else home.push(occurrence);
  }
  return series;
}

const RUNS = { numRuns: 300 };

describe("searchPage against a brute-force scan", () => {
  it("returns exactly the matching indexed occurrences, in (start, event_id) byte order, in both modes", () => {
    fc.assert(
      fc.property(universeArb, windowArb, modeArb, (universe, window, mode) => {
        const { all, indexedOnly } = split(universe);
        const page = searchPage(indexedOnly, { window, mode, limit: 1000 });
        expect(labels(page.occurrences)).toEqual(labels(bruteForce(all, window, mode)));
        expect(page.more).toBe(false);
      }),
      RUNS,
    );
  });

  it("merges occurrences from tails with indexed ones, dropping what tails push that does not match", () => {
    fc.assert(
      fc.property(universeArb, windowArb, modeArb, (universe, window, mode) => {
        const { all, withTails } = split(universe);
        const page = searchPage(withTails, { window, mode, limit: 1000 });
        expect(labels(page.occurrences)).toEqual(labels(bruteForce(all, window, mode)));
        expect(page.more).toBe(false);
      }),
      RUNS,
    );
  });

  it("resumes strictly after any position, whether or not an occurrence sits there", () => {
    const positionArb = fc.record({
      start: fc.integer({ min: -3, max: 30 }),
      eventId: fc.oneof(
        fc.constantFrom(...UID_KEYS),
        fc.constantFrom("", "k", "k0001_", "k0001_20261002", "k0001_20261002T030000Z", "K", "k_", "kz9999", "~"),
      ),
    });
    fc.assert(
      fc.property(universeArb, windowArb, modeArb, positionArb, fc.boolean(), (universe, window, mode, after, useTails) => {
        const { all, indexedOnly, withTails } = split(universe);
        const page = searchPage(useTails ? withTails : indexedOnly, { window, mode, limit: 1000, after });
        expect(labels(page.occurrences)).toEqual(labels(bruteForce(all, window, mode, after)));
      }),
      RUNS,
    );
  });

  it("resumes after each matching occurrence's own position with exactly the ones after it", () => {
    fc.assert(
      fc.property(universeArb, windowArb, modeArb, fc.nat(), (universe, window, mode, pick) => {
        const { all, withTails } = split(universe);
        const expected = bruteForce(all, window, mode);
        fc.pre(expected.length > 0);
        const at = pick % expected.length;
        const after = { start: expected[at].start, eventId: eventIdOf(expected[at]) };
        const page = searchPage(withTails, { window, mode, limit: 1000, after });
        expect(labels(page.occurrences)).toEqual(labels(expected.slice(at + 1)));
      }),
      RUNS,
    );
  });
});

describe("pages of a search", () => {
  it("concatenate to the unpaged result, with no duplicates and no gaps, for limits 1 to 7 in both modes", () => {
    fc.assert(
      fc.property(universeArb, windowArb, modeArb, fc.integer({ min: 1, max: 7 }), (universe, window, mode, limit) => {
        const { all, indexedOnly } = split(universe);
        expectPagesEqual(indexedOnly, all, window, mode, limit);
      }),
      RUNS,
    );
  });

  it("concatenate to the unpaged result when tails contribute, for limits 1 to 7 in both modes", () => {
    fc.assert(
      fc.property(universeArb, windowArb, modeArb, fc.integer({ min: 1, max: 7 }), (universe, window, mode, limit) => {
        const { all, withTails } = split(universe);
        expectPagesEqual(withTails, all, window, mode, limit);
      }),
      RUNS,
    );
  });

  it("partition occurrences across adjacent startWithin windows exactly once", () => {
    fc.assert(
      fc.property(universeArb, windowArb, fc.integer({ min: 1, max: 30 }), (universe, first, secondLength) => {
        const { all, withTails } = split(universe);
        const second = { start: first.endExclusive, endExclusive: first.endExclusive + secondLength };
        const whole = { start: first.start, endExclusive: second.endExclusive };
        const query = (window: Window) => labels(searchPage(withTails, { window, mode: "startWithin", limit: 1000 }).occurrences);
        expect([...query(first), ...query(second)]).toEqual(query(whole));
        expect(query(whole)).toEqual(labels(bruteForce(all, whole, "startWithin")));
      }),
      RUNS,
    );
  });
});

describe("searchPage on hand-built calendars", () => {
  const window = { start: 100, endExclusive: 200 };

  it("places a tail occurrence between indexed ones with the same start, by event_id bytes", () => {
    const calendar = calendarOf(
      [occurrence(150, 160, "kA001"), occurrence(150, 150, "k-001"), occurrence(120, 130, "kz999")],
      [fixedTail([occurrence(150, 170, "k0001"), occurrence(150, 155, "ka001"), occurrence(10, 20, "k_001")])],
    );
    const page = searchPage(calendar, { window, mode: "overlap", limit: 10 });
    expect(page.occurrences.map(eventIdOf)).toEqual(["kz999", "k-001", "k0001", "kA001", "ka001"]);
    expect(page.more).toBe(false);
  });

  it("says more follows when a tail holds the occurrence after a full page", () => {
    const calendar = calendarOf(
      [occurrence(110, 120, "k0001"), occurrence(130, 140, "k0002")],
      [fixedTail([occurrence(190, 199, "kz999")])],
    );
    const first = searchPage(calendar, { window, mode: "startWithin", limit: 2 });
    expect(first.occurrences.map(eventIdOf)).toEqual(["k0001", "k0002"]);
    expect(first.more).toBe(true);
    const second = searchPage(calendar, { window, mode: "startWithin", limit: 2, after: { start: 130, eventId: "k0002" } });
    expect(second.occurrences.map(eventIdOf)).toEqual(["kz999"]);
    expect(second.more).toBe(false);
  });

  it("treats boundary cases as MatchMode says, in each mode", () => {
    const occurrences = [
      occurrence(50, 100, "k0001"), // ends at the window start
      occurrence(90, 110, "k0002"), // crosses the start
      occurrence(100, 100, "K0001"), // an instant at the window start
      occurrence(200, 200, "k-001"), // an instant at the exclusive end
      occurrence(190, 210, "k_001"), // crosses the end
      occurrence(200, 210, "kA001"), // starts at the exclusive end
      occurrence(0, 1000, "ka001"), // spans the window
    ];
    const ids = (mode: MatchMode) => searchPage(calendarOf(occurrences), { window, mode, limit: 100 }).occurrences.map(eventIdOf);
    expect(ids("overlap")).toEqual(["ka001", "k0002", "K0001", "k_001"]);
    expect(ids("startWithin")).toEqual(["K0001", "k_001"]);
  });

  it("gives recurring occurrences of one event their own event_ids and orders them by start", () => {
    const series = [0, 1, 2].map((n) =>
      occurrence(100 + 10 * (2 - n), 105 + 10 * (2 - n), "k0001", { recurring: true, slot: SLOT_BASE + n * HOUR }),
    );
    const page = searchPage(calendarOf(series), { window, mode: "overlap", limit: 10 });
    expect(page.occurrences.map(eventIdOf)).toEqual(["k0001_20261002T040000Z", "k0001_20261002T030000Z", "k0001_20261002T020000Z"]);
  });
});

describe("a search of several calendars", () => {
  /** Ids that are prefixes of each other and differ around "-", ".", "_" and case: the merged order is byte order of the id. */
  const CALENDAR_IDS = ["a", "a-b", "a.b", "a_b", "ab", "B", "b", "b0"];
  const calendarsArb = fc
    .uniqueArray(fc.constantFrom(...CALENDAR_IDS), { minLength: 1, maxLength: 4 })
    .chain((ids) =>
      fc.tuple(
        fc.constant([...ids].sort(byteCompare)),
        fc.array(fc.tuple(universeArb, fc.boolean()), { minLength: ids.length, maxLength: ids.length }),
      ),
    );

  function merged(ids: readonly string[], universes: ReadonlyArray<readonly [ReturnType<typeof split>, boolean]>) {
    const calendars: KeyedCalendar[] = ids.map((id, i) => ({
      id,
      occurrences: universes[i][1] ? universes[i][0].withTails : universes[i][0].indexedOnly,
    }));
    const all = ids.flatMap((id, i) => universes[i][0].all.map((occurrence) => ({ id, occurrence })));
    return { calendars, all };
  }

  it("pages through the sorted union by (start, calendar_id, event_id), each result naming its calendar, for limits 1 to 7", () => {
    fc.assert(
      fc.property(calendarsArb, windowArb, modeArb, fc.integer({ min: 1, max: 7 }), ([ids, generated], window, mode, limit) => {
        const { calendars, all } = merged(
          ids,
          generated.map(([universe, tails]) => [split(universe), tails] as const),
        );
        const expected = all
          .filter(({ occurrence }) => oracleMatches(occurrence, window, mode))
          .sort(
            (a, b) =>
              a.occurrence.start - b.occurrence.start ||
              byteCompare(a.id, b.id) ||
              byteCompare(eventIdOf(a.occurrence), eventIdOf(b.occurrence)),
          )
          .map(({ id, occurrence }) => `${id} ${label(occurrence)}`);
        const got: string[] = [];
        let after: Position | undefined;
        for (let guard = 0; ; guard++) {
          expect(guard).toBeLessThan(500);
          const page = runAtOnce(searchCalendarsPageSteps(calendars, { window, mode, limit, after }, UNLIMITED));
          expect(page.occurrences.length).toBeLessThanOrEqual(limit);
          got.push(...page.occurrences.map((occurrence, i) => `${calendars[page.sources[i]].id} ${label(occurrence)}`));
          expect(got).toEqual(expected.slice(0, got.length));
          if (!page.more) break;
          expect(page.occurrences.length).toBe(limit);
          after = page.next;
        }
        expect(got).toEqual(expected);
      }),
      RUNS,
    );
  });
});

/**
 * One occurrence by its event_id (search/find-event.ts, GetEvent), through
 * real feed text: in the index, in a series expanded on demand (also one
 * whose DTSTART lies before the indexed years, so its expansion has two
 * ranges), in a dense series, among many series of other events, and never
 * a wrong "not found" when the look-up could not finish.
 */
import { describe, expect, it } from "vitest";
import { eventIdOf } from "../../src/expand/occurrence.js";
import type { SeriesTail } from "../../src/expand/series-tail.js";
import { buildSnapshot } from "../../src/ingest/snapshot.js";
import { findOccurrenceSteps } from "../../src/search/find-event.js";
import { type SearchableOccurrences, searchPage, UNLIMITED } from "../../src/search/search-occurrences.js";
import { runAtOnce } from "../../src/stepwise.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { DAY_MS, MINUTE_MS } from "../../src/time/units.js";
import { ics, searchAll, vevent } from "../support/feeds.js";

const readAt = Date.UTC(2026, 10, 29, 12);
const limits = defaultLimits(readAt);

function snapshot(text: string, maxOccurrencesPerFeed?: number) {
  return buildSnapshot(text, {
    calendarId: "t",
    limits: maxOccurrencesPerFeed === undefined ? limits : { ...limits, maxOccurrencesPerFeed },
    readAt,
  });
}

const utc = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.000/g, "");

function found(calendar: ReturnType<typeof snapshot>, eventId: string) {
  const result = runAtOnce(findOccurrenceSteps(calendar, eventId, UNLIMITED));
  return "occurrence" in result ? eventIdOf(result.occurrence) : result.missing;
}

describe("a series whose DTSTART lies just before the indexed years, expanded wholly on demand", () => {
  const dtstart = limits.hotStart - 30 * MINUTE_MS;
  const text = ics(...vevent("UID:daily", `DTSTART:${utc(dtstart)}`, "DURATION:PT1H", "RRULE:FREQ=DAILY", "SUMMARY:daily"));
  const onDemand = snapshot(text, 0);
  const indexed = snapshot(text);

  it("is searched as the indexed copy is, across the start of the indexed years", () => {
    expect(onDemand.index.size).toBe(0);
    const window = { start: dtstart + 10 * MINUTE_MS, endExclusive: dtstart + 10 * DAY_MS };
    const ids = (calendar: typeof onDemand) => searchAll(calendar, window, "startWithin", 5).map(eventIdOf);
    expect(ids(indexed)).toHaveLength(9);
    expect(ids(onDemand)).toEqual(ids(indexed));
  });

  it("gives GetEvent each of its occurrences", () => {
    const window = { start: dtstart, endExclusive: dtstart + 10 * DAY_MS };
    for (const occurrence of searchAll(indexed, window, "startWithin")) {
      expect(found(onDemand, eventIdOf(occurrence))).toBe(eventIdOf(occurrence));
    }
  });
});

describe("GetEvent in series expanded on demand", () => {
  it("finds an occurrence of a dense series decades ahead, which a year's expansion around it would cap", () => {
    const dense = snapshot(ics(...vevent("UID:m", "DTSTART:20200101T090000Z", "DURATION:PT1M", "RRULE:FREQ=MINUTELY;INTERVAL=2")));
    const window = { start: Date.UTC(2060, 0, 1), endExclusive: Date.UTC(2060, 0, 2) };
    const [first] = searchPage(dense, { window, mode: "startWithin", limit: 5 }).occurrences;
    expect(found(dense, eventIdOf(first))).toBe(eventIdOf(first));
  });

  it("finds one occurrence among 400 series of other events, asking only its own series for occurrences", () => {
    const lines = Array.from({ length: 400 }, (_, i) =>
      vevent(`UID:s${i}`, "DTSTART:20200101T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", `SUMMARY:s${i}`),
    ).flat();
    const many = snapshot(ics(...lines));
    const window = { start: Date.UTC(2060, 0, 1), endExclusive: Date.UTC(2060, 0, 2) };
    const page = searchPage(many, { window, mode: "startWithin", limit: 400 });
    const last = page.occurrences[page.occurrences.length - 1];
    // Each series counts the times it is asked for occurrences: the look-up must ask only the one it looks for.
    const asked: (string | undefined)[] = [];
    const watched: SearchableOccurrences = {
      index: many.index,
      tails: many.tails.map(
        (tail): SeriesTail => ({
          uidKey: tail.uidKey,
          reordered: tail.reordered,
          reachAhead: tail.reachAhead,
          earliestStart: (request) => tail.earliestStart(request),
          next: (request, after, wanted, out) => {
            asked.push(tail.uidKey);
            return tail.next(request, after, wanted, out);
          },
        }),
      ),
    };
    // Its speed is measured in bench/ (npm run bench:hostile); here the work is counted, not timed.
    const result = runAtOnce(findOccurrenceSteps(watched, eventIdOf(last), UNLIMITED));
    expect("occurrence" in result && eventIdOf(result.occurrence)).toBe(eventIdOf(last));
    expect(asked).toEqual([last.details.uidKey]);
  });

  it("says the look-up ran out of work, never that it found nothing, when it could not finish", () => {
    const dense = snapshot(ics(...vevent("UID:m", "DTSTART:20200101T090000Z", "DURATION:PT1M", "RRULE:FREQ=MINUTELY;INTERVAL=2")));
    const window = { start: Date.UTC(2060, 0, 1), endExclusive: Date.UTC(2060, 0, 2) };
    const [first] = searchPage(dense, { window, mode: "startWithin", limit: 1 }).occurrences;
    const result = runAtOnce(findOccurrenceSteps(dense, eventIdOf(first), { work: 0 }));
    expect(result).toEqual({ missing: "budget" });
  });
});

/**
 * ingestFeed, the one path from feed text to a snapshot (reloads, imports,
 * `calq check`): it builds in a worker thread, answers as a build on this
 * thread would, keeps the event loop free, and stops a build at its deadline.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { generateFeed, generateHourlySeries } from "../../bench/generate-feed.js";
import { DEFAULT_FEED_LIMITS } from "../../src/config/config-model.js";
import { eventIdOf } from "../../src/expand/occurrence.js";
import { OnDemandSeries } from "../../src/expand/series-tail.js";
import { FeedFailure } from "../../src/feeds/feed-read.js";
import { ingestFeed } from "../../src/ingest/ingest.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { ics, plusThreeZone, searchAll, snapshotOf, vevent } from "../support/feeds.js";

const readAt = Date.UTC(2026, 10, 29);
const ingest = (text: string, deadlineMs?: number) =>
  ingestFeed(Buffer.from(text), { id: "t" }, DEFAULT_FEED_LIMITS, defaultLimits(readAt), readAt, { deadlineMs });
const year = { start: Date.UTC(2026, 10, 1), endExclusive: Date.UTC(2027, 10, 1) };

describe("ingestFeed", () => {
  it("answers as a build on this thread does", async () => {
    const text = generateFeed(readAt, { singles: 300, series: 20 });
    const here = snapshotOf(text, readAt);
    const there = await ingest(text);
    expect(searchAll(there, year, "overlap").length).toBeGreaterThan(300);
    expect(searchAll(there, year, "overlap").map(eventIdOf)).toEqual(searchAll(here, year, "overlap").map(eventIdOf));
    expect(there.diagnostics).toEqual(here.diagnostics);
  });

  it("builds in a worker thread: the snapshot arrives packed, and the event loop is not held", async () => {
    // 25 hourly series: a 2 KB feed whose hundreds of thousands of occurrences
    // held this thread for about 280 ms when it sorted them here.
    const text = generateHourlySeries(readAt, 25);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const snapshot = await ingest(text);
    await new Promise((resolve) => setTimeout(resolve, 20));
    delay.disable();
    expect(snapshot.index.size).toBeGreaterThan(100_000);
    // Series rebuilt here from their recipes, not the worker's own objects.
    expect(snapshot.tails.length).toBe(25);
    expect(snapshot.tails[0]).not.toBeInstanceOf(OnDemandSeries);
    // Loose, for busy machines (about 50 ms here; bench/hostile.ts measures it under load).
    expect(delay.max / 1e6).toBeLessThan(500);
  });

  it("builds a series in a feed's own VTIMEZONE on this thread, and answers it", async () => {
    const text = ics(
      "X-WR-TIMEZONE:UTC",
      ...plusThreeZone("Office Time"),
      ...vevent("UID:custom", "DTSTART;TZID=Office Time:20200101T090000", "RRULE:FREQ=DAILY"),
    );
    const snapshot = await ingest(text);
    const far = searchAll(snapshot, { start: Date.UTC(2150, 0, 1), endExclusive: Date.UTC(2150, 0, 3) }, "startWithin");
    expect(far.map((occurrence) => new Date(occurrence.start).toISOString())).toEqual([
      "2150-01-01T06:00:00.000Z",
      "2150-01-02T06:00:00.000Z",
    ]);
  });

  it("stops a build past its deadline as a parse error, and the next build still runs", async () => {
    const text = generateFeed(readAt, { singles: 20_000, series: 0 });
    const refused = ingest(text, 50);
    await expect(refused).rejects.toBeInstanceOf(FeedFailure);
    await expect(refused).rejects.toMatchObject({ failure: "parse_error", message: expect.stringContaining("took longer") });
    const next = await ingest(generateFeed(readAt, { singles: 10, series: 0 }));
    expect(next.eventCount).toBe(10);
  });

  it("refuses text that is not a feed before any worker sees it", async () => {
    await expect(ingest("")).rejects.toMatchObject({ failure: "truncated" });
    await expect(ingest("hello")).rejects.toMatchObject({ failure: "not_icalendar" });
  });
});

/**
 * ingestFeed, the one path from feed text to a snapshot (reloads, imports,
 * `calq check`): it builds in a worker thread, answers as a build on this
 * thread would, keeps the event loop free, and stops a build at its deadline.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateFeed, generateHourlySeries } from "../../bench/generate-feed.js";
import { DEFAULT_FEED_LIMITS } from "../../src/config/config-model.js";
import { eventIdOf } from "../../src/expand/occurrence.js";
import { OnDemandSeries } from "../../src/expand/series-tail.js";
import { FeedFailure } from "../../src/feeds/feed-read.js";
import { BUILD_NICENESS, ingestFeed } from "../../src/ingest/ingest.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { ics, plusThreeZone, searchAll, snapshotOf, summerTimeZone, vevent } from "../support/feeds.js";

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
    // 6 hourly series: a tiny feed of 120,000 occurrences (20,000 each, the
    // series cap) that takes the worker a while to build and sort.
    const text = generateHourlySeries(readAt, 6);
    // A timer that re-arms itself counts the turns of this thread's event loop while the build runs:
    // a build holding the loop lets none run (it was 0 when this feed was built here), one in a worker thousands.
    let turns = 0;
    let building = true;
    const turn = () => {
      if (!building) return;
      turns++;
      setTimeout(turn, 1);
    };
    setTimeout(turn, 1);
    const snapshot = await ingest(text);
    building = false;
    expect(snapshot.index.size).toBeGreaterThan(100_000);
    // Series rebuilt here from their recipes, not the worker's own objects.
    expect(snapshot.tails.length).toBe(6);
    expect(snapshot.tails[0]).not.toBeInstanceOf(OnDemandSeries);
    // How long the loop waits at most is measured by bench/run.ts (the event-loop stall of a reload).
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  it("builds a series in a feed's own VTIMEZONE in a worker too: the zone travels with the snapshot", async () => {
    const text = ics(
      "X-WR-TIMEZONE:UTC",
      ...plusThreeZone("Office Time"),
      ...vevent("UID:custom", "DTSTART;TZID=Office Time:20200101T090000", "RRULE:FREQ=DAILY"),
      // A zone of the feed's own with summer time: its rules, not one offset, cross with it.
      ...summerTimeZone("Office Summer"),
      ...vevent("UID:summer", "DTSTART;TZID=Office Summer:20200101T120000", "RRULE:FREQ=DAILY"),
    );
    const snapshot = await ingest(text);
    // Rebuilt here from its recipe, as every packed snapshot's series are.
    expect(snapshot.tails[0]).not.toBeInstanceOf(OnDemandSeries);
    const starts = (start: number) =>
      searchAll(snapshot, { start, endExclusive: start + 2 * 86_400_000 }, "startWithin").map((occurrence) =>
        new Date(occurrence.start).toISOString(),
      );
    expect(starts(Date.UTC(2150, 0, 1))).toEqual([
      "2150-01-01T06:00:00.000Z",
      "2150-01-01T11:00:00.000Z",
      "2150-01-02T06:00:00.000Z",
      "2150-01-02T11:00:00.000Z",
    ]);
    expect(starts(Date.UTC(2150, 6, 1))).toEqual([
      "2150-07-01T06:00:00.000Z",
      "2150-07-01T10:00:00.000Z",
      "2150-07-02T06:00:00.000Z",
      "2150-07-02T10:00:00.000Z",
    ]);
  });

  it("moves bytes handed over in a buffer of their own to its worker, and copies any others", async () => {
    const text = generateFeed(readAt, { singles: 50, series: 5 });
    const encoded = Buffer.from(text);
    const ownBuffer = () => {
      const own = new Uint8Array(encoded.length);
      own.set(encoded);
      return own;
    };
    const build = (bytes: Uint8Array, handOver: boolean) =>
      ingestFeed(bytes, { id: "t" }, DEFAULT_FEED_LIMITS, defaultLimits(readAt), readAt, { handOver });

    const moved = ownBuffer();
    const built = await build(moved, true);
    expect(moved.byteLength).toBe(0);
    expect(built.eventCount).toBe(55);

    const kept = ownBuffer();
    await build(kept, false);
    expect(Buffer.from(kept).equals(encoded)).toBe(true);

    // A view of a larger buffer (a slice of Node's pool, say) shares it with others: never moved.
    const larger = new Uint8Array(encoded.length + 16);
    larger.set(encoded, 8);
    const view = larger.subarray(8, 8 + encoded.length);
    expect((await build(view, true)).eventCount).toBe(55);
    expect(view.byteLength).toBe(encoded.length);
    expect(larger.byteLength).toBe(encoded.length + 16);
  });

  it.runIf(existsSync("/proc/self/task"))(
    "builds at a lower CPU priority than the threads that serve: only the workers' own threads are niced",
    async () => {
      await ingest(generateFeed(readAt, { singles: 10, series: 0 }));
      // Field 19 of /proc/<tid>/stat, counted after the command name's closing parenthesis (field 2).
      const niceOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
      const threads = readdirSync("/proc/self/task").map((tid) => niceOf(readFileSync(`/proc/self/task/${tid}/stat`, "utf8")));
      expect(threads).toContain(BUILD_NICENESS);
      expect(niceOf(readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8"))).toBe(0);
    },
  );

  it("stops a build past its safety limit as build_stopped, and the next build still runs", async () => {
    const text = generateFeed(readAt, { singles: 20_000, series: 0 });
    const refused = ingest(text, 50);
    await expect(refused).rejects.toBeInstanceOf(FeedFailure);
    await expect(refused).rejects.toMatchObject({ failure: "build_stopped", message: expect.stringContaining("safety limit") });
    const next = await ingest(generateFeed(readAt, { singles: 10, series: 0 }));
    expect(next.eventCount).toBe(10);
  });

  it("refuses text that is not a feed before any worker sees it", async () => {
    await expect(ingest("")).rejects.toMatchObject({ failure: "truncated" });
    await expect(ingest("hello")).rejects.toMatchObject({ failure: "not_icalendar" });
  });
});

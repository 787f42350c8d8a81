/**
 * Keeping calendars current without anyone calling reload: the retry
 * schedule's arithmetic, URL feeds polled on their interval, and files
 * picked up by the folder watch long before their interval.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CalendarConfig } from "../../src/config/config-model.js";
import { CalendarStore } from "../../src/store/calendar-store.js";
import { nextDelay, RefreshScheduler } from "../../src/store/refresh-scheduler.js";
import { type FeedServer, startFeedServer, versioned } from "../support/feed-server.js";
import { feed } from "../support/feeds.js";
import { waitFor } from "../support/wait-for.js";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const text = (summary: string) => feed(["X-WR-TIMEZONE:UTC"], ["DTSTART:20261002T020000Z", `SUMMARY:${summary}`]);

describe("nextDelay", () => {
  it("waits about one refresh interval (±10%) after a success", () => {
    expect(nextDelay(5 * MINUTE, 0, () => 0)).toBe(4.5 * MINUTE);
    expect(nextDelay(5 * MINUTE, 0, () => 0.5)).toBe(5 * MINUTE);
    expect(nextDelay(5 * MINUTE, 0, () => 0.999)).toBeLessThan(5.5 * MINUTE);
  });

  it("retries sooner than the interval at first, doubling to a one-hour cap", () => {
    const full = (failures: number) => nextDelay(5 * MINUTE, failures, () => 0.999999);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 30].map(full).map((ms) => Math.round(ms / SECOND))).toEqual([
      30, 60, 120, 240, 480, 960, 1920, 3600, 3600,
    ]);
  });

  it("never waits longer than the interval when the interval is longer than the cap", () => {
    expect(Math.round(nextDelay(6 * 3_600_000, 50, () => 0.999999) / SECOND)).toBe(6 * 3_600);
  });

  it("starts from the interval itself when it is shorter than 30 s", () => {
    expect(nextDelay(2 * SECOND, 1, () => 0.9999)).toBe(2 * SECOND);
    expect(nextDelay(2 * SECOND, 3, () => 0.9999)).toBe(8 * SECOND);
  });

  it("spreads retries over [half, all] of the backoff, so calendars failing together do not retry in step", () => {
    expect(nextDelay(5 * MINUTE, 2, () => 0)).toBe(30 * SECOND);
    expect(nextDelay(5 * MINUTE, 2, () => 0.5)).toBe(45 * SECOND);
  });
});

describe("the refresh scheduler", () => {
  let provider: FeedServer | undefined;
  let dir: string | undefined;
  let scheduler: RefreshScheduler | undefined;
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    scheduler?.stop();
    await provider?.close();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    provider = dir = scheduler = undefined;
  });

  async function until(check: () => boolean, what: string): Promise<void> {
    await waitFor(what, check);
  }

  /** A scheduler polling a URL feed of `text` every 150 ms; it is stopped after the test. */
  function polling(url: string): { store: CalendarStore; scheduler: RefreshScheduler } {
    const config: CalendarConfig = {
      id: "c",
      name: "c",
      readers: [],
      refreshMs: 150,
      source: { kind: "http", url: new URL(url), headers: new Map() },
    };
    const store = new CalendarStore([config], { retentionMs: MINUTE });
    const started = new RefreshScheduler(store, [config]);
    started.start();
    return { store, scheduler: started };
  }

  const summary = (store: CalendarStore) => store.view("c")?.snapshot?.index.items[0]?.details.summary;

  it("polls a URL feed on its interval, conditionally, and stops polling when stopped", async () => {
    provider = await startFeedServer(versioned(text("v1"), "1"));
    let store: CalendarStore;
    ({ store, scheduler } = polling(provider.url));
    await until(() => summary(store) === "v1", "the first poll");
    await until(() => provider!.requests.length >= 3, "two more polls");
    expect(provider.requests[2]["if-none-match"]).toBe('"1"');

    provider.answer(versioned(text("v2"), "2"));
    await until(() => summary(store) === "v2", "the change to be polled in");

    scheduler!.stop();
    // A poll the scheduler began just before it stopped ends before this reload does (reloads of a calendar queue).
    await store.reload("c");
    const polls = provider.requests.length;
    // A witness polling its own provider on the same interval: once it has polled three more times,
    // the stopped scheduler has had two intervals or more in which to poll, and must not have.
    const witnessed = await startFeedServer(versioned(text("w"), "w"));
    cleanups.push(() => witnessed.close());
    const witness = polling(witnessed.url).scheduler;
    cleanups.push(() => witness.stop());
    await until(() => witnessed.requests.length >= 3, "the witness to poll three times");
    expect(provider.requests.length).toBe(polls);
  });

  it("picks up a file replaced by rename long before its five-minute interval", async () => {
    dir = mkdtempSync(join(tmpdir(), "calq-watch-"));
    const path = join(dir, "c.ics");
    writeFileSync(path, text("v1"));
    const store = new CalendarStore([{ id: "c", name: "c", readers: [], refreshMs: 5 * MINUTE, source: { kind: "file", path } }], {
      retentionMs: MINUTE,
    });
    await store.loadAll();
    scheduler = new RefreshScheduler(store, [store.view("c")!.config]);
    scheduler.start();

    writeFileSync(join(dir, "c.ics.new"), text("v2"));
    renameSync(join(dir, "c.ics.new"), path);
    await until(() => summary(store) === "v2", "the watcher to load the renamed file");
  });
});

/**
 * A reload's build lets the event loop run between its phases and between
 * slices of expansion, so searches on the same process are not held for a
 * whole rebuild; and time spent letting others run does not count against
 * the expansion budget.
 */
import { describe, expect, it } from "vitest";
import { generateFeed } from "../../bench/generate-feed.js";
import { Budget } from "../../src/expand/series.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { buildSnapshot, buildSnapshotYielding } from "../../src/store/snapshot.js";

const now = Date.UTC(2026, 10, 29);
const feed = generateFeed(now, { singles: 2_000, series: 200 });

describe("a yielding build", () => {
  it("lets other callbacks run before it finishes, and builds the same snapshot as the one-go build", async () => {
    const input = { calendarId: "c", limits: defaultLimits(now), readAt: now };
    let turns = 0;
    let finished = false;
    const others = setInterval(() => {
      if (!finished) turns++;
    }, 0);
    try {
      const yielding = await buildSnapshotYielding(feed, input);
      finished = true;
      const oneGo = buildSnapshot(feed, input);
      expect(turns).toBeGreaterThan(2);
      const keys = (items: typeof oneGo.index.items) => items.map(({ start, end, slot, details }) => `${details.uid} ${slot} ${start} ${end}`);
      expect(keys(yielding.index.items)).toEqual(keys(oneGo.index.items));
      expect(yielding.diagnostics).toEqual(oneGo.diagnostics);
    } finally {
      clearInterval(others);
    }
  });

  it("does not count time others held the loop against the expansion budget", async () => {
    // Others hold the loop for 200 ms at every turn they get: far more, in all, than the budget.
    const budgetMs = 600;
    let held = 0;
    const hog = setInterval(() => {
      const until = Date.now() + 200;
      while (Date.now() < until) held += 0;
      held++;
    }, 0);
    try {
      const started = Date.now();
      const snapshot = await buildSnapshotYielding(feed, { calendarId: "c", limits: { ...defaultLimits(now), budgetMs }, readAt: now });
      const elapsed = Date.now() - started;
      expect(held).toBeGreaterThan(0);
      expect(snapshot.diagnostics.map((diagnostic) => diagnostic.code)).not.toContain("EXPANSION_BUDGET_EXHAUSTED");
      // The guard above only means something if the build really took longer than the budget.
      expect(elapsed).toBeGreaterThan(budgetMs);
    } finally {
      clearInterval(hog);
    }
  });
});

describe("Budget.extend", () => {
  it("moves the deadline later", () => {
    const budget = new Budget(Date.now() - 1);
    budget.extend(60_000);
    for (let i = 0; i < 2048; i++) expect(budget.allows()).toBe(true);
  });
});

/**
 * A reload's build lets the event loop run between its phases and between
 * slices of expansion, so searches on the same process are not held for a
 * whole rebuild; and time spent letting others run does not count against
 * the expansion budget.
 */
import { describe, expect, it } from "vitest";
import { generateFeed } from "../../bench/generate-feed.js";
import { Budget } from "../../src/expand/budget.js";
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
      const keys = (items: typeof oneGo.index.items) =>
        items.map(({ start, end, slot, details }) => `${details.uid} ${slot} ${start} ${end}`);
      expect(keys(yielding.index.items)).toEqual(keys(oneGo.index.items));
      expect(yielding.diagnostics).toEqual(oneGo.diagnostics);
    } finally {
      clearInterval(others);
    }
  });

  it("does not count time others held the loop against the expansion budget", async () => {
    // The build's clock moves a tenth of a millisecond at each reading (its own
    // work: about 2,700 readings, some 270 ms, for this feed), and jumps a whole
    // minute each time others get a turn: far more, in all, than the budget.
    const budgetMs = 5_000;
    let readings = 0;
    let heldMs = 0;
    const clock = () => now + 0.1 * readings++ + heldMs;
    const hog = setInterval(() => {
      heldMs += 60_000;
    }, 0);
    try {
      const started = clock();
      const snapshot = await buildSnapshotYielding(feed, {
        calendarId: "c",
        limits: { ...defaultLimits(now), budgetMs, clock },
        readAt: now,
      });
      const elapsed = clock() - started;
      expect(snapshot.diagnostics.map((diagnostic) => diagnostic.code)).not.toContain("EXPANSION_BUDGET_EXHAUSTED");
      // The guard above only means something if, on the build's clock, it took longer than the budget.
      expect(elapsed).toBeGreaterThan(budgetMs);
    } finally {
      clearInterval(hog);
    }
  });
});

describe("Budget", () => {
  it("is exhausted once its clock passes the deadline, and extend moves the deadline later", () => {
    let now = 1_000;
    const late = new Budget(999, Number.POSITIVE_INFINITY, () => now);
    let allowed = 0;
    while (late.allows()) allowed++;
    expect(allowed).toBe(1023);
    const extended = new Budget(999, Number.POSITIVE_INFINITY, () => now);
    extended.extend(60_000);
    now += 59_000;
    for (let i = 0; i < 4096; i++) expect(extended.allows()).toBe(true);
  });
});

describe("a build handed its text", () => {
  const input = { calendarId: "c", limits: defaultLimits(now), readAt: now };

  it("takes the text out, so the caller's hold is gone, and builds what a plain string builds", () => {
    const handed: { text?: string } = { text: feed };
    const built = buildSnapshot(handed, input);
    expect(handed.text).toBeUndefined();
    const plain = buildSnapshot(feed, input);
    expect(built.index.items.map((item) => `${item.details.uid} ${item.slot} ${item.start}`)).toEqual(
      plain.index.items.map((item) => `${item.details.uid} ${item.slot} ${item.start}`),
    );
    expect(built.diagnostics).toEqual(plain.diagnostics);
  });

  it("cannot be built twice from one handed text", () => {
    const handed: { text?: string } = { text: feed };
    buildSnapshot(handed, input);
    expect(() => buildSnapshot(handed, input)).toThrow(/already taken/);
  });
});

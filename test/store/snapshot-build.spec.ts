/**
 * A build reads the same snapshot from the same bytes whatever the clock
 * says or however busy the machine is: every bound inside it counts work
 * (docs/decisions.md, "Budgets count work"). And a build handed its text
 * takes it, so the caller's hold on a big feed is gone while it builds.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { generateFeed } from "../../bench/generate-feed.js";
import { buildSnapshot, type Snapshot } from "../../src/ingest/snapshot.js";
import { defaultLimits } from "../../src/store/calendar-store.js";

const now = Date.UTC(2026, 10, 29);
const feed = generateFeed(now, { singles: 2_000, series: 200 });

/** What a snapshot answers and reports: every indexed occurrence, every on-demand series, every diagnostic. */
function contentOf(snapshot: Snapshot) {
  return {
    id: snapshot.id,
    occurrences: snapshot.index.items.map(({ start, end, slot, details }) => `${details.uid} ${slot} ${start} ${end}`),
    tails: snapshot.tails.length,
    diagnostics: snapshot.diagnostics,
  };
}

describe("a build on a clock that races", () => {
  afterEach(() => vi.restoreAllMocks());

  it("reads the same snapshot as on a still clock", () => {
    const input = { calendarId: "c", limits: defaultLimits(now), readAt: now, contentId: "same-bytes" };
    const still = contentOf(buildSnapshot(feed, input));
    let racing = now;
    vi.spyOn(Date, "now").mockImplementation(() => (racing += 60_000));
    vi.spyOn(performance, "now").mockImplementation(() => (racing += 60_000));
    const raced = contentOf(buildSnapshot(feed, input));
    expect(raced).toEqual(still);
    expect(still.diagnostics.map((diagnostic) => diagnostic.code)).not.toContain("EXPANSION_BUDGET_EXHAUSTED");
    expect(still.id).toBe("same-bytes");
  });

  it("names a snapshot by its content even when the expansion work ran out (what is not indexed is expanded per query)", () => {
    const input = { calendarId: "c", limits: { ...defaultLimits(now), maxExpansionWork: 1_000 }, readAt: now, contentId: "same-bytes" };
    const cut = buildSnapshot(feed, input);
    expect(cut.diagnostics.map((diagnostic) => diagnostic.code)).toContain("EXPANSION_BUDGET_EXHAUSTED");
    expect(cut.id).toBe("same-bytes");
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

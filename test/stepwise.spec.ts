/**
 * Work written as steps (src/stepwise.ts) pauses as often as it says: a
 * step of mapEachSteps maps at most `perStep` items, however the items are
 * split into lists, so fifty calendars of a hundred busy intervals each
 * take turns like one list of five thousand.
 */
import { describe, expect, it } from "vitest";
import { mapEachSteps } from "../src/stepwise.js";

/** Runs the steps, counting the items mapped between two pauses. */
function stepSizes<R>(steps: Generator<void, R>, mapped: { count: number }): { value: R; sizes: number[] } {
  const sizes: number[] = [];
  for (;;) {
    const before = mapped.count;
    const step = steps.next();
    sizes.push(mapped.count - before);
    if (step.done) return { value: step.value, sizes };
  }
}

describe("mapEachSteps", () => {
  it("pauses every perStep items counted across lists, and maps each list in order", () => {
    const lists = Array.from({ length: 49 }, (_, i) => Array.from({ length: 100 }, (_, k) => i * 100 + k));
    const mapped = { count: 0 };
    const { value, sizes } = stepSizes(
      mapEachSteps(lists, (n) => {
        mapped.count++;
        return n * 2;
      }),
      mapped,
    );
    expect(value).toEqual(lists.map((list) => list.map((n) => n * 2)));
    expect(Math.max(...sizes)).toBe(128);
    expect(sizes).toHaveLength(Math.floor(4_900 / 128) + 1);
  });

  it("keeps empty lists in place and pauses within a long one", () => {
    const mapped = { count: 0 };
    const { value, sizes } = stepSizes(
      mapEachSteps(
        [[], Array.from({ length: 300 }, (_, k) => k), []],
        (n) => {
          mapped.count++;
          return String(n);
        },
        100,
      ),
      mapped,
    );
    expect(value.map((list) => list.length)).toEqual([0, 300, 0]);
    expect(sizes).toEqual([100, 100, 100, 0]);
  });
});

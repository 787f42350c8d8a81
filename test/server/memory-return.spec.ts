/**
 * Memory is given back after a burst (src/server/memory-return.ts): a full
 * collection runs when the heap has grown well past what the last one left,
 * or when, a while after, it still holds much more than the least a
 * collection left it at; a heap that stays large after such a collection is
 * live data, and no more collections follow. Driven by the test's own
 * timers, clock and heap.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { fullCollection, MEMORY_GROWTH_BYTES, MEMORY_RECHECK_MS, returnMemoryAfterBursts } from "../../src/server/memory-return.js";

const MiB = 2 ** 20;
afterEach(() => vi.useRealTimers());

/** A heap the test moves, a clock the fake timers move, and the collections counted. */
function heapOf(startMiB: number) {
  const state = { held: startMiB * MiB, afterCollection: startMiB * MiB, collections: 0 };
  const options = {
    everyMs: 1_000,
    now: () => Date.now(),
    heapHeld: () => state.held,
    collect: () => {
      state.collections++;
      state.held = state.afterCollection;
    },
  };
  return { state, options };
}

describe("returning memory after a burst", () => {
  it("collects once garbage piles up past the threshold, and not below it", () => {
    vi.useFakeTimers();
    const { state, options } = heapOf(100);
    const stop = returnMemoryAfterBursts(options);
    state.held += MEMORY_GROWTH_BYTES - 1;
    vi.advanceTimersByTime(3_000);
    expect(state.collections).toBe(0);
    state.held += 2;
    vi.advanceTimersByTime(1_000);
    expect(state.collections).toBe(1);
    expect(state.held).toBe(100 * MiB);
    stop();
  });

  it("collects again after a burst whose live data a first collection kept, once the burst is over", () => {
    vi.useFakeTimers();
    const { state, options } = heapOf(100);
    const stop = returnMemoryAfterBursts(options);
    // During the burst: the collection finds 250 MiB live.
    state.held = 320 * MiB;
    state.afterCollection = 250 * MiB;
    vi.advanceTimersByTime(1_000);
    expect(state.collections).toBe(1);
    // The burst ends: its data is garbage now, but the heap does not grow, so only the later look collects it.
    state.afterCollection = 105 * MiB;
    vi.advanceTimersByTime(MEMORY_RECHECK_MS - 2_000);
    expect(state.collections).toBe(1);
    vi.advanceTimersByTime(3_000);
    expect(state.collections).toBe(2);
    expect(state.held).toBe(105 * MiB);
    vi.advanceTimersByTime(5 * MEMORY_RECHECK_MS);
    expect(state.collections).toBe(2);
    stop();
  });

  it("takes a heap that stays large after a later collection as live data, and stops collecting", () => {
    vi.useFakeTimers();
    const { state, options } = heapOf(100);
    const stop = returnMemoryAfterBursts(options);
    state.held = 300 * MiB;
    state.afterCollection = 300 * MiB;
    vi.advanceTimersByTime(1_000 + 3 * MEMORY_RECHECK_MS);
    expect(state.collections).toBe(2);
    stop();
    state.held += 10 * MEMORY_GROWTH_BYTES;
    vi.advanceTimersByTime(10 * MEMORY_RECHECK_MS);
    expect(state.collections).toBe(2);
  });

  it("finds V8's full collection in this process, without flags, and it frees garbage", () => {
    const collect = fullCollection();
    expect(collect).toBeTypeOf("function");
    let garbage: unknown[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i }));
    const before = process.memoryUsage().heapUsed;
    garbage = undefined;
    collect!();
    expect(garbage).toBeUndefined();
    expect(process.memoryUsage().heapUsed).toBeLessThan(before);
  });
});

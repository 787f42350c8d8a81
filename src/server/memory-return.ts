/**
 * Gives memory back after a burst (docs/operating.md, "Memory"): a flood of
 * streams or connections leaves V8 a heap of garbage that its own memory
 * reducer, which waits for the process to look idle, may not collect for
 * minutes while other callers keep it busy, nor give back the pages it
 * grew; RSS then stays hundreds of MiB above idle. Every few seconds this
 * looks at the heap V8 holds, and when it has grown well past what the last
 * full collection left, it runs one full collection, which frees the
 * garbage and returns the pages. A full
 * collection of a heap that size takes some tens of milliseconds, so it
 * runs at most once per interval, and only after such growth.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** How often the heap is looked at. */
export const MEMORY_CHECK_MS = 5_000;

/** Growth of the heap V8 holds over what the last full collection left that calls for another: worth a pause. */
export const MEMORY_GROWTH_BYTES = 48 * 2 ** 20;

/** V8's full collection, exposed once for this process; undefined where it cannot be. */
export function fullCollection(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** How long after a collection one runs again while the heap stays well above the least it was left at. */
export const MEMORY_RECHECK_MS = 10_000;

/**
 * Starts watching the heap; the returned function stops. A full collection
 * runs when the heap V8 holds has grown by MEMORY_GROWTH_BYTES over what
 * the last one left (garbage piling up), or, MEMORY_RECHECK_MS after the
 * last one, while it still holds that much over the least a collection ever
 * left it at (what a burst left live then is garbage now). When such a
 * later collection finds the heap that large again, the data is live (more
 * calendars): it becomes the new least, and no more collections follow.
 * `collect`, `heapHeld` and `now` are the process's own unless a test gives
 * its own.
 */
export function returnMemoryAfterBursts(
  options: { readonly collect?: () => void; readonly heapHeld?: () => number; readonly now?: () => number; readonly everyMs?: number } = {},
): () => void {
  const collect = options.collect ?? fullCollection();
  if (collect === undefined) return () => {};
  // What V8 holds (total_heap_size): used, garbage, and pages it grew and keeps.
  const heapHeld = options.heapHeld ?? (() => getHeapStatistics().total_heap_size);
  const now = options.now ?? Date.now;
  let left = heapHeld();
  let least = left;
  let collectedAt = now();
  const check = () => {
    const held = heapHeld();
    const piledUp = held - left >= MEMORY_GROWTH_BYTES;
    const stillHigh = now() - collectedAt >= MEMORY_RECHECK_MS && held - least >= MEMORY_GROWTH_BYTES;
    if (!piledUp && !stillHigh) return;
    collect();
    collectedAt = now();
    left = heapHeld();
    if (left < least || (!piledUp && left - least >= MEMORY_GROWTH_BYTES)) least = left;
  };
  const timer = setInterval(check, options.everyMs ?? MEMORY_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

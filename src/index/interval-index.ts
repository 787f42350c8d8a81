/**
 * A static interval index: intervals sorted by start, with an implicit
 * segment tree of maximum ends over the sorted order (an augmented interval
 * tree laid out in two typed arrays).
 *
 * Pure data structure: it knows numbers, not dates or events. Built once per
 * snapshot and never changed. Queries visit matches in sorted order and can
 * stop early, so a page of k results costs O((k + 1) log n) whatever the
 * calendar's size, and can resume from any position (for cursors).
 *
 * An index built on one thread can be rebuilt on another from its typed
 * arrays (`parts`) without sorting again; its items are then made on demand
 * by `itemAt`, so the receiving thread creates objects only for what
 * searches return.
 */
import { indexOrder } from "./index-order.js";

/** An item with its interval's bounds. */
export interface Interval {
  readonly start: number;
  readonly end: number;
}

/** The arrays an index is made of, in index order: transferable between threads as they are. */
export interface IndexParts {
  readonly starts: Float64Array;
  /** An implicit segment tree: leaves at [leafBase, leafBase + n) hold ends, inner nodes the max of their children. */
  readonly maxEnds: Float64Array;
  readonly leafBase: number;
}

/** The items' ends in index order: the tree's leaves, as a view of `maxEnds` (not a copy). */
export function endsOf(parts: IndexParts): Float64Array {
  return parts.maxEnds.subarray(parts.leafBase, parts.leafBase + parts.starts.length);
}

/**
 * The parts of an index over intervals already in index order: `starts` as
 * given, and the tree of maximum ends built over `ends` in an array from
 * `allocate` (an index shared between threads builds it on shared memory).
 */
export function indexPartsOf(
  starts: Float64Array,
  ends: ArrayLike<number>,
  allocate: (length: number) => Float64Array = (length) => new Float64Array(length),
): IndexParts {
  const n = starts.length;
  let leafBase = 1;
  while (leafBase < n) leafBase *= 2;
  const maxEnds = allocate(2 * leafBase).fill(Number.NEGATIVE_INFINITY);
  for (let i = 0; i < n; i++) maxEnds[leafBase + i] = ends[i];
  for (let node = leafBase - 1; node >= 1; node--) {
    maxEnds[node] = Math.max(maxEnds[2 * node], maxEnds[2 * node + 1]);
  }
  return { starts, maxEnds, leafBase };
}

export class IntervalIndex<T extends Interval> {
  private readonly starts: Float64Array;
  private readonly maxEnds: Float64Array;
  private readonly leafBase: number;
  /** The items in index order when built from them; otherwise they are made on demand by `itemAt`. */
  private readonly made?: readonly T[];
  private readonly itemAt?: (position: number) => T;

  /**
   * @param items intervals in any order; the array is sorted in place
   * @param tieBreak orders items with equal starts (must be a total order)
   */
  constructor(items: T[], tieBreak: (a: T, b: T) => number);
  /** An index from another's parts, making item `position` with `itemAt` when it is first asked for. */
  constructor(parts: IndexParts, itemAt: (position: number) => T);
  constructor(source: T[] | IndexParts, second: ((a: T, b: T) => number) | ((position: number) => T)) {
    if (!Array.isArray(source)) {
      this.starts = source.starts;
      this.maxEnds = source.maxEnds;
      this.leafBase = source.leafBase;
      this.itemAt = second as (position: number) => T;
      return;
    }
    const items = source;
    const tieBreak = second as (a: T, b: T) => number;
    const sorted = Array.from(indexOrder(items, tieBreak), (i) => items[i]);
    for (const [position, item] of sorted.entries()) items[position] = item;
    this.made = items;
    const parts = indexPartsOf(
      Float64Array.from(items, (item) => item.start),
      items.map((item) => item.end),
    );
    this.starts = parts.starts;
    this.maxEnds = parts.maxEnds;
    this.leafBase = parts.leafBase;
  }

  /** The arrays of this index (shared, not copied: transfer them only when done with this index). */
  get parts(): IndexParts {
    return { starts: this.starts, maxEnds: this.maxEnds, leafBase: this.leafBase };
  }

  get size(): number {
    return this.starts.length;
  }

  /** The item at `position` in index order (start ascending, ties by the build comparator). */
  item(position: number): T {
    return this.made === undefined ? this.itemAt!(position) : this.made[position];
  }

  /** Every item in index order (for tests and reports: it makes them all). */
  get items(): readonly T[] {
    return this.made ?? Array.from({ length: this.size }, (_, position) => this.item(position));
  }

  /** The first position whose start is >= `start` (size if none). */
  lowerBound(start: number): number {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.starts[middle] < start) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * Visits, in index order from position `from`, the items with
   * start < `startBefore` and end >= `endAtLeast`, until `visit` returns false.
   */
  visitCandidates(startBefore: number, endAtLeast: number, from: number, visit: (item: T, position: number) => boolean): void {
    const stop = this.lowerBound(startBefore);
    for (let position = this.nextEndingAtLeast(from, endAtLeast); position < stop; ) {
      if (!visit(this.item(position), position)) return;
      position = this.nextEndingAtLeast(position + 1, endAtLeast);
    }
  }

  /** The first position >= `from` whose end is >= `endAtLeast` (size if none). */
  private nextEndingAtLeast(from: number, endAtLeast: number): number {
    const n = this.starts.length;
    if (from >= n) return n;
    const tree = this.maxEnds;
    let node = this.leafBase + from;
    if (tree[node] >= endAtLeast) return from;
    // Climb until a right sibling holds a large enough end...
    for (;;) {
      if ((node & 1) === 0 && tree[node + 1] >= endAtLeast) {
        node += 1;
        break;
      }
      node >>= 1;
      if (node <= 1) return n;
    }
    // ...then descend to its leftmost such leaf.
    while (node < this.leafBase) {
      node = tree[2 * node] >= endAtLeast ? 2 * node : 2 * node + 1;
    }
    return Math.min(node - this.leafBase, n);
  }
}

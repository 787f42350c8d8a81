/**
 * indexOrder (src/index/index-order.ts) orders as one stable comparator
 * sort by (start, tie-break) would, on either side of its radix threshold.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { indexOrder } from "../../src/index/index-order.js";

interface Item {
  readonly start: number;
  readonly key: number;
}

const byKey = (a: Item, b: Item) => a.key - b.key;
const expected = (items: readonly Item[]) =>
  Array.from(items.keys()).sort((a, b) => items[a].start - items[b].start || byKey(items[a], items[b]) || a - b);

// Starts from a few values (many ties), across 1970 both ways, and as far as ±2^52 ms; keys with repeats.
const start = fc.oneof(
  fc.constantFrom(0, -1, 1, 60_000, Date.UTC(2026, 0, 1), Date.UTC(1950, 0, 1), 2 ** 52 - 1, -(2 ** 52)),
  fc.integer({ min: -(2 ** 40), max: 2 ** 45 }),
);
const items = (minLength: number) =>
  fc.array(fc.record({ start, key: fc.integer({ min: 0, max: 5 }) }), { minLength, maxLength: minLength + 1500 });

describe("indexOrder", () => {
  it("orders by start, then the tie-break, then as given", () => {
    fc.assert(
      fc.property(items(0), (list) => {
        expect(Array.from(indexOrder(list, byKey))).toEqual(expected(list));
      }),
      { numRuns: 60 },
    );
  });

  it("orders many items the same way (the radix sort's side)", () => {
    fc.assert(
      fc.property(items(600), (list) => {
        expect(Array.from(indexOrder(list, byKey))).toEqual(expected(list));
      }),
      { numRuns: 40 },
    );
  });

  it("orders starts that are not whole milliseconds, or lie beyond ±2^52, by comparing them", () => {
    const list = Array.from({ length: 1000 }, (_, i) => ({ start: i % 3 === 0 ? 2 ** 60 - i : (1000 - i) / 7, key: i % 4 }));
    expect(Array.from(indexOrder(list, byKey))).toEqual(expected(list));
  });
});

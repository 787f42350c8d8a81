import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IntervalIndex } from "../../src/index/interval-index.js";

interface Item {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

const byName = (a: Item, b: Item): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function item(name: string, start: number, end: number): Item {
  return { name, start, end };
}

function indexOf(...items: Item[]): IntervalIndex<Item> {
  return new IntervalIndex(items, byName);
}

/** Every visit from `from`, as names, with no early stop. */
function visitAll(index: IntervalIndex<Item>, startBefore: number, endAtLeast: number, from = 0): string[] {
  const names: string[] = [];
  index.visitCandidates(startBefore, endAtLeast, from, (visited) => {
    names.push(visited.name);
    return true;
  });
  return names;
}

describe("IntervalIndex construction", () => {
  it("orders items by start, then by the tie-break, whatever the input order", () => {
    const index = indexOf(item("c", 5, 6), item("b", 1, 9), item("a", 5, 5), item("d", -3, 0));
    expect(index.items.map((i) => i.name)).toEqual(["d", "b", "a", "c"]);
    expect(index.size).toBe(4);
  });

  it("sorts the given array in place and keeps it as its items", () => {
    const items = [item("b", 2, 3), item("a", 1, 2)];
    const index = new IntervalIndex(items, byName);
    expect(index.items).toBe(items);
    expect(items.map((i) => i.name)).toEqual(["a", "b"]);
  });
});

describe("IntervalIndex rebuilt from its parts (as a worker hands it over)", () => {
  it("answers every query as the original does, making only the items it visits", () => {
    const original = new IntervalIndex([item("c", 5, 9), item("a", 1, 2), item("b", 1, 30), item("d", 12, 12), item("e", 20, 25)], byName);
    const sorted = [...original.items];
    const made: number[] = [];
    const rebuilt = new IntervalIndex(original.parts, (position) => {
      made.push(position);
      return sorted[position];
    });
    expect(rebuilt.size).toBe(5);
    for (const start of [0, 1, 5, 12, 21, 99]) expect(rebuilt.lowerBound(start)).toBe(original.lowerBound(start));
    const visit = (index: IntervalIndex<ReturnType<typeof item>>) => {
      const names: string[] = [];
      index.visitCandidates(13, 10, 0, (found) => names.push(found.name) > 0);
      return names;
    };
    expect(visit(rebuilt)).toEqual(visit(original));
    expect(visit(rebuilt)).toEqual(["b", "d"]);
    expect(new Set(made)).toEqual(new Set([1, 3]));
  });
});

describe("IntervalIndex.lowerBound", () => {
  it("is 0 for every start in an empty index", () => {
    const index = indexOf();
    expect(index.size).toBe(0);
    expect(index.lowerBound(0)).toBe(0);
    expect(index.lowerBound(-Infinity)).toBe(0);
    expect(index.lowerBound(Infinity)).toBe(0);
  });

  it("places a start before, at and after a single item", () => {
    const index = indexOf(item("a", 10, 20));
    expect(index.lowerBound(9)).toBe(0);
    expect(index.lowerBound(10)).toBe(0);
    expect(index.lowerBound(11)).toBe(1);
  });

  it("returns the first of a run of equal starts, and the position after the run for the next start", () => {
    const index = indexOf(item("a", 1, 2), item("b", 4, 4), item("c", 4, 9), item("d", 4, 5), item("e", 4, 100), item("f", 7, 8));
    expect(index.lowerBound(4)).toBe(1);
    expect(index.lowerBound(3)).toBe(1);
    expect(index.lowerBound(5)).toBe(5);
    expect(index.lowerBound(7)).toBe(5);
    expect(index.lowerBound(8)).toBe(6);
  });

  it("returns the first position when every start is equal", () => {
    const index = indexOf(...Array.from({ length: 9 }, (_, i) => item(`n${i}`, 42, 42 + i)));
    expect(index.lowerBound(42)).toBe(0);
    expect(index.lowerBound(41)).toBe(0);
    expect(index.lowerBound(43)).toBe(9);
  });

  it("handles starts at the extremes of the number line", () => {
    const index = indexOf(
      item("min", -Number.MAX_VALUE, 0),
      item("unsafe-low", Number.MIN_SAFE_INTEGER, 0),
      item("date-low", -8.64e15, -8.64e15),
      item("zero", 0, 1),
      item("date-high", 8.64e15, 8.64e15 + 1),
      item("unsafe-high", Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
      item("max", Number.MAX_VALUE, Number.MAX_VALUE),
    );
    expect(index.items.map((i) => i.name)).toEqual(["min", "unsafe-low", "date-low", "zero", "date-high", "unsafe-high", "max"]);
    expect(index.lowerBound(-Infinity)).toBe(0);
    expect(index.lowerBound(-Number.MAX_VALUE)).toBe(0);
    expect(index.lowerBound(Number.MIN_SAFE_INTEGER)).toBe(1);
    expect(index.lowerBound(-8.64e15 + 1)).toBe(3);
    expect(index.lowerBound(Number.MAX_SAFE_INTEGER)).toBe(5);
    expect(index.lowerBound(Number.MAX_VALUE)).toBe(6);
    expect(index.lowerBound(Infinity)).toBe(7);
  });
});

describe("IntervalIndex.visitCandidates", () => {
  it("visits nothing in an empty index, even with unbounded limits", () => {
    expect(visitAll(indexOf(), Infinity, -Infinity)).toEqual([]);
  });

  it("visits a single item when its start is before the bound and its end reaches the other bound", () => {
    const index = indexOf(item("a", 10, 20));
    expect(visitAll(index, 11, 20)).toEqual(["a"]);
    expect(visitAll(index, 10, 20)).toEqual([]);
    expect(visitAll(index, 11, 21)).toEqual([]);
    expect(visitAll(index, Infinity, -Infinity)).toEqual(["a"]);
  });

  it("reports each item with its index position", () => {
    const index = indexOf(item("a", 1, 3), item("b", 2, 2), item("c", 3, 10), item("d", 4, 5));
    const seen: Array<[string, number]> = [];
    index.visitCandidates(100, 5, 0, (visited, position) => {
      seen.push([visited.name, position]);
      expect(index.items[position]).toBe(visited);
      return true;
    });
    expect(seen).toEqual([
      ["c", 2],
      ["d", 3],
    ]);
  });

  it("visits in index order: start, then tie-break", () => {
    const index = indexOf(item("z", 3, 50), item("m", 1, 50), item("b", 3, 50), item("a", 2, 50), item("c", 1, 50));
    expect(visitAll(index, 100, 0)).toEqual(["c", "m", "a", "b", "z"]);
  });

  it("stops as soon as the visitor returns false", () => {
    const index = indexOf(...Array.from({ length: 20 }, (_, i) => item(`n${String(i).padStart(2, "0")}`, i, i + 5)));
    const names: string[] = [];
    index.visitCandidates(100, 0, 0, (visited) => {
      names.push(visited.name);
      return names.length < 3;
    });
    expect(names).toEqual(["n00", "n01", "n02"]);
  });

  it("resumes from a position, skipping earlier items and visiting the rest once", () => {
    const index = indexOf(...Array.from({ length: 13 }, (_, i) => item(`n${String(i).padStart(2, "0")}`, i % 4, 10 + (i % 3))));
    const all = visitAll(index, 100, 11);
    const resumed: string[] = [];
    let from = 0;
    for (;;) {
      let last = -1;
      index.visitCandidates(100, 11, from, (visited, position) => {
        resumed.push(visited.name);
        last = position;
        return false;
      });
      if (last < 0) break;
      from = last + 1;
    }
    expect(all.length).toBeGreaterThan(3);
    expect(resumed).toEqual(all);
  });

  it("visits nothing when resuming at or past the end", () => {
    const index = indexOf(item("a", 1, 9), item("b", 2, 9), item("c", 3, 9));
    expect(visitAll(index, 100, 0, 2)).toEqual(["c"]);
    expect(visitAll(index, 100, 0, 3)).toEqual([]);
    expect(visitAll(index, 100, 0, 1000)).toEqual([]);
  });

  it("visits many items with equal starts in tie-break order, and only those reaching the end bound", () => {
    const index = indexOf(item("e", 7, 7), item("d", 7, 12), item("c", 7, 8), item("b", 7, 30), item("a", 7, 10));
    expect(visitAll(index, 8, 0)).toEqual(["a", "b", "c", "d", "e"]);
    expect(visitAll(index, 8, 10)).toEqual(["a", "b", "d"]);
    expect(visitAll(index, 7, 0)).toEqual([]);
  });

  it("treats a zero-length interval as reaching exactly its own instant", () => {
    const index = indexOf(item("before", 4, 4), item("instant", 5, 5), item("after", 6, 6));
    expect(visitAll(index, 6, 5)).toEqual(["instant"]);
    expect(visitAll(index, 5, 5)).toEqual([]);
    expect(visitAll(index, 6, 6)).toEqual([]);
    expect(visitAll(index, 7, 5)).toEqual(["instant", "after"]);
  });

  it("finds a very long interval that spans every query, in its start position among short ones", () => {
    const shorts = Array.from({ length: 37 }, (_, i) => item(`s${String(i).padStart(2, "0")}`, i * 10, i * 10 + 3));
    const index = indexOf(...shorts, item("long", -1e15, 1e15));
    expect(index.items[0].name).toBe("long");
    expect(visitAll(index, 1e14, 1e14)).toEqual(["long"]);
    expect(visitAll(index, -1e15 + 1, 1e15)).toEqual(["long"]);
    expect(visitAll(index, 52, 51)).toEqual(["long", "s05"]);
    expect(visitAll(index, Infinity, -Infinity)).toHaveLength(38);
  });

  it("finds a long interval hidden among short ones that end early, wherever it sits", () => {
    for (const size of [1, 2, 3, 7, 8, 9, 16, 17, 33]) {
      for (let longAt = 0; longAt < size; longAt++) {
        const items = Array.from({ length: size }, (_, i) => item(`n${String(i).padStart(2, "0")}`, i, i === longAt ? 1000 : i + 1));
        const index = indexOf(...items);
        expect(visitAll(index, 2000, 500), `size ${size}, long at ${longAt}`).toEqual([items[longAt].name]);
        expect(visitAll(index, 2000, 500, longAt + 1), `size ${size}, resumed past ${longAt}`).toEqual([]);
      }
    }
  });

  it("handles ends at the extremes of the number line", () => {
    const index = indexOf(
      item("forever", Number.MIN_SAFE_INTEGER, Number.MAX_VALUE),
      item("unbounded", 0, Infinity),
      item("far-past", -Number.MAX_VALUE, -Number.MAX_VALUE),
      item("now", 1_790_000_000_000, 1_790_000_003_600),
    );
    expect(visitAll(index, Infinity, Number.MAX_VALUE)).toEqual(["forever", "unbounded"]);
    expect(visitAll(index, Infinity, Infinity)).toEqual(["unbounded"]);
    expect(visitAll(index, Infinity, -Infinity)).toEqual(["far-past", "forever", "unbounded", "now"]);
    expect(visitAll(index, -Number.MAX_VALUE + 1e300, -Infinity)).toEqual(["far-past"]);
    expect(visitAll(index, 1_790_000_000_001, 1_790_000_003_600)).toEqual(["forever", "unbounded", "now"]);
  });

  it("visits exactly the brute-force matches from any position, in order, and honours early stops", () => {
    const intervalArb = fc
      .tuple(fc.integer({ min: -20, max: 20 }), fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 30, max: 200 })))
      .map(([start, length]) => ({ start, end: start + length }));
    fc.assert(
      fc.property(
        fc.array(intervalArb, { maxLength: 70 }),
        fc.integer({ min: -25, max: 25 }),
        fc.integer({ min: -25, max: 25 }),
        fc.integer({ min: 0, max: 75 }),
        fc.integer({ min: 1, max: 10 }),
        (intervals, startBefore, endAtLeast, from, stopAfter) => {
          const items = intervals.map(({ start, end }, i) => item(`n${String(i).padStart(3, "0")}`, start, end));
          const sorted = [...items].sort((a, b) => a.start - b.start || byName(a, b));
          const index = new IntervalIndex([...items], byName);
          expect(index.items).toEqual(sorted);
          expect(index.lowerBound(startBefore)).toBe(sorted.filter((i) => i.start < startBefore).length);

          const expected = sorted
            .map((candidate, position) => ({ candidate, position }))
            .filter(({ candidate, position }) => position >= from && candidate.start < startBefore && candidate.end >= endAtLeast)
            .map(({ candidate, position }) => [candidate.name, position]);
          const visited: Array<[string, number]> = [];
          index.visitCandidates(startBefore, endAtLeast, from, (candidate, position) => {
            visited.push([candidate.name, position]);
            return true;
          });
          expect(visited).toEqual(expected);

          const stopped: Array<[string, number]> = [];
          index.visitCandidates(startBefore, endAtLeast, from, (candidate, position) => {
            stopped.push([candidate.name, position]);
            return stopped.length < stopAfter;
          });
          expect(stopped).toEqual(expected.slice(0, stopAfter));
        },
      ),
      { numRuns: 400 },
    );
  });
});

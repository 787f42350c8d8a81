/**
 * Packed versions (src/ingest/packed-versions.ts) compare as the versions
 * they hold: two packed tables are compared by their bytes, without making
 * a string of each key and digest, and find the same changes, in the same
 * order, as the versions themselves (and as one packed table against
 * versions not packed).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type EventVersion, versionChanges, versionTable } from "../../src/expand/event-versions.js";
import { packVersions, unpackVersions } from "../../src/ingest/packed-versions.js";

/** Keys that share prefixes and differ in length, so ordering is tested at every byte and at the end of one. */
const key = fc.stringMatching(/^[A-Ca-c_-]{0,4}$/);
const version = (key: string, digest: string, start: number): EventVersion => ({
  key,
  digest,
  start,
  end: start + 60_000,
  recurring: false,
  summary: `event ${key}`,
  classified: false,
});
/** Versions in key order, each key once; digests from a few values, of two lengths, so many match. */
const versions = fc
  .uniqueArray(fc.tuple(key, fc.constantFrom("0a", "0b", "0a0b", "ff"), fc.nat(1_000)), { selector: ([k]) => k, maxLength: 30 })
  .map((entries) =>
    entries.map(([k, digest, start]) => version(k, digest, start)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  );

describe("packed versions", () => {
  it("find the changes the versions themselves find, by their bytes", () => {
    fc.assert(
      fc.property(versions, versions, (before, after) => {
        const expected = versionChanges(versionTable(before), versionTable(after));
        const packedBefore = unpackVersions(packVersions(versionTable(before)));
        const packedAfter = unpackVersions(packVersions(versionTable(after)));
        expect(packedBefore.latin1).toBeDefined();
        expect(versionChanges(packedBefore, packedAfter)).toEqual(expected);
        // One table packed and one not: compared as strings.
        expect(versionChanges(packedBefore, versionTable(after))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("compare keys beyond Latin-1 as strings", () => {
    const before = [version("a\u0394", "0a", 0), version("b", "0a", 1)];
    const after = [version("a\u0394", "0b", 0), version("c", "0a", 2)];
    const packed = (list: EventVersion[]) => unpackVersions(packVersions(versionTable(list)));
    expect(packed(before).latin1).toBeUndefined();
    expect(versionChanges(packed(before), packed(after))).toEqual(versionChanges(versionTable(before), versionTable(after)));
  });
});

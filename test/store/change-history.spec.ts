/**
 * A calendar's history of changes (src/store/change-history.ts): what
 * changed between any two remembered snapshots, one change per event,
 * composed over the snapshots between them, and nothing for an event that
 * changed back or came and went.
 */
import { describe, expect, it } from "vitest";
import { type EventVersion, versionTable } from "../../src/expand/event-versions.js";
import { ChangeHistory, HISTORY_RETENTION_MS, MAX_HISTORY_SNAPSHOTS } from "../../src/store/change-history.js";

const version = (key: string, digest: string, start = 0): EventVersion => ({
  key,
  digest,
  start,
  end: start + 1,
  recurring: false,
  summary: key,
  classified: false,
});
const table = (...versions: EventVersion[]) => versionTable(versions);

describe("ChangeHistory", () => {
  it("composes the changes between two snapshots, one per event, with its first before and last after", () => {
    const history = new ChangeHistory(() => 0);
    history.record("s0", table(version("a", "1"), version("b", "1")));
    history.record("s1", table(version("a", "2", 10), version("b", "1"), version("c", "1")));
    history.record("s2", table(version("a", "3", 20), version("c", "1")));
    const changes = history.between("s0")!;
    expect(changes.map((change) => [change.key, change.before?.digest, change.after?.digest])).toEqual([
      ["a", "1", "3"],
      ["b", "1", undefined],
      ["c", undefined, "1"],
    ]);
    expect(history.between("s1", "s2")!.map((change) => change.key)).toEqual(["a", "b"]);
    expect(history.between("s2")).toEqual([]);
  });

  it("leaves out an event that changed back, or was added and removed, in between", () => {
    const history = new ChangeHistory(() => 0);
    history.record("s0", table(version("a", "1")));
    history.record("s1", table(version("a", "2"), version("b", "1")));
    history.record("s2", table(version("a", "1")));
    expect(history.between("s0")).toEqual([]);
  });

  it("knows nothing of a snapshot it never saw, nor of one older than the one asked up to", () => {
    const history = new ChangeHistory(() => 0);
    history.record("s0", table());
    history.record("s1", table(version("a", "1")));
    expect(history.between("elsewhere")).toBeUndefined();
    expect(history.between("s1", "s0")).toBeUndefined();
  });

  it("forgets snapshots replaced longer ago than it keeps them, and past its count", () => {
    let now = 0;
    const history = new ChangeHistory(() => now);
    history.record("old", table(version("a", "1")));
    history.record("newer", table(version("a", "2")));
    now += HISTORY_RETENTION_MS + 1;
    history.record("newest", table(version("a", "3")));
    expect(history.has("old")).toBe(false);
    expect(history.between("newer")!.map((change) => change.after?.digest)).toEqual(["3"]);
    for (let i = 0; i <= MAX_HISTORY_SNAPSHOTS; i++) history.record(`s${i}`, table(version("a", `${i}`)));
    expect(history.has("newest")).toBe(false);
    expect(history.has(`s${MAX_HISTORY_SNAPSHOTS}`)).toBe(true);
  });
});

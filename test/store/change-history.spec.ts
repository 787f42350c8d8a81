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
  it("compares a large snapshot in steps, and records what the comparison found, or compares again if the current one changed since", () => {
    const many = (digestOf: (i: number) => string) =>
      table(...Array.from({ length: 10_000 }, (_, i) => version(`k${String(i).padStart(5, "0")}`, digestOf(i))));
    const history = new ChangeHistory(() => 0);
    history.record(
      "s0",
      many(() => "1"),
    );
    const next = many((i) => (i % 1_000 === 0 ? "2" : "1"));
    const steps = history.compare(next);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    expect(pauses).toBeGreaterThanOrEqual(2);
    const compared = step.value;
    expect(compared.changes.map((change) => change.key)).toEqual([
      "k00000",
      "k01000",
      "k02000",
      "k03000",
      "k04000",
      "k05000",
      "k06000",
      "k07000",
      "k08000",
      "k09000",
    ]);
    // A comparison with versions other than the current ones is not taken: the history compares again.
    const stale = { ...compared, changes: [] };
    const other = new ChangeHistory(() => 0);
    other.record(
      "s0",
      many(() => "1"),
    );
    other.record("s1", next, stale);
    expect(other.between("s0")).toHaveLength(10);
    history.record("s1", next, compared);
    expect(history.between("s0")).toEqual(other.between("s0"));
  });

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

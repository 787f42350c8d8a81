/**
 * FairStart: calls start one per turn of the event loop, each connection's
 * in arrival order, connections taking turns, with other work run between.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { FairStart } from "../../src/server/fair-start.js";

/** Resolves once `fair` has nothing waiting. */
async function drained(fair: FairStart<string>): Promise<void> {
  while (fair.size > 0) await nextTurn();
  await nextTurn();
}

describe("FairStart", () => {
  it("starts a lone call at once, then one per turn: each connection's in order, connections taking turns", async () => {
    const started: string[] = [];
    const fair = new FairStart<string>((task) => started.push(task), 1);
    const [a, b, c] = [{}, {}, {}];
    fair.add(c, "c1");
    for (const task of ["a1", "a2", "a3"]) fair.add(a, task);
    fair.add(b, "b1");
    expect(started).toEqual(["c1"]);
    expect(fair.size).toBe(4);
    await drained(fair);
    expect(started).toEqual(["c1", "a1", "b1", "a2", "a3"]);
  });

  it("lets other work run between two starts", async () => {
    const order: string[] = [];
    const fair = new FairStart<string>((task) => order.push(task), 1);
    const a = {};
    for (const task of ["a1", "a2", "a3"]) fair.add(a, task);
    setImmediate(() => order.push("other"));
    await drained(fair);
    expect(order).toEqual(["a1", "a2", "other", "a3"]);
  });

  it("puts a connection that had its turn behind those still waiting, however many calls it adds", async () => {
    const started: string[] = [];
    const [a, b, c] = [{}, {}, {}];
    const fair = new FairStart<string>((task) => {
      started.push(task);
      // The busy connection adds a call each time one of its own starts.
      if (task.startsWith("a") && started.length < 8) fair.add(a, `a${started.length + 1}`);
    }, 1);
    fair.add(b, "b1");
    fair.add(a, "a1");
    fair.add(c, "c1");
    fair.add(b, "b2");
    await drained(fair);
    expect(started.slice(0, 5)).toEqual(["b1", "a1", "c1", "b2", "a3"]);
  });

  it("starts as many calls a turn as it is allowed, connections still taking turns", async () => {
    const turns: string[][] = [[]];
    const fair = new FairStart<string>((task) => turns[turns.length - 1].push(task), 3);
    const [a, b] = [{}, {}];
    for (let i = 1; i <= 5; i++) fair.add(a, `a${i}`);
    fair.add(b, "b1");
    while (fair.size > 0) {
      turns.push([]);
      await nextTurn();
    }
    expect(turns.filter((turn) => turn.length > 0)).toEqual([
      ["a1", "a2", "a3"],
      // a4 waited before b1 came, so A's turn comes first; then B's, then A's again.
      ["a4", "b1", "a5"],
    ]);
  });
});

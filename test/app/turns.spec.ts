/**
 * Calls take turns (src/app/turns.ts): slices go to callers in turn, so one
 * caller's many expensive calls cannot hold another caller's one; a call
 * with nobody waiting runs at once. Driven by a clock of the test's own: each
 * step of work moves it a slice, so every slice is exactly one step.
 */
import { describe, expect, it } from "vitest";
import { Turns } from "../../src/app/turns.js";
import type { Steps } from "../../src/stepwise.js";

/** A clock that moves a whole slice (2 ms) each time work reads it. */
function sliceClock(): () => number {
  let now = 0;
  return () => (now += 2);
}

/** Work of `steps` steps that records, in `log`, each step it takes. */
function* work(name: string, steps: number, log: string[]): Steps<string> {
  for (let i = 0; i < steps; i++) {
    log.push(name);
    if (i < steps - 1) yield;
  }
  return name;
}

describe("Turns", () => {
  it("runs a lone call's first slice at once, before the caller's code goes on", () => {
    const turns = new Turns({ clock: sliceClock() });
    const log: string[] = [];
    void turns.run("a", work("a", 1, log));
    expect(log).toEqual(["a"]);
  });

  it("gives a caller with one call a slice between every two slices of a caller with ten", async () => {
    const turns = new Turns({ clock: sliceClock() });
    const log: string[] = [];
    const heavy = Array.from({ length: 10 }, (_, i) => turns.run("attacker", work(`a${i}`, 20, log)));
    const victim = turns.run("victim", work("v", 5, log));
    await Promise.all([...heavy, victim]);
    const victimSlices = log.flatMap((name, at) => (name === "v" ? [at] : []));
    expect(victimSlices).toHaveLength(5);
    // Every victim slice comes within two slices of the one before: one of the attacker's between them.
    for (let i = 1; i < victimSlices.length; i++) expect(victimSlices[i] - victimSlices[i - 1]).toBeLessThanOrEqual(2);
    // The victim's 5 slices end long before the attacker's 200.
    expect(victimSlices.at(-1)).toBeLessThan(20);
  });

  it("lets a caller's own calls take turns among themselves", async () => {
    const turns = new Turns({ clock: sliceClock() });
    const log: string[] = [];
    await Promise.all([turns.run("a", work("x", 10, log)), turns.run("a", work("y", 10, log))]);
    // After x's first slices, the two alternate: y does not wait for x to finish.
    expect(log.indexOf("y")).toBeLessThan(log.lastIndexOf("x"));
    expect(log.slice(4, 12)).toEqual(["y", "x", "y", "x", "y", "x", "y", "x"]);
  });

  it("serves a caller with nothing waiting before callers who have had their turn", async () => {
    const turns = new Turns({ clock: sliceClock() });
    const log: string[] = [];
    const first = turns.run("a", work("a", 10, log));
    const second = turns.run("b", work("b", 10, log));
    const late = turns.run("c", work("c", 1, log));
    await Promise.all([first, second, late]);
    expect(log.indexOf("c")).toBeLessThanOrEqual(2);
  });

  it("settles a call with what its work returns or throws, and goes on with the others", async () => {
    const turns = new Turns({ clock: sliceClock() });
    function* failing(): Steps<never> {
      yield;
      throw new Error("broken");
    }
    const log: string[] = [];
    const broken = turns.run("a", failing());
    const fine = turns.run("b", work("b", 3, log));
    await expect(broken).rejects.toThrow("broken");
    await expect(fine).resolves.toBe("b");
    expect(turns.waiting).toBe(0);
  });
});

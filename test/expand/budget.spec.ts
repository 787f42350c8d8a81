/**
 * A budget counts work, never time: it allows exactly its units, and a step
 * of it allows a piece of work no more than the step's units, after which
 * the rest of the budget is there again.
 */
import { describe, expect, it } from "vitest";
import { Budget } from "../../src/expand/budget.js";

describe("Budget", () => {
  it("allows exactly its total, then nothing", () => {
    const budget = new Budget(1_000);
    let allowed = 0;
    while (budget.allows()) allowed++;
    expect(allowed).toBe(1_000);
    expect(budget.exhausted).toBe(true);
    expect(budget.used).toBe(1_000);
  });

  it("lets a step spend at most its units, and the rest after the step ends", () => {
    const budget = new Budget(1_000);
    budget.step(10);
    let inStep = 0;
    while (budget.allows()) inStep++;
    expect(inStep).toBe(10);
    expect(budget.exhausted).toBe(false);
    budget.endStep();
    let after = 0;
    while (budget.allows()) after++;
    expect(after).toBe(990);
  });

  it("counts work spent in bulk, and says when it has run out", () => {
    const budget = new Budget(100);
    expect(budget.spend(60)).toBe(true);
    expect(budget.spend(60)).toBe(false);
    expect(budget.used).toBe(100);
    expect(budget.allows()).toBe(false);
  });

  it("without a total, never runs out", () => {
    const budget = new Budget();
    for (let i = 0; i < 10_000; i++) expect(budget.allows()).toBe(true);
    expect(budget.exhausted).toBe(false);
  });
});

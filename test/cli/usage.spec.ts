/**
 * The usage texts are plain text so `calq help` loads no command; these
 * checks keep them saying what the contract says: its enums' values, and
 * the bounds its fields declare, which the flag table reads.
 */
import { describe, expect, it } from "vitest";
import {
  FindFreeSlotsRequestSchema,
  MatchMode,
  MatchModeSchema,
  SearchEventsRequestSchema,
  TentativePolicy,
  TentativePolicySchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { BUSY_USAGE, SEARCH_USAGE, SLOTS_USAGE } from "../../src/cli/usage.js";
import { declaredBound } from "../../src/contract/index.js";

/** The help line of `flag` in `usage`, its wrapped continuation joined on. */
function lineOf(usage: string, flag: string): string {
  const match = new RegExp(`^  ${flag}(?:\\s.*)?\\n(?: {24}.*\\n)*`, "m").exec(`${usage}\n`);
  if (match === null) throw new Error(`no line for ${flag}`);
  return match[0].replace(/\s+/g, " ").trim();
}

describe("calq search's usage", () => {
  it("offers exactly the contract's match modes, spelled as --mode takes them", () => {
    const modes = MatchModeSchema.values
      .filter((value) => value.number !== MatchMode.UNSPECIFIED)
      .map((value) => value.localName.toLowerCase().replaceAll("_", "-"));
    expect(SEARCH_USAGE).toContain(`--mode ${modes.join("|")}`);
  });
});

describe("calq slots's usage", () => {
  it("offers exactly the contract's tentative policies, spelled as --tentative takes them", () => {
    const policies = TentativePolicySchema.values
      .filter((value) => value.number !== TentativePolicy.UNSPECIFIED)
      .map((value) => value.localName.toLowerCase());
    expect(SLOTS_USAGE).toContain(`--tentative ${policies.join("|")}`);
  });
});

describe("the flags of search, busy and slots", () => {
  it("state the bounds each field declares in the contract, with its default", () => {
    const limit = SearchEventsRequestSchema.field.limit;
    expect(lineOf(SEARCH_USAGE, "--limit")).toContain(
      `${declaredBound(limit, "min")} to ${declaredBound(limit, "max")}, or 0 for the default ${declaredBound(limit, "zeroMeans")}`,
    );
    const step = FindFreeSlotsRequestSchema.field.stepMinutes;
    expect(lineOf(SLOTS_USAGE, "--step")).toContain(
      `${declaredBound(step, "min")} to ${declaredBound(step, "max")}, or 0 for the default ${declaredBound(step, "zeroMeans")}`,
    );
    const duration = FindFreeSlotsRequestSchema.field.durationMinutes;
    expect(lineOf(SLOTS_USAGE, "--duration")).toContain(`${declaredBound(duration, "min")} to ${declaredBound(duration, "max")} (exact`);
    expect(lineOf(SLOTS_USAGE, "--limit")).toContain("1 to 50, or 0 for the default 10");
    expect(lineOf(SEARCH_USAGE, "--text")).toContain(
      `at most ${declaredBound(SearchEventsRequestSchema.field.textQuery, "maxLength")} characters`,
    );
  });

  it("say once, in whole words, what repeating --calendar does", () => {
    expect(lineOf(SEARCH_USAGE, "--calendar")).toBe(
      '--calendar ID a calendar id, or "primary" for your own; give it 1 to 50 times to search several merged in start order, with a CALENDAR column',
    );
    for (const usage of [BUSY_USAGE, SLOTS_USAGE]) {
      expect(lineOf(usage, "--calendar")).toBe('--calendar ID a calendar id, or "primary" for your own; give it 1 to 50 times for several');
      expect(usage.match(/^ {2}--calendar /gm)).toHaveLength(1);
    }
  });

  it("keep every help line within 120 columns", () => {
    for (const usage of [SEARCH_USAGE, BUSY_USAGE, SLOTS_USAGE]) {
      for (const line of usage.split("\n")) expect(line.length, line).toBeLessThanOrEqual(120);
    }
  });
});

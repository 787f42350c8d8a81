/**
 * The usage texts are written by hand so `calq help` loads nothing heavy;
 * these checks keep them saying what the contract says.
 */
import { describe, expect, it } from "vitest";
import { MatchMode, MatchModeSchema, TentativePolicy, TentativePolicySchema } from "../../gen/calq/v1/calendar_service_pb.js";
import { SEARCH_USAGE, SLOTS_USAGE } from "../../src/cli/usage.js";

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

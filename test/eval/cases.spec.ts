import { describe, expect, it } from "vitest";
import { CASES } from "../../eval/cases.js";
import { compileValidator, createAjv } from "../../src/gateway/schema-validator.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";
import { resolveWindow } from "../../src/time/request-window.js";

const search = buildToolCatalog().tools.find((tool) => tool.name === "search_calendar_events")!;
const validator = compileValidator(createAjv(), search.inputSchema);

describe("evaluation cases", () => {
  it("are at least 40, with unique ids, in English and Vietnamese", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((testCase) => testCase.id)).size).toBe(CASES.length);
    expect(CASES.filter((testCase) => testCase.language === "vi").length).toBeGreaterThanOrEqual(10);
    expect(CASES.filter((testCase) => testCase.language === "en").length).toBeGreaterThanOrEqual(10);
  });

  it("cover relative dates, a DST change, all-day questions, follow-up pages and both match modes, with and without a zone", () => {
    const tagged = (tag: string) => CASES.filter((testCase) => testCase.tags.includes(tag)).length;
    for (const tag of ["relative", "dst", "all-day", "follow-up", "no-zone", "seed", "start_within", "week", "day"])
      expect(tagged(tag), tag).toBeGreaterThanOrEqual(2);
    const modes = CASES.flatMap((testCase) => (testCase.expected.kind === "call" ? [testCase.expected.arguments.match_mode] : []));
    expect(new Set(modes)).toEqual(new Set(["overlap", "start_within"]));
  });

  it("expect a question whenever no zone is recorded and the request names no place, in both languages", () => {
    for (const testCase of CASES.filter((candidate) => candidate.context.timezone === null)) {
      expect(testCase.expected.kind === "ask", testCase.id).toBe(!testCase.tags.includes("named-place"));
    }
    const asks = CASES.filter((testCase) => testCase.expected.kind === "ask" && testCase.context.timezone === null);
    expect(new Set(asks.map((testCase) => testCase.language))).toEqual(new Set(["en", "vi"]));
  });

  it("expect only arguments the tool's schema and calq itself accept", () => {
    for (const testCase of CASES) {
      if (testCase.expected.kind !== "call") continue;
      const args = testCase.expected.arguments;
      expect(validator.problems(args), testCase.id).toEqual([]);
      expect(
        () => resolveWindow({ start: args.start, endExclusive: args.end_exclusive, timezone: args.timezone }, 366 * 86_400_000),
        testCase.id,
      ).not.toThrow();
    }
  });
});

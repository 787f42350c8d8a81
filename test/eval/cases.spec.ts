import { describe, expect, it } from "vitest";
import { CASES, type CallExpectation } from "../../eval/cases.js";
import { compileValidator, createAjv, type Validator } from "../../src/gateway/schema-validator.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";
import { resolveWindow } from "../../src/time/request-window.js";

const ajv = createAjv();
/** The generated input schema of each tool in the catalog, compiled. */
const validators = new Map<string, Validator>(buildToolCatalog().tools.map((tool) => [tool.name, compileValidator(ajv, tool.inputSchema)]));

const calls = CASES.flatMap((testCase) => (testCase.expected.kind === "call" ? [{ id: testCase.id, expected: testCase.expected }] : []));

/** The expected arguments and the alternatives, as plain records. */
const argumentSets = (expected: CallExpectation): Record<string, unknown>[] =>
  [expected.arguments, ...(expected.alternatives ?? [])].map((args) => ({ ...args }));

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
    const modes = calls
      .flatMap(({ expected }) => argumentSets(expected).map((args) => args.match_mode))
      .filter((mode) => mode !== undefined);
    expect(new Set(modes)).toEqual(new Set(["overlap", "start_within"]));
  });

  it("expect a question whenever no zone is recorded and the request names no place, in both languages", () => {
    for (const testCase of CASES.filter((candidate) => candidate.context.timezone === null)) {
      expect(testCase.expected.kind === "ask", testCase.id).toBe(!testCase.tags.includes("named-place"));
    }
    const asks = CASES.filter((testCase) => testCase.expected.kind === "ask" && testCase.context.timezone === null);
    expect(new Set(asks.map((testCase) => testCase.language))).toEqual(new Set(["en", "vi"]));
  });

  it("expect only arguments the tool's generated schema and calq itself accept", () => {
    for (const { id, expected } of calls) {
      const validator = validators.get(expected.tool);
      for (const args of argumentSets(expected)) {
        // A tool the catalog does not have yet (get_event, whose RPC is being added) has no schema to check against; once it has one, it is checked.
        if (validator !== undefined) expect(validator.problems(args), id).toEqual([]);
        if (typeof args.start !== "string") continue;
        const window = { start: args.start, endExclusive: String(args.end_exclusive), timezone: String(args.timezone) };
        expect(() => resolveWindow(window, 366 * 86_400_000), id).not.toThrow();
      }
    }
  });

  it("check every expected tool but get_event against the catalog, so a renamed tool or argument fails here", () => {
    const unchecked = new Set(calls.map(({ expected }) => expected.tool).filter((tool) => !validators.has(tool)));
    expect(
      [...unchecked].every((tool) => tool === "get_event"),
      [...unchecked].join(", "),
    ).toBe(true);
  });

  it("leave open only arguments the tool has", () => {
    for (const { id, expected } of calls) {
      for (const name of expected.leftOpen ?? []) expect(Object.keys(expected.arguments), id).toContain(name);
    }
  });
});

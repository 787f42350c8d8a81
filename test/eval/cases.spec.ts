import { describe, expect, it } from "vitest";
import { CASE_GROUPS, CASES, type CallExpectation, type EvalCase, type ExpectedTool } from "../../eval/cases.js";
import { compileValidator, createAjv, type Validator } from "../../src/gateway/schema-validator.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";
import { resolveWindow } from "../../src/time/request-window.js";

const ajv = createAjv();
/** The generated input schema of each tool in the catalog, compiled. */
const validators = new Map<string, Validator>(buildToolCatalog().tools.map((tool) => [tool.name, compileValidator(ajv, tool.inputSchema)]));

/** The expected arguments and the alternatives, as plain records. */
const argumentSets = (expected: CallExpectation): Record<string, unknown>[] =>
  [expected.arguments, ...(expected.alternatives ?? [])].map((args) => ({ ...args }));

/** Every case that expects a call, with its expectation and argument sets. */
const calls = CASES.flatMap((testCase) =>
  testCase.expected.kind === "call" ? [{ testCase, expected: testCase.expected, argumentSets: argumentSets(testCase.expected) }] : [],
);
const expecting = (tool: ExpectedTool) => calls.filter(({ expected }) => expected.tool === tool);
const asking = (about: string) => CASES.filter((testCase) => testCase.expected.kind === "ask" && testCase.expected.about === about);
const languagesOf = (cases: readonly EvalCase[]) => new Set(cases.map((testCase) => testCase.language));

/** The cases that came with the free/busy and slots tools: every group but the first set. */
const { oneCalendar, ...newGroups } = CASE_GROUPS;
const NEW_CASES: readonly EvalCase[] = Object.values(newGroups).flat();

/** Words by which a user says how tentative events count, English and Vietnamese. */
const TENTATIVE_WORDS = /tentative|chưa chắc chắn/iu;

/** Whether a window touches the local day `day` ("YYYY-MM-DD"), comparing the dates its ends are written with. */
const touchesDay = (args: Record<string, unknown>, day: string) => {
  const [start, end] = [String(args.start).slice(0, 10), String(args.end_exclusive).slice(0, 10)];
  return start === day || (start <= day && day < end);
};

describe("evaluation cases", () => {
  it("are at least 40, with unique ids, in English and Vietnamese", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((testCase) => testCase.id)).size).toBe(CASES.length);
    expect(CASES.filter((testCase) => testCase.language === "vi").length).toBeGreaterThanOrEqual(10);
    expect(CASES.filter((testCase) => testCase.language === "en").length).toBeGreaterThanOrEqual(10);
  });

  it("add at least 30 cases for the free/busy and slots tools, about half of them in each language", () => {
    expect(oneCalendar.length).toBe(48);
    expect(NEW_CASES.length).toBeGreaterThanOrEqual(30);
    const vietnamese = NEW_CASES.filter((testCase) => testCase.language === "vi").length;
    expect(Math.abs(2 * vietnamese - NEW_CASES.length)).toBeLessThanOrEqual(NEW_CASES.length / 5);
  });

  it("expect each new tool, and searches by words, in English and in Vietnamese", () => {
    for (const tool of ["search_across_calendars", "query_free_busy", "find_free_slots", "get_event"] as const) {
      expect(languagesOf(expecting(tool).map(({ testCase }) => testCase)), tool).toEqual(new Set(["en", "vi"]));
    }
    const byWords = calls.filter(({ expected }) => "text_query" in expected.arguments && expected.arguments.text_query !== null);
    expect(languagesOf(byWords.map(({ testCase }) => testCase))).toEqual(new Set(["en", "vi"]));
    // Vietnamese words with their diacritics, which calq folds ("họp" finds "hop").
    expect(byWords.some(({ argumentSets: [args] }) => /\p{M}/u.test(String(args.text_query).normalize("NFD")))).toBe(true);
  });

  it("add at least 30 cases for meeting times, filters and local days, in both languages, each asked for in both", () => {
    const added = [...CASE_GROUPS.meetingTimes, ...CASE_GROUPS.searchFilters, ...CASE_GROUPS.localDays];
    expect(added.length).toBeGreaterThanOrEqual(30);
    expect(added.filter((testCase) => testCase.language === "vi").length).toBe(added.length / 2);
    const tagged = (tag: string) => added.filter((testCase) => testCase.tags.includes(tag));
    // Optional attendees, a colleague seen busy-only, 'hide declined', a weekday of a date, next week across a DST change, nothing fitting.
    for (const tag of ["optional", "busy-only", "declined", "weekday", "dst-week", "no-fit"]) {
      expect(languagesOf(tagged(tag)), tag).toEqual(new Set(["en", "vi"]));
    }
    expect(languagesOf(expecting("find_meeting_times").map(({ testCase }) => testCase))).toEqual(new Set(["en", "vi"]));
    // The user says how tentative events count, in the request or in an earlier turn of the conversation.
    for (const { testCase } of expecting("find_meeting_times")) {
      const said = [...(testCase.history ?? []).flatMap((message) => (message.role === "user" ? [message.content] : [])), testCase.request];
      expect(said.join("\n"), testCase.id).toMatch(TENTATIVE_WORDS);
    }
    const busyOnly = tagged("busy-only").filter((testCase) => testCase.expected.kind === "call");
    for (const testCase of busyOnly) {
      expect(
        testCase.context.calendars.some((calendar) => calendar.busyOnly === true),
        testCase.id,
      ).toBe(true);
    }
  });

  it("expect the first fit's window to move, with the same attendees, when the user moves it after nothing fit", () => {
    for (const testCase of CASES.filter((candidate) => candidate.tags.includes("no-fit"))) {
      const last = (testCase.history ?? []).filter((message) => message.role === "tool").at(-1);
      expect(last?.role === "tool" && last.content.startsWith("Attendees: "), testCase.id).toBe(true);
      expect(last?.role === "tool" ? last.content : "", testCase.id).toContain("Nothing fits: outside_working_hours.");
    }
  });

  it("ask about free time across both fall-backs, New York on 2026-11-01 and London on 2026-10-25, a repeated local time among them", () => {
    for (const [zone, day] of [
      ["America/New_York", "2026-11-01"],
      ["Europe/London", "2026-10-25"],
    ]) {
      const onDay = (tool: ExpectedTool) =>
        expecting(tool).filter(
          ({ testCase, argumentSets: sets }) => testCase.context.timezone === zone && sets.some((args) => touchesDay(args, day)),
        );
      expect(onDay("find_free_slots").length, `${zone} slots`).toBeGreaterThanOrEqual(1);
      expect(onDay("query_free_busy").length, `${zone} free/busy`).toBeGreaterThanOrEqual(1);
      const folds = asking("fold").filter((testCase) => testCase.context.timezone === zone && testCase.tags.includes("free"));
      expect(folds.length, `${zone} fold`).toBeGreaterThanOrEqual(1);
    }
  });

  it("state the tentative choice in every free-slot request that expects a call, and expect a question where the user leaves it open", () => {
    for (const { testCase } of expecting("find_free_slots")) expect(testCase.request, testCase.id).toMatch(TENTATIVE_WORDS);
    const asks = asking("tentative");
    expect(languagesOf(asks)).toEqual(new Set(["en", "vi"]));
    for (const testCase of asks) expect(testCase.request, testCase.id).not.toMatch(TENTATIVE_WORDS);
  });

  it("name only calendars the user has, with the primary among them, and all of them for 'my calendars'", () => {
    for (const testCase of CASES) {
      const ids = new Set(testCase.context.calendars.map((calendar) => calendar.id));
      expect(ids.has(testCase.context.primaryCalendarId), testCase.id).toBe(true);
    }
    for (const { testCase, argumentSets: sets } of calls) {
      const ids = new Set(["primary", ...testCase.context.calendars.map((calendar) => calendar.id)]);
      for (const args of sets) {
        const named = Array.isArray(args.required_calendar_ids)
          ? [...args.required_calendar_ids, ...((args.optional_calendar_ids as unknown[] | null) ?? [])]
          : Array.isArray(args.calendar_ids)
            ? args.calendar_ids
            : [args.calendar_id];
        for (const id of named) expect(ids.has(String(id)), `${testCase.id}: ${id}`).toBe(true);
      }
    }
    const mine = calls.filter(({ testCase, expected }) => testCase.tags.includes("my-calendars") && expected.tool !== "get_event");
    expect(languagesOf(mine.map(({ testCase }) => testCase))).toEqual(new Set(["en", "vi"]));
    for (const { testCase, argumentSets: sets } of mine) {
      for (const args of sets) expect(args.calendar_ids, testCase.id).toHaveLength(testCase.context.calendars.length);
    }
  });

  it("ask get_event about an event the history shows, by the id and the calendar of its result line", () => {
    for (const { testCase, argumentSets: sets } of expecting("get_event")) {
      const [{ calendar_id: calendarId, event_id: eventId }] = sets;
      const results = (testCase.history ?? []).flatMap((message) => (message.role === "tool" ? [message.content] : []));
      const lines = results.flatMap((text) => text.split("\n")).filter((line) => line.includes(` id ${eventId}`));
      expect(lines, testCase.id).toHaveLength(1);
      expect(lines[0].endsWith(` id ${eventId}`), lines[0]).toBe(true);
      expect(lines[0].indexOf(" id "), `one id on: ${lines[0]}`).toBe(lines[0].lastIndexOf(" id "));
      const calendar = calendarId === "primary" ? testCase.context.primaryCalendarId : calendarId;
      expect(lines[0].startsWith(`- ${calendar}: `) || results[0].startsWith(`Calendar ${calendar},`), testCase.id).toBe(true);
    }
  });

  it("cover relative dates, a DST change, all-day questions, follow-up pages and both match modes, with and without a zone", () => {
    const tagged = (tag: string) => CASES.filter((testCase) => testCase.tags.includes(tag)).length;
    for (const tag of ["relative", "dst", "all-day", "follow-up", "no-zone", "seed", "start_within", "week", "day"])
      expect(tagged(tag), tag).toBeGreaterThanOrEqual(2);
    const modes = calls.flatMap(({ argumentSets: sets }) => sets.map((args) => args.match_mode)).filter((mode) => mode !== undefined);
    expect(new Set(modes)).toEqual(new Set(["overlap", "start_within"]));
  });

  it("expect a question whenever no zone is recorded and the request names no place, in both languages", () => {
    for (const testCase of CASES.filter((candidate) => candidate.context.timezone === null)) {
      expect(testCase.expected.kind === "ask", testCase.id).toBe(!testCase.tags.includes("named-place"));
    }
    const asks = CASES.filter((testCase) => testCase.expected.kind === "ask" && testCase.context.timezone === null);
    expect(languagesOf(asks)).toEqual(new Set(["en", "vi"]));
  });

  it("expect only arguments the tool's generated schema and calq itself accept", () => {
    for (const { testCase, expected, argumentSets: sets } of calls) {
      const validator = validators.get(expected.tool);
      for (const args of sets) {
        // A tool the catalog does not have yet (get_event, whose RPC is being added) has no schema to check against; once it has one, it is checked.
        if (validator !== undefined) expect(validator.problems(args), testCase.id).toEqual([]);
        if (typeof args.start !== "string") continue;
        const window = { start: args.start, endExclusive: String(args.end_exclusive), timezone: String(args.timezone) };
        expect(() => resolveWindow(window, 366 * 86_400_000), testCase.id).not.toThrow();
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
    for (const { testCase, expected } of calls) {
      for (const name of expected.leftOpen ?? []) expect(Object.keys(expected.arguments), testCase.id).toContain(name);
    }
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CASES,
  type CallExpectation,
  type EvalCase,
  type FreeSlotsArguments,
  type SearchArguments,
  type UserContext,
} from "../../eval/cases.js";
import { runCase } from "../../eval/runner.js";
import { asksAbout, type CaseScore, type Outcome, reportTable, sameArguments, scoreCase, summarize } from "../../eval/scoring.js";
import { VARIANTS } from "../../eval/variants.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";

/** Chat Completions responses in the wire format, one per case, covering right and wrong moves. */
const RECORDED = JSON.parse(readFileSync(new URL("./fixtures/recorded-completions.json", import.meta.url), "utf8")) as {
  case: string;
  response: { choices: { message: { content: string | null; tool_calls?: never } }[] };
}[];

const caseNamed = (id: string): EvalCase => CASES.find((testCase) => testCase.id === id)!;
const { tools: definitions } = buildToolCatalog();

async function scoreRecorded(): Promise<CaseScore[]> {
  const tools = VARIANTS[0].tools(definitions);
  return Promise.all(
    RECORDED.map(async (recorded) => {
      const testCase = caseNamed(recorded.case);
      const outcome = await runCase(testCase, tools, definitions, async () => recorded.response.choices[0].message);
      return scoreCase(testCase, "full", outcome);
    }),
  );
}

const friday: SearchArguments = {
  calendar_id: "primary",
  start: "2026-10-02T09:00:00+07:00",
  end_exclusive: "2026-10-02T12:00:00+07:00",
  timezone: "Asia/Ho_Chi_Minh",
  match_mode: "overlap",
  limit: null,
  cursor: null,
  text_query: null,
  status: null,
  transparency: null,
  my_participation: null,
  categories: null,
};

const sameSearch = (expected: SearchArguments, actual: Record<string, unknown>, primary: string) =>
  sameArguments("search_calendar_events", { ...expected }, actual, primary);

describe("exact arguments: the same request to calq", () => {
  it("accepts another form of the same instants, the primary calendar by id, and the default limit spelled out", () => {
    expect(sameSearch(friday, { ...friday, start: "2026-10-02T09:00", end_exclusive: "2026-10-02T12:00:00" }, "work")).toBe(true);
    expect(sameSearch(friday, { ...friday, start: "2026-10-02T02:00:00Z", timezone: "asia/ho_chi_minh" }, "work")).toBe(false);
    expect(sameSearch(friday, { ...friday, calendar_id: "work", limit: 20, cursor: "" }, "work")).toBe(true);
    expect(
      sameSearch(
        { ...friday, start: "2026-10-02", end_exclusive: "2026-10-03" },
        { ...friday, start: "2026-10-02T00:00:00+07:00", end_exclusive: "2026-10-03T00:00:00+07:00" },
        "work",
      ),
    ).toBe(true);
  });

  it("refuses other instants, a wrong offset, another mode, another limit, a missing cursor, and extra arguments", () => {
    expect(sameSearch(friday, { ...friday, end_exclusive: "2026-10-02T12:30:00+07:00" }, "work")).toBe(false);
    expect(sameSearch(friday, { ...friday, start: "2026-10-02T09:00:00Z" }, "work")).toBe(false);
    expect(sameSearch(friday, { ...friday, match_mode: "start_within" }, "work")).toBe(false);
    expect(sameSearch(friday, { ...friday, limit: 10 }, "work")).toBe(false);
    expect(sameSearch({ ...friday, cursor: "abc" }, { ...friday }, "work")).toBe(false);
    expect(sameSearch(friday, { ...friday, user_id: "an" }, "work")).toBe(false);
    expect(sameSearch(friday, { ...friday, calendar_id: "new-york" }, "work")).toBe(false);
  });
});

const CONTEXT: UserContext = {
  now: "2026-09-30T01:00:00Z",
  timezone: "Asia/Ho_Chi_Minh",
  primaryCalendarId: "work",
  calendars: [
    { id: "work", displayName: "Work" },
    { id: "binh", displayName: "Bình Nguyễn" },
  ],
};

const slots: FreeSlotsArguments = {
  calendar_ids: ["primary", "binh"],
  start: "2026-10-05",
  end_exclusive: "2026-10-12",
  timezone: "Asia/Ho_Chi_Minh",
  duration_minutes: 30,
  step_minutes: null,
  tentative: "busy",
  working_hours_start: "09:00",
  working_hours_end: "17:00",
  working_days: null,
  limit: null,
};

const caseExpecting = (expected: CallExpectation, id = "synthetic"): EvalCase => ({
  id,
  language: "en",
  context: CONTEXT,
  request: "Find 30 minutes with Binh next week in work hours; tentative counts as busy.",
  expected,
  tags: [],
});

const slotsCase = caseExpecting({ kind: "call", tool: "find_free_slots", arguments: slots, leftOpen: ["limit"] });
const called = (name: string, args: Record<string, unknown>): Outcome => ({ kind: "call", name, arguments: args });

describe("exact arguments of the other tools", () => {
  it("counts the right tool with the same request as exact: calendars in another order, primary by id, defaults spelled out", () => {
    const score = scoreCase(
      slotsCase,
      "full",
      called("find_free_slots", {
        ...slots,
        calendar_ids: ["binh", "work"],
        start: "2026-10-05T00:00:00+07:00",
        step_minutes: 30,
        working_days: [5, 4, 3, 2, 1],
      }),
    );
    expect(score).toMatchObject({ expectedTool: "find_free_slots", rightTool: true, exact: true, matchModeCorrect: null });
  });

  it("counts another tool, even with the same window, as the wrong tool", () => {
    const { calendar_ids, start, end_exclusive, timezone } = slots;
    const score = scoreCase(slotsCase, "full", called("query_free_busy", { calendar_ids, start, end_exclusive, timezone }));
    expect(score).toMatchObject({ rightTool: false, exact: false });
  });

  it("counts the right tool with one argument changed as right tool, not exact", () => {
    for (const wrong of [
      { tentative: "free" },
      { duration_minutes: 60 },
      { calendar_ids: ["primary"] },
      { calendar_ids: ["primary", "work", "binh"] },
      { working_hours_end: "18:00" },
      { working_hours_start: "9:00" },
      { working_days: [1, 2, 3, 4, 5, 6] },
      { step_minutes: 15 },
      { end_exclusive: "2026-10-12T00:00:00Z" },
      { timezone: "Asia/Bangkok" },
      { user_id: "an" },
    ]) {
      const score = scoreCase(slotsCase, "full", called("find_free_slots", { ...slots, ...wrong }));
      expect(score, JSON.stringify(wrong)).toMatchObject({ rightTool: true, exact: false });
    }
  });

  it("takes any value of an argument the case leaves open, and any alternative argument set", () => {
    expect(scoreCase(slotsCase, "full", called("find_free_slots", { ...slots, limit: 3 })).exact).toBe(true);
    const month = {
      calendar_id: "primary",
      start: "2026-10-01",
      end_exclusive: "2026-11-01",
      timezone: "Asia/Ho_Chi_Minh",
      match_mode: "overlap",
      limit: null,
      cursor: null,
      text_query: "khám răng",
      status: null,
      transparency: null,
      my_participation: null,
      categories: null,
    } as const;
    const dentist = caseExpecting({
      kind: "call",
      tool: "search_calendar_events",
      arguments: month,
      alternatives: [{ ...month, match_mode: "start_within" }],
    });
    expect(scoreCase(dentist, "full", called("search_calendar_events", { ...month, match_mode: "start_within" }))).toMatchObject({
      exact: true,
      matchModeCorrect: true,
    });
    expect(scoreCase(dentist, "full", called("search_calendar_events", { ...month, limit: 5 }))).toMatchObject({
      exact: false,
      matchModeCorrect: true,
    });
  });

  it("reads a text query as calq does: folded words in any order, none for null or empty", () => {
    const words = (expected: string | null, actual: unknown) =>
      sameArguments("search_calendar_events", { ...friday, text_query: expected }, { ...friday, text_query: actual }, "work");
    expect(words("khám răng", "Răng KHAM")).toBe(true);
    expect(words("họp", "hop")).toBe(true);
    expect(words("stand-up", "stand up")).toBe(true);
    expect(words(null, "")).toBe(true);
    expect(words(null, undefined)).toBe(true);
    expect(words("khám răng", "lịch khám răng")).toBe(false);
    expect(words("stand-up", "standup")).toBe(false);
    expect(words(null, "meeting")).toBe(false);
    expect(words("họp", "--")).toBe(false);
  });

  it("compares a search across calendars and a get_event call by their own arguments", () => {
    const across = {
      calendar_ids: ["primary", "binh"],
      start: "2026-10-01",
      end_exclusive: "2026-10-02",
      timezone: "Asia/Ho_Chi_Minh",
      match_mode: "overlap",
      limit: null,
      cursor: null,
      text_query: null,
    };
    expect(sameArguments("search_across_calendars", across, { ...across, calendar_ids: ["binh", "work"], limit: 20 }, "work")).toBe(true);
    expect(sameArguments("search_across_calendars", across, { ...across, calendar_ids: ["binh"] }, "work")).toBe(false);
    expect(sameArguments("search_across_calendars", across, { ...across, calendar_id: "work" }, "work")).toBe(false);
    const event = { calendar_id: "primary", event_id: "5c1e0a9b7d24Qx_P_20261002T030000Z" };
    expect(sameArguments("get_event", event, { ...event, calendar_id: "work" }, "work")).toBe(true);
    expect(sameArguments("get_event", event, { ...event, event_id: "5c1e0a9b7d24" }, "work")).toBe(false);
    expect(sameArguments("get_event", event, { event_id: event.event_id }, "work")).toBe(false);
  });

  it("refuses working days without working hours, as calq does", () => {
    const anyTime = { ...slots, working_hours_start: null, working_hours_end: null };
    expect(
      sameArguments("find_free_slots", anyTime, { ...anyTime, working_hours_start: "", working_hours_end: "", working_days: [] }, "work"),
    ).toBe(true);
    expect(sameArguments("find_free_slots", anyTime, { ...anyTime, working_days: [1, 2, 3, 4, 5] }, "work")).toBe(false);
  });
});

describe("rates per expected tool", () => {
  it("gives each expected tool a row per variant, the variants of one tool side by side", () => {
    const busy = {
      calendar_ids: ["primary", "binh"],
      start: "2026-10-01T12:00",
      end_exclusive: "2026-10-01T17:00",
      timezone: "Asia/Ho_Chi_Minh",
    };
    const freeBusy = caseExpecting({ kind: "call", tool: "query_free_busy", arguments: busy }, "free-busy");
    const scores = [
      scoreCase(slotsCase, "full", called("find_free_slots", { ...slots })),
      scoreCase({ ...slotsCase, id: "slots-2" }, "full", called("find_free_slots", { ...slots, tentative: "free" })),
      scoreCase(freeBusy, "full", called("query_free_busy", { ...busy, start: "2026-10-01T12:00:00+07:00" })),
      scoreCase(slotsCase, "terse", called("query_free_busy", {})),
      scoreCase({ ...slotsCase, id: "slots-2" }, "terse", { kind: "reply", text: "Should tentative meetings count as busy?" }),
      scoreCase(freeBusy, "terse", { kind: "failed", error: "timeout" }),
    ];
    const reports = ["full", "terse"].map((variant) => summarize(variant, scores));
    expect(reports[0].tools).toEqual([
      { tool: "query_free_busy", cases: 1, rightToolRate: 1, exactArgumentAccuracy: 1 },
      { tool: "find_free_slots", cases: 2, rightToolRate: 1, exactArgumentAccuracy: 0.5 },
    ]);
    expect(reports[1]).toMatchObject({ callCases: 3, rightToolRate: 0, failures: 1, matchModeCases: 0 });
    const rows = reportTable(reports)
      .split("\n")
      .filter((line) => /^\| (query_free_busy|find_free_slots) /.test(line));
    expect(rows).toEqual([
      "| query_free_busy | full | 1 | 100.0% | 100.0% |",
      "| query_free_busy | terse | 1 | 0.0% | 0.0% |",
      "| find_free_slots | full | 2 | 100.0% | 50.0% |",
      "| find_free_slots | terse | 2 | 0.0% | 0.0% |",
    ]);
  });
});

describe("scoring recorded model outputs", () => {
  it("scores each recorded move", async () => {
    const byCase = Object.fromEntries((await scoreRecorded()).map((score) => [score.caseId, score]));
    expect(byCase["en-next-friday-morning"]).toMatchObject({ exact: true, matchModeCorrect: true, asked: false });
    expect(byCase["vi-next-friday-morning"]).toMatchObject({ exact: true, matchModeCorrect: true });
    expect(byCase["en-wed-friday-morning"]).toMatchObject({ exact: false, matchModeCorrect: true });
    expect(byCase["en-count-next-week"]).toMatchObject({ exact: false, matchModeCorrect: false });
    expect(byCase["en-tomorrow"].exact).toBe(true);
    expect(byCase["en-ny-sunday-dst"].exact).toBe(true);
    expect(byCase["en-nozone-tomorrow"]).toMatchObject({
      expected: "ask",
      expectedTool: null,
      noZone: true,
      asked: true,
      exact: false,
      rightTool: false,
      matchModeCorrect: null,
    });
    expect(byCase["vi-nozone-tomorrow"]).toMatchObject({ expected: "ask", noZone: true, asked: false });
    expect(byCase["en-follow-up-more"].exact).toBe(true);
    expect(byCase["vi-follow-up-more"]).toMatchObject({ exact: false, matchModeCorrect: true });
    expect(byCase["en-wed-today"].exact).toBe(false);
    // A question, but not about a zone or place: neither a search nor a clarification.
    expect(byCase["en-explicit-hours"]).toMatchObject({
      expected: "call",
      asked: false,
      rightTool: false,
      exact: false,
      matchModeCorrect: false,
    });
    expect(byCase["en-ny-fold"]).toMatchObject({ expected: "ask", noZone: false, asked: true });
    expect(byCase["en-monday-standup"].outcome).toEqual({ kind: "call", name: "search_calendar_events", arguments: null });
    expect(byCase["en-monday-standup"]).toMatchObject({ rightTool: true, exact: false });
    // A refusal, an unrelated reply and a question about something else do not count as asking.
    expect(byCase["en-nozone-friday-morning"]).toMatchObject({ expected: "ask", asked: false, exact: false });
    expect(byCase["en-nozone-next-week"]).toMatchObject({ expected: "ask", asked: false });
    expect(byCase["en-nozone-free"]).toMatchObject({ expected: "ask", asked: false });
    expect(byCase["vi-nozone-next-week"]).toMatchObject({ expected: "ask", asked: true });
  });

  it("summarizes a variant: right tool, exact arguments, match mode, clarification rates", async () => {
    const report = summarize("full", await scoreRecorded());
    // 11 recorded cases expect a search: 10 call search_calendar_events, 5 exactly, 8 in the right mode;
    // 7 expect a question (6 without a zone, 1 fold): 3 asked, 2 of them without a zone.
    expect(report).toEqual({
      variant: "full",
      cases: 18,
      callCases: 11,
      rightToolRate: 10 / 11,
      exactArgumentAccuracy: 5 / 11,
      matchModeCases: 11,
      matchModeAccuracy: 8 / 11,
      noZoneAskCases: 6,
      clarificationRateNoZone: 2 / 6,
      askCases: 7,
      clarificationRate: 3 / 7,
      failures: 0,
      tools: [{ tool: "search_calendar_events", cases: 11, rightToolRate: 10 / 11, exactArgumentAccuracy: 5 / 11 }],
    });
    const table = reportTable([report]);
    expect(table).toContain("| full | 18 | 90.9% of 11 | 45.5% of 11 | 72.7% of 11 | 33.3% of 6 | 42.9% of 7 | 0 |");
    expect(table).toContain("| search_calendar_events | full | 11 | 90.9% | 45.5% |");
  });
});

describe("asking: a question about what the case needs", () => {
  it("counts a question about the user's time zone or place, in English and Vietnamese", () => {
    for (const reply of [
      "Which time zone are you in?",
      "Where are you right now? I need it to know when your tomorrow starts.",
      "I need your city to search. Could you tell me where you are",
      "Bạn đang ở múi giờ nào?",
      "Bạn đang ở đâu để tôi tính đúng giờ",
      "Cho tôi hỏi bạn ở thành phố nào?",
    ]) {
      expect(asksAbout(reply, "zone"), reply).toBe(true);
    }
  });

  it("does not count a refusal, an answer, or a question about something else", () => {
    for (const reply of [
      "Sorry, I can't look up your calendar without knowing your time zone.",
      "I can't tell what time zone you are in, so I won't guess.",
      "You have three meetings tomorrow.",
      "What else can I help you with?",
      "Do you mean October 5 this year?",
      "Tôi không thể tìm lịch của bạn.",
      "",
    ]) {
      expect(asksAbout(reply, "zone"), reply).toBe(false);
    }
  });

  it("counts, for a repeated local time, a question naming which of the two instants", () => {
    expect(asksAbout("1:30 happens twice on Sunday. Do you mean the first 1:30 (EDT) or the second (EST)?", "fold")).toBe(true);
    expect(asksAbout("Which time zone are you in?", "fold")).toBe(false);
    expect(asksAbout("Clocks fall back on Sunday, so 1:30 happens twice.", "fold")).toBe(false);
    expect(asksAbout("In London 1:30 comes twice that night: the BST one or the GMT one?", "fold")).toBe(true);
    expect(asksAbout("1 giờ 30 sáng Chủ nhật lặp lại hai lần. Bạn muốn nói lần đầu hay lần thứ hai?", "fold")).toBe(true);
  });

  it("counts, for free slots, a question whether tentative events count as busy, and not a choice made silently", () => {
    for (const reply of [
      "Should tentative meetings count as busy?",
      "Do unconfirmed holds block the time, or can I book over them?",
      "Bạn có muốn coi các lịch chưa chắc chắn là bận không?",
      "Lịch tạm thời thì tính là bận hay rảnh?",
    ]) {
      expect(asksAbout(reply, "tentative"), reply).toBe(true);
    }
    for (const reply of [
      "I treated tentative meetings as busy. Here are three slots.",
      "Which time zone are you in?",
      "Bạn muốn họp bao lâu?",
    ]) {
      expect(asksAbout(reply, "tentative"), reply).toBe(false);
    }
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CASES, type EvalCase, type SearchArguments } from "../../eval/cases.js";
import { runCase } from "../../eval/runner.js";
import { asksAbout, type CaseScore, reportTable, sameSearch, scoreCase, summarize } from "../../eval/scoring.js";
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
};

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

describe("scoring recorded model outputs", () => {
  it("scores each recorded move", async () => {
    const byCase = Object.fromEntries((await scoreRecorded()).map((score) => [score.caseId, score]));
    expect(byCase["en-next-friday-morning"]).toMatchObject({ exact: true, matchModeCorrect: true, asked: false });
    expect(byCase["vi-next-friday-morning"]).toMatchObject({ exact: true, matchModeCorrect: true });
    expect(byCase["en-wed-friday-morning"]).toMatchObject({ exact: false, matchModeCorrect: true });
    expect(byCase["en-count-next-week"]).toMatchObject({ exact: false, matchModeCorrect: false });
    expect(byCase["en-tomorrow"].exact).toBe(true);
    expect(byCase["en-ny-sunday-dst"].exact).toBe(true);
    expect(byCase["en-nozone-tomorrow"]).toMatchObject({ expected: "ask", noZone: true, asked: true, exact: false });
    expect(byCase["vi-nozone-tomorrow"]).toMatchObject({ expected: "ask", noZone: true, asked: false });
    expect(byCase["en-follow-up-more"].exact).toBe(true);
    expect(byCase["vi-follow-up-more"]).toMatchObject({ exact: false, matchModeCorrect: true });
    expect(byCase["en-wed-today"].exact).toBe(false);
    // A question, but not about a zone or place: neither a search nor a clarification.
    expect(byCase["en-explicit-hours"]).toMatchObject({ expected: "call", asked: false, exact: false, matchModeCorrect: false });
    expect(byCase["en-ny-fold"]).toMatchObject({ expected: "ask", noZone: false, asked: true });
    expect(byCase["en-monday-standup"].outcome).toEqual({ kind: "call", name: "search_calendar_events", arguments: null });
    expect(byCase["en-monday-standup"].exact).toBe(false);
    // A refusal, an unrelated reply and a question about something else do not count as asking.
    expect(byCase["en-nozone-friday-morning"]).toMatchObject({ expected: "ask", asked: false, exact: false });
    expect(byCase["en-nozone-next-week"]).toMatchObject({ expected: "ask", asked: false });
    expect(byCase["en-nozone-free"]).toMatchObject({ expected: "ask", asked: false });
    expect(byCase["vi-nozone-next-week"]).toMatchObject({ expected: "ask", asked: true });
  });

  it("summarizes a variant: exact-argument accuracy, match-mode accuracy, clarification rate without a zone", async () => {
    const report = summarize("full", await scoreRecorded());
    // 11 recorded cases expect a search: 5 exact, 8 in the right mode; 6 no-zone cases expect a question, 2 asked one.
    expect(report).toEqual({
      variant: "full",
      cases: 18,
      searchCases: 11,
      exactArgumentAccuracy: 5 / 11,
      matchModeAccuracy: 8 / 11,
      noZoneAskCases: 6,
      clarificationRateNoZone: 2 / 6,
      failures: 0,
    });
    expect(reportTable([report])).toContain("| full | 18 | 45.5% of 11 | 72.7% | 33.3% of 6 | 0 |");
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
  });
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CASES } from "../../eval/cases.js";
import { runEvaluation, SYSTEM_PROMPT } from "../../eval/runner.js";
import { reportTable } from "../../eval/scoring.js";
import { VARIANTS } from "../../eval/variants.js";

interface ChatRequest {
  model: string;
  temperature?: number;
  messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
  tools: {
    type: string;
    function: { name: string; description: string; strict: boolean; parameters: { properties: Record<string, { description?: string }> } };
  }[];
}

/**
 * A stand-in for an OpenAI-compatible endpoint: first asks for the user's
 * context; then asks for a zone when none is recorded; else, for a request
 * about Binh, lists the calendars and looks for free slots in the user's
 * and Binh's; for a question about "the 10:00", asks get_event about the
 * 10:00 line of the search in the history; else searches the seed's Friday
 * morning.
 */
const received: { authorization: string | undefined; body: ChatRequest }[] = [];
let endpoint: Server;
let baseUrl: string;

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      const body = JSON.parse(text) as ChatRequest;
      received.push({ authorization: request.headers.authorization, body });
      const last = body.messages.at(-1)!;
      const asked = String(body.messages.filter((turn) => turn.role === "user").at(-1)!.content);
      const call = (id: string, name: string, args: object) => ({
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
      });
      let message: unknown;
      if (last.role === "user") {
        message = call("c1", "get_user_context", {});
      } else if (String(last.content).includes("none recorded")) {
        message = { role: "assistant", content: "Which time zone are you in?" };
      } else if (asked.includes("Binh") && String(last.content).startsWith("Current time")) {
        message = call("c3", "list_calendars", {});
      } else if (asked.includes("Binh")) {
        const calendarIds = [...String(last.content).matchAll(/^- (\S+) /gm)].map((match) => match[1]);
        message = call("c4", "find_free_slots", {
          calendar_ids: calendarIds.reverse(),
          start: "2026-10-05T00:00:00+07:00",
          end_exclusive: "2026-10-12",
          timezone: "Asia/Ho_Chi_Minh",
          duration_minutes: 30,
          step_minutes: 0,
          tentative: "busy",
          working_hours_start: "09:00",
          working_hours_end: "17:00",
          working_days: [1, 2, 3, 4, 5],
          limit: 3,
        });
      } else if (asked.includes("10:00")) {
        const history = body.messages.map((turn) => String(turn.content)).join("\n");
        const eventId = /^- .* 10:00-.* id (\S+)$/m.exec(history)![1];
        message = call("c5", "get_event", { calendar_id: "work", event_id: eventId });
      } else {
        const args = {
          calendar_id: "primary",
          start: "2026-10-02T09:00",
          end_exclusive: "2026-10-02T12:00",
          timezone: "Asia/Ho_Chi_Minh",
          match_mode: "overlap",
          limit: null,
          cursor: null,
        };
        message = {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c2", type: "function", function: { name: "search_calendar_events", arguments: JSON.stringify(args) } }],
        };
      }
      response.writeHead(request.url === "/v1/chat/completions" ? 200 : 404, { "content-type": "application/json" });
      response.end(JSON.stringify({ id: "x", object: "chat.completion", choices: [{ index: 0, message, finish_reason: "stop" }] }));
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => endpoint.close(() => resolve())));

describe("the evaluation runner against an OpenAI-compatible endpoint", () => {
  it("offers each variant's tools, answers get_user_context as the gateway would, and reports per variant", async () => {
    const cases = ["en-next-friday-morning", "en-nozone-friday-morning", "vi-count-next-week"].map(
      (id) => CASES.find((testCase) => testCase.id === id)!,
    );
    const evaluation = await runEvaluation({
      cases,
      variants: [VARIANTS[0], VARIANTS[2]],
      endpoint: { baseUrl, apiKey: "test-key", model: "test-model" },
    });

    expect(received.length).toBe(12);
    expect(received.every((call) => call.authorization === "Bearer test-key" && call.body.model === "test-model")).toBe(true);
    // No temperature unless one is configured: some reasoning models refuse the parameter.
    expect(received.every((call) => !("temperature" in call.body))).toBe(true);
    const first = received[0].body;
    expect(first.messages[0]).toEqual({ role: "system", content: SYSTEM_PROMPT });
    expect(first.messages[1]).toEqual({ role: "user", content: "What meetings do I have next Friday morning?" });
    expect(first.tools.map((tool) => tool.function.name)).toEqual([
      "search_calendar_events",
      "search_across_calendars",
      "get_event",
      "list_calendars",
      "get_user_context",
      "query_free_busy",
      "find_free_slots",
      "list_changes",
      "find_meeting_times",
    ]);
    expect(first.tools.every((tool) => tool.type === "function" && tool.function.strict)).toBe(true);
    expect(first.tools[0].function.description).toContain("half-open");
    const contextAnswer = received[1].body.messages.at(-1)!;
    expect(contextAnswer.role).toBe("tool");
    expect(contextAnswer.content).toContain("Recorded time zone: Asia/Ho_Chi_Minh (local time now Sat 2026-09-26 08:00 +07:00).");
    expect(contextAnswer.content).toContain("Today: Saturday 2026-09-26. Weeks start on Monday: this week is 2026-09-21 to 2026-09-28");
    expect(received[3].body.messages.at(-1)!.content).toContain("Recorded time zone: none recorded.");
    const bare = received[6].body;
    expect(bare.tools[0].function.description).toBe("");
    expect(bare.tools[0].function.parameters.properties.start.description).toBeUndefined();

    for (const report of evaluation.reports) {
      expect(report).toMatchObject({
        cases: 3,
        callCases: 2,
        rightToolRate: 1,
        exactArgumentAccuracy: 0.5,
        matchModeAccuracy: 0.5,
        noZoneAskCases: 1,
        clarificationRateNoZone: 1,
        failures: 0,
      });
    }
  });

  it("runs cases that need several tools: calendars looked up, then free slots; a follow-up on a search in the history, then get_event", async () => {
    received.length = 0;
    const cases = ["en-slots-binh-next-week", "en-event-meeting-link"].map((id) => CASES.find((testCase) => testCase.id === id)!);
    const evaluation = await runEvaluation({
      cases,
      variants: [VARIANTS[0], VARIANTS[1]],
      endpoint: { baseUrl, apiKey: "k", model: "m" },
    });

    // Slots: context, calendars, then the call; the follow-up: context, then the call; under each variant.
    expect(received.length).toBe(10);
    const calendarsAnswer = received[2].body.messages.at(-1)!;
    expect(calendarsAnswer.role).toBe("tool");
    expect(calendarsAnswer.content).toContain('- work "Work" (Asia/Ho_Chi_Minh, primary)');
    expect(calendarsAnswer.content).toContain('- binh "Bình Nguyễn (shared with you)" (Asia/Ho_Chi_Minh)');
    const followUp = received[3].body.messages;
    expect(followUp.map((turn) => turn.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(followUp[3].content).toContain("Sprint planning @ Room 4.2 [inside] id 5c1e0a9b7d24Qx_P_20261002T030000Z");

    expect(evaluation.scores.map((score) => [score.caseId, score.expectedTool, score.rightTool, score.exact])).toEqual([
      ["en-slots-binh-next-week", "find_free_slots", true, true],
      ["en-event-meeting-link", "get_event", true, true],
      ["en-slots-binh-next-week", "find_free_slots", true, true],
      ["en-event-meeting-link", "get_event", true, true],
    ]);
    const table = reportTable(evaluation.reports);
    expect(table).toContain("| full | 2 | 100.0% of 2 | 100.0% of 2 | 0.0% of 0 | 0.0% of 0 | 0.0% of 0 | 0 |");
    for (const row of [
      "| find_free_slots | full | 1 | 100.0% | 100.0% |",
      "| find_free_slots | terse | 1 | 100.0% | 100.0% |",
      "| get_event | full | 1 | 100.0% | 100.0% |",
      "| get_event | terse | 1 | 100.0% | 100.0% |",
    ])
      expect(table).toContain(row);
  });

  it("sends the configured temperature", async () => {
    received.length = 0;
    await runEvaluation({
      cases: CASES.slice(0, 1),
      variants: [VARIANTS[0]],
      endpoint: { baseUrl, apiKey: "k", model: "m", temperature: 0.3 },
    });
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((call) => call.body.temperature === 0.3)).toBe(true);
  });

  it("counts an endpoint failure as a failed case, not a crash", async () => {
    const evaluation = await runEvaluation({
      cases: CASES.slice(0, 1),
      variants: [VARIANTS[1]],
      endpoint: { baseUrl: `${baseUrl}/wrong`, apiKey: "k", model: "m" },
    });
    expect(evaluation.reports[0]).toMatchObject({ failures: 1, exactArgumentAccuracy: 0 });
    expect(evaluation.scores[0].outcome).toMatchObject({ kind: "failed", error: expect.stringContaining("404") });
  });
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CASES } from "../../eval/cases.js";
import { runEvaluation, SYSTEM_PROMPT } from "../../eval/runner.js";
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
 * context, then searches the seed's Friday morning when a zone is recorded,
 * and asks for one when none is.
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
      let message: unknown;
      if (last.role === "user") {
        message = {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "get_user_context", arguments: "{}" } }],
        };
      } else if (String(last.content).includes("none recorded")) {
        message = { role: "assistant", content: "Which time zone are you in?" };
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
      "list_calendars",
      "get_user_context",
      "query_free_busy",
      "find_free_slots",
    ]);
    expect(first.tools.every((tool) => tool.type === "function" && tool.function.strict)).toBe(true);
    expect(first.tools[0].function.description).toContain("half-open");
    const contextAnswer = received[1].body.messages.at(-1)!;
    expect(contextAnswer.role).toBe("tool");
    expect(contextAnswer.content).toContain("Recorded time zone: Asia/Ho_Chi_Minh (local time now Sat 2026-09-26 08:00 +07:00).");
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

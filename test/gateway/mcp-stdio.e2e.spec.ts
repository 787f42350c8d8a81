import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTool } from "../../src/gateway/formats.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";
import { AN_TOKEN, FRIDAY_MORNING, startSeedService, type SeedService } from "./support/seed-service.js";
import { callTool, errorCode, eventsOf } from "./support/tool-results.js";

let seed: SeedService;
const clients: Client[] = [];

/** A real MCP client talking to `calq mcp` spawned over stdio, as the caller holding `token`. */
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "calq-test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["bin/calq.mjs", "mcp", "--service", seed.served.baseUrl],
    env: { PATH: process.env.PATH ?? "", CALQ_TOKEN: token },
    stderr: "pipe",
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

let an: Client;

beforeAll(async () => {
  seed = await startSeedService();
  an = await connect(AN_TOKEN);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await seed.served.close();
});

describe("calq mcp over stdio, with a real MCP client", () => {
  it("lists the three tools exactly as generated, read-only, and states the protocol version", async () => {
    const { tools } = await an.listTools();
    expect(tools).toEqual(JSON.parse(JSON.stringify(buildToolCatalog().tools.map(mcpTool))));
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    expect(an.getServerVersion()?.name).toBe("calq");
    expect(an.getInstructions()).toContain("MCP 2025-06-18");
  });

  it("answers initialize with 2025-06-18, the version it implements, whatever newer version the client offers", async () => {
    const child = spawn(process.execPath, ["bin/calq.mjs", "mcp", "--service", seed.served.baseUrl], {
      env: { PATH: process.env.PATH ?? "", CALQ_TOKEN: AN_TOKEN },
      stdio: ["pipe", "pipe", "ignore"],
    });
    const answer = new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
    child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`);
    const result = JSON.parse(await answer).result;
    child.stdin!.end();
    expect(result.protocolVersion).toBe("2025-06-18");
    expect(result.serverInfo.name).toBe("calq");
    expect(result.capabilities).toEqual({ tools: {} });
  });

  it("answers the seed's Friday-morning query with the 08:30-09:30 meeting crossing the window's start", async () => {
    const result = await callTool(an, "search_calendar_events", FRIDAY_MORNING);
    const events = eventsOf(result);
    expect(events.map((event) => event.summary)).toEqual(["Design review", "Architecture workshop"]);
    expect(events[0]).toMatchObject({ start_local: "2026-10-02T08:30:00+07:00", end_local: "2026-10-02T09:30:00+07:00", window_relation: "crosses_start" });
    expect(events[1].window_relation).toBe("crosses_end");
    expect(result.text).toContain("- Fri 2026-10-02 08:30-09:30 +07:00 Design review @ Room 3.2 [crosses_start]");
    expect(result.text).toContain("No more pages.");
  });

  it("leaves the 08:30 meeting out with start_within", async () => {
    const events = eventsOf(await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, match_mode: "start_within" }));
    expect(events.map((event) => event.summary)).toEqual(["Architecture workshop"]);
  });

  it("pages with the cursor: the pages together are the unpaged result, and the text says how to go on", async () => {
    const request = { ...FRIDAY_MORNING, start: "2026-09-01", end_exclusive: "2026-11-01" };
    const whole = eventsOf(await callTool(an, "search_calendar_events", { ...request, limit: 100 }));
    const paged: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await callTool(an, "search_calendar_events", { ...request, limit: 3, cursor });
      paged.push(...eventsOf(page).map((event) => event.event_id));
      cursor = (page.structured as { next_cursor: string }).next_cursor || null;
      if (cursor !== null) expect(page.text).toContain(`call search_calendar_events again with the same arguments and cursor "${cursor}"`);
      pages++;
    } while (cursor !== null);
    expect(whole.length).toBeGreaterThan(6);
    expect(paged).toEqual(whole.map((event) => event.event_id));
    expect(pages).toBe(Math.ceil(whole.length / 3));
  });

  it("marks all-day events by their dates, not by instants in the request zone", async () => {
    const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, start: "2026-09-01", end_exclusive: "2026-09-02" });
    expect(result.text).toContain("- all day Tue 2026-09-01 to Wed 2026-09-02 National Day holiday [crosses_end]");
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ["invalid_interval", { end_exclusive: "2026-10-02T08:00:00+07:00" }, "end_exclusive"],
    ["invalid_timestamp", { start: "Friday 9am" }, "start"],
    ["unknown_timezone", { timezone: "ICT" }, "timezone"],
    ["timezone_offset_mismatch", { start: "2026-10-02T09:00:00Z" }, "start"],
    ["ambiguous_timezone", { calendar_id: "new-york", timezone: "America/New_York", start: "2026-11-01T01:30:00", end_exclusive: "2026-11-01T03:00:00" }, "start"],
    ["nonexistent_local_time", { calendar_id: "new-york", timezone: "America/New_York", start: "2026-03-08T02:30:00", end_exclusive: "2026-03-08T04:00:00" }, "start"],
    ["invalid_limit", { limit: 500 }, "limit"],
    ["invalid_cursor", { cursor: "not-a-cursor" }, "cursor"],
    ["calendar_not_accessible", { calendar_id: "binh-private" }, ""],
    ["provider_unavailable", { calendar_id: "never-loaded" }, ""],
  ];
  for (const [code, change, field] of refusals) {
    it(`refuses with ${code} and the contract's instruction`, async () => {
      const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, ...change });
      expect(errorCode(result)).toBe(code);
      const instruction = buildToolCatalog().errors.find((entry) => entry.code === code)!.instruction;
      expect(result.text).toContain(`What to do: ${instruction}`);
      if (field !== "") expect(result.text).toContain(`Fields: ${field}`);
    });
  }

  it("names both instants of a fold so the model can pick one or ask", async () => {
    const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, ...refusals[4][1] });
    expect(result.text).toContain("earlier=2026-11-01T01:30:00-04:00, later=2026-11-01T01:30:00-05:00");
  });

  it("gives the same refusal for an unknown calendar and a forbidden one", async () => {
    const forbidden = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, calendar_id: "binh-private" });
    const unknown = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, calendar_id: "no-such-calendar" });
    expect(unknown.text).toBe(forbidden.text);
    expect(forbidden.text).not.toContain("Binh");
  });

  it("refuses an expired cursor with cursor_expired", async () => {
    const first = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, start: "2026-09-01", end_exclusive: "2026-11-01", limit: 2 });
    const cursor = (first.structured as { next_cursor: string }).next_cursor;
    seed.clock.now += 16 * 60_000;
    try {
      const later = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, start: "2026-09-01", end_exclusive: "2026-11-01", limit: 2, cursor });
      expect(errorCode(later)).toBe("cursor_expired");
    } finally {
      seed.clock.now -= 16 * 60_000;
    }
  });

  it("refuses a user_id or calendar_owner argument by the schema, before the service is asked", async () => {
    for (const extra of [{ user_id: "binh" }, { calendar_owner: "binh" }]) {
      const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, ...extra });
      expect(errorCode(result)).toBe("invalid_arguments");
      expect(result.text).toContain(`\`${Object.keys(extra)[0]}\`: not allowed`);
    }
    expect(errorCode(await callTool(an, "list_calendars", { user_id: "binh" }))).toBe("invalid_arguments");
  });

  it("refuses a match mode outside the closed enum, and a missing field, without fixing them up", async () => {
    const upper = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, match_mode: "MATCH_MODE_OVERLAP" });
    expect(errorCode(upper)).toBe("invalid_arguments");
    expect(upper.text).toContain('`match_mode`: must be one of "overlap", "start_within"');
    const { cursor: _, ...withoutCursor } = FRIDAY_MORNING;
    expect(errorCode(await callTool(an, "search_calendar_events", withoutCursor))).toBe("invalid_arguments");
  });

  it("tells the caller's time zone and the service's current time", async () => {
    const result = await callTool(an, "get_user_context", {});
    expect(result.structured).toEqual({ principal_id: "an", timezone: "Asia/Ho_Chi_Minh", current_time: "2026-09-30T01:00:00Z", primary_calendar_id: "work" });
    expect(result.text).toContain("Recorded time zone: Asia/Ho_Chi_Minh (local time now Wed 2026-09-30 08:00 +07:00).");
  });

  it("says 'none recorded' and to ask the user when the caller has no zone", async () => {
    const binh = await connect("demo-binh-token");
    const result = await callTool(binh, "get_user_context", {});
    expect((result.structured as { timezone: string }).timezone).toBe("");
    expect(result.text).toContain("Recorded time zone: none recorded.");
    expect(result.text).toContain("ask the user for their zone; never invent a place");
  });

  it("answers unauthenticated when the session's token is wrong", async () => {
    const stranger = await connect("not-a-token");
    expect(errorCode(await callTool(stranger, "list_calendars", {}))).toBe("unauthenticated");
  });
});

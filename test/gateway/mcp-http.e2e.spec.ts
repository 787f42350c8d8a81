import { type ChildProcess, spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { CALQ, killed, spawnNode } from "../support/calq-process.js";
import { mcpInProcess, runInProcess } from "../support/in-process.js";
import { AN_TOKEN, BINH_TOKEN, FRIDAY_MORNING, type SeedService, startSeedService } from "./support/seed-service.js";
import { callTool, errorCode, eventsOf } from "./support/tool-results.js";
import { toolScenarios } from "./support/tool-scenarios.js";

let seed: SeedService;
let gateway: ChildProcess;
let url: string;
const clients: Client[] = [];

/** A real MCP client over Streamable HTTP presenting `token` as its bearer token. */
async function connect(token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "calq-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

beforeAll(async () => {
  seed = await startSeedService();
  gateway = spawn(process.execPath, ["bin/calq.mjs", "mcp", "--http", "0", "--service", seed.served.baseUrl], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: gateway.stdout! }).once("line", resolve);
    gateway.once("exit", (code) => reject(new Error(`calq mcp --http exited with ${code}`)));
  });
  url = /listening on (http:\/\/\S+),/.exec(firstLine)![1];
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  gateway.kill("SIGTERM");
  await seed.served.close();
});

describe("calq mcp --http (Streamable HTTP), with a real MCP client", () => {
  it("negotiates MCP 2025-06-18 and answers the Friday-morning query as the bearer's principal", async () => {
    const { client, transport } = await connect(AN_TOKEN);
    expect(transport.protocolVersion).toBe("2025-06-18");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
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
    const events = eventsOf(await callTool(client, "search_calendar_events", FRIDAY_MORNING));
    expect(events[0]).toMatchObject({ summary: "Design review", window_relation: "crosses_start" });
  });

  it("shows a second principal only its own calendars, whatever it asks for", async () => {
    const { client: binh } = await connect(BINH_TOKEN);
    const { client: an } = await connect(AN_TOKEN);
    const binhCalendars = await callTool(binh, "list_calendars", {});
    expect((binhCalendars.structured as { calendars: { id: string }[] }).calendars.map((calendar) => calendar.id)).toEqual([
      "binh-private",
    ]);
    expect(eventsOf(await callTool(binh, "search_calendar_events", FRIDAY_MORNING)).map((event) => event.summary)).toEqual([
      "Doctor appointment",
    ]);
    expect(errorCode(await callTool(binh, "search_calendar_events", { ...FRIDAY_MORNING, calendar_id: "work" }))).toBe(
      "calendar_not_accessible",
    );
    expect(errorCode(await callTool(binh, "search_calendar_events", { ...FRIDAY_MORNING, user_id: "an" }))).toBe("invalid_arguments");
    // Interleaved with Binh's calls on the same gateway, An still sees An's calendars.
    const anCalendars = await callTool(an, "list_calendars", {});
    expect((anCalendars.structured as { calendars: { id: string }[] }).calendars.map((calendar) => calendar.id)).toEqual([
      "binh-private",
      "never-loaded",
      "new-york",
      "team",
      "work",
    ]);
  });

  toolScenarios({ seed: () => seed, connect: async (token) => (await connect(token)).client });

  it("answers 401 with a Bearer challenge when no token is sent", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("Bearer");
  });
});

describe("calq mcp --http: where it may listen", () => {
  it("refuses a non-loopback --host with status 2 and says why: bearer tokens would travel in plaintext", async () => {
    const child = spawnNode([CALQ, "mcp", "--http", "0", "--host", "0.0.0.0", "--service", seed.served.baseUrl]);
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    // It must exit by itself; if it kept running, the test's timeout would end the wait, and `killed` the process.
    onTestFinished(() => killed(child));
    const status = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(status).toBe(2);
    expect(stderr).toContain("refusing plaintext on 0.0.0.0, which is not a loopback address");
    expect(stderr).toContain("bearer tokens");
    expect(stderr).toContain("--allow-plaintext-non-loopback");
  });

  it("serves a non-loopback --host when --allow-plaintext-non-loopback says TLS is terminated in front", async () => {
    const gateway = await mcpInProcess(
      ["--http", "0", "--host", "0.0.0.0", "--allow-plaintext-non-loopback", "--service", seed.served.baseUrl],
      {},
    );
    try {
      expect(gateway.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    } finally {
      await gateway.stop();
    }
  });

  it("refuses, on loopback, a request naming another host (DNS rebinding)", async () => {
    const target = new URL(url);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
        const call = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: "POST",
            headers: {
              host,
              authorization: `Bearer ${AN_TOKEN}`,
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode!);
          },
        );
        call.once("error", reject);
        call.end(body);
      });
    expect(await status(`rebound.example:${target.port}`)).toBe(403);
    expect(await status(target.host)).not.toBe(403);
  });
});

/** A raw HTTP exchange with the gateway at `target`, as a browser or a script would send it: the status and the headers. */
function exchange(
  target: string,
  { method = "POST", headers = {} }: { method?: string; headers?: Record<string, string> },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const at = new URL(target);
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      {
        host: at.hostname,
        port: at.port,
        path: at.pathname,
        method,
        headers: {
          authorization: `Bearer ${AN_TOKEN}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (response) => {
        response.resume();
        resolve({ status: response.statusCode!, headers: response.headers });
      },
    );
    call.once("error", reject);
    call.end(method === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) : undefined);
  });
}

describe("calq mcp --http: which web pages may call it (the Origin header)", () => {
  it("serves a request without Origin, which no browser sends, and refuses any Origin by default with 403", async () => {
    expect((await exchange(url, {})).status).toBe(200);
    for (const origin of [`http://rebound.example:${new URL(url).port}`, `http://127.0.0.1:${new URL(url).port}`, "null"]) {
      const refused = await exchange(url, { headers: { origin } });
      expect(refused.status, origin).toBe(403);
      expect(refused.headers["access-control-allow-origin"], origin).toBeUndefined();
    }
  });

  it("serves the origins --allow-origin names, with the CORS answers a page needs, and only those", async () => {
    const gateway = await mcpInProcess(
      [
        "--http",
        "0",
        "--service",
        seed.served.baseUrl,
        "--allow-origin",
        "http://App.Example:3000",
        "--allow-origin",
        "https://tools.example:443",
      ],
      {},
    );
    const allowing = gateway.url;
    try {
      const served = await exchange(allowing, { headers: { origin: "http://app.example:3000" } });
      expect(served.status).toBe(200);
      expect(served.headers["access-control-allow-origin"]).toBe("http://app.example:3000");
      expect((await exchange(allowing, { headers: { origin: "https://tools.example" } })).status).toBe(200);
      const preflight = await exchange(allowing, {
        method: "OPTIONS",
        headers: { origin: "http://app.example:3000", "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers["access-control-allow-methods"]).toBe("POST");
      expect(preflight.headers["access-control-allow-headers"]).toContain("authorization");
      for (const origin of ["http://app.example:3001", "https://app.example:3000", "http://evil.example"]) {
        expect((await exchange(allowing, { headers: { origin } })).status, origin).toBe(403);
        expect((await exchange(allowing, { method: "OPTIONS", headers: { origin } })).status, origin).toBe(403);
      }
    } finally {
      await gateway.stop();
    }
  });

  it("takes the allowed origins from CALQ_MCP_ALLOWED_ORIGINS, comma separated, when no --allow-origin is given", async () => {
    const gateway = await mcpInProcess(["--http", "0", "--service", seed.served.baseUrl], {
      CALQ_MCP_ALLOWED_ORIGINS: "https://one.example, https://two.example",
    });
    try {
      expect((await exchange(gateway.url, { headers: { origin: "https://two.example" } })).status).toBe(200);
      expect((await exchange(gateway.url, { headers: { origin: "https://three.example" } })).status).toBe(403);
    } finally {
      await gateway.stop();
    }
  });

  it("refuses to start, with status 2, on an --allow-origin that is not an origin", async () => {
    const run = await runInProcess(
      ["mcp", "--http", "0", "--service", seed.served.baseUrl, "--allow-origin", "https://app.example/page"],
      {},
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("https://app.example/page is not an origin");
  });
});

describe("calq mcp --http: what a request may be", () => {
  /** POSTs `body` as the MCP client would, with An's token; the status and the JSON answer. */
  async function post(body: string): Promise<{ status: number; json: { error?: { code: number; message: string }; result?: unknown } }> {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${AN_TOKEN}` },
      body,
    });
    return { status: response.status, json: await response.json() };
  }

  it("refuses a JSON-RPC batch with -32600, answering none of its calls (MCP 2025-06-18 removed batching)", async () => {
    const { status, json } = await post(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ]),
    );
    expect(status).toBe(400);
    expect(json.error?.code).toBe(-32600);
    expect(json.error?.message).toContain("batch");
  });

  it("answers a tool call whose arguments are not an object with -32602 (invalid params)", async () => {
    for (const args of [[], "text", 7, null]) {
      const { json } = await post(
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_calendars", arguments: args } }),
      );
      expect(json.error?.code, JSON.stringify(args)).toBe(-32602);
    }
  });

  it("answers a body that is not JSON with -32700 (parse error)", async () => {
    const { status, json } = await post("{not json");
    expect(status).toBe(400);
    expect(json.error?.code).toBe(-32700);
  });
});

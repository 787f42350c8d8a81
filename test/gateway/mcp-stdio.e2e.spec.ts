import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTool } from "../../src/gateway/formats.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";
import { AN_TOKEN, type SeedService, startSeedService } from "./support/seed-service.js";
import { toolScenarios } from "./support/tool-scenarios.js";

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
    child.stdin!.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`,
    );
    const result = JSON.parse(await answer).result;
    child.stdin!.end();
    expect(result.protocolVersion).toBe("2025-06-18");
    expect(result.serverInfo.name).toBe("calq");
    expect(result.capabilities).toEqual({ tools: {} });
  });

  toolScenarios({ seed: () => seed, connect });
});

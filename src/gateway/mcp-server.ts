/**
 * The calq tools as an MCP server (protocol 2025-06-18). One server object
 * serves one caller: its token comes from the gateway session (stdio: the
 * environment; HTTP: the request's bearer token), never from a tool
 * argument.
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import packageJson from "../../package.json" with { type: "json" };
import type { ToolExecutor } from "./execute.js";
import { MCP_PROTOCOL_VERSION, mcpTool } from "./formats.js";
import { guardToolArguments } from "./mcp-argument-guard.js";

const SERVER_INFO = { name: "calq", title: "calq calendar search", version: packageJson.version };

const CAPABILITIES = { tools: {} };

const INSTRUCTIONS =
  `calq: read-only search of the calendars the caller may read (MCP ${MCP_PROTOCOL_VERSION}). ` +
  "Call get_user_context first to learn the current time and the caller's recorded time zone.";

/** An MCP server whose tool calls run as the caller holding `token`. */
export function createMcpServer(executor: ToolExecutor, token: string): Server {
  const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  const tools = executor.tools().map(mcpTool);

  // The SDK answers with the newest version it knows; this server implements
  // 2025-06-18 alone, which the protocol lets a server answer with whatever
  // version the client asked for.
  server.removeRequestHandler(InitializeRequestSchema.shape.method.value);
  server.setRequestHandler(InitializeRequestSchema, () => ({
    protocolVersion: MCP_PROTOCOL_VERSION,
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = executor.tool(request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`);
    return { ...(await executor.call(tool, request.params.arguments, token)) };
  });
  return server;
}

/** Connects `server` to `transport`, with malformed tool arguments answered -32602 before the server sees them. */
export async function connectMcp(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  guardToolArguments(transport);
}

/** Serves MCP over this process's stdin and stdout until stdin closes, then exits. */
export async function serveStdio(executor: ToolExecutor, token: string): Promise<void> {
  const server = createMcpServer(executor, token);
  // The gRPC connection to calq would keep the process alive after the client leaves.
  server.onclose = () => process.exit(0);
  await connectMcp(server, new StdioServerTransport());
}

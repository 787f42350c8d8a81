/**
 * MCP over Streamable HTTP, stateless: every POST to /mcp is answered by a
 * fresh MCP server bound to that request's bearer token, which is forwarded
 * to calq as the caller's own credentials. No session outlives a request,
 * so one caller's token can never serve another caller's request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { bearerToken } from "../net/bearer.js";
import { isLoopback } from "../net/loopback.js";
import type { ToolExecutor } from "./execute.js";
import { connectMcp, createMcpServer } from "./mcp-server.js";

/** Largest request body read: a tool call is a few hundred bytes; this leaves room without letting a caller make the gateway hold megabytes. */
const MAX_BODY_BYTES = 256 * 1024;

/** The one path MCP is served at. */
export const MCP_PATH = "/mcp";

/** How to serve: the address to bind and what to allow there. */
export interface McpHttpOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /**
   * Serve plaintext on an address other machines can reach: only when a
   * proxy in front terminates TLS, as with the service's flag of that name.
   */
  readonly allowPlaintextNonLoopback?: boolean;
}

/** The gateway would send bearer tokens in the clear to other machines. */
export class PlaintextRefusedError extends Error {}

/** A listening gateway: its MCP endpoint and how to stop it. */
export interface McpHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Listens on host:port and serves MCP at /mcp. Refuses (PlaintextRefusedError)
 * an address other machines can reach unless allowPlaintextNonLoopback says
 * TLS is terminated in front: the requests carry bearer tokens.
 */
export async function serveMcpHttp(
  executor: ToolExecutor,
  { host, port, allowPlaintextNonLoopback = false }: McpHttpOptions,
): Promise<McpHttpServer> {
  if (!isLoopback(host) && !allowPlaintextNonLoopback) {
    throw new PlaintextRefusedError(
      `refusing plaintext on ${host}, which is not a loopback address: MCP requests carry bearer tokens, which other machines could read; pass --allow-plaintext-non-loopback if a proxy in front terminates TLS`,
    );
  }
  let allowedHosts: string[] | undefined;
  const http = createServer((request, response) => {
    handle(executor, allowedHosts, request, response).catch((error: unknown) => {
      if (!response.headersSent) jsonRpcError(response, 500, -32603, "internal error");
      process.stderr.write(`calq mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, resolve);
  });
  const bound = (http.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  // On loopback, only requests naming this server's own address are served, so
  // a web page cannot reach it through a rebound DNS name. Elsewhere the names
  // clients use are the proxy's to know, and the proxy's to check.
  if (isLoopback(host)) allowedHosts = [`${shown}:${bound}`, `localhost:${bound}`];
  return {
    url: `http://${shown}:${bound}${MCP_PATH}`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

async function handle(
  executor: ToolExecutor,
  allowedHosts: string[] | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = new URL(request.url ?? "/", "http://calq").pathname;
  if (path !== MCP_PATH) return jsonRpcError(response, 404, -32601, `not found: MCP is served at ${MCP_PATH}`);
  if (request.method !== "POST") {
    response.setHeader("allow", "POST");
    return jsonRpcError(response, 405, -32000, "this stateless server takes POST only");
  }
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) {
    response.setHeader("www-authenticate", 'Bearer realm="calq"');
    return jsonRpcError(response, 401, -32001, "send authorization: Bearer <your calq token>");
  }
  const body = await readBody(request, MAX_BODY_BYTES);
  if (body === undefined) return jsonRpcError(response, 413, -32600, `the request body is over ${MAX_BODY_BYTES} bytes`);
  let message: unknown;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch {
    return jsonRpcError(response, 400, -32700, "the request body is not JSON");
  }
  // MCP 2025-06-18 removed JSON-RPC batching; the SDK still accepts it, so it is refused here, whole.
  if (Array.isArray(message)) {
    return jsonRpcError(
      response,
      400,
      -32600,
      "JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per request",
    );
  }
  const server = createMcpServer(executor, token);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    enableDnsRebindingProtection: allowedHosts !== undefined,
    allowedHosts,
  });
  response.on("close", () => {
    void transport.close();
    void server.close();
  });
  await connectMcp(server, transport);
  await transport.handleRequest(request, response, message);
}

/** The whole body, or undefined once it passes `maxBytes` (the rest is not read). */
async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers["content-length"]);
  if (declared > maxBytes) return undefined;
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}

function jsonRpcError(response: ServerResponse, status: number, code: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

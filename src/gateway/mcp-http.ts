/**
 * MCP over Streamable HTTP, stateless: every POST to /mcp is answered by a
 * fresh MCP server bound to that request's bearer token, which is forwarded
 * to calq as the caller's own credentials. No session outlives a request,
 * so one caller's token can never serve another caller's request.
 *
 * MCP 2025-06-18 (Streamable HTTP, security warning) says a server must
 * validate the Origin header of every request, against DNS rebinding. The
 * rule here (docs/gateway.md, "MCP server"): a request without Origin is
 * served, since browsers send one with every POST and with every
 * cross-origin request, so its absence means a client that is not a web
 * page; a request with an Origin is served only when that origin is one the
 * operator allowed, and answered 403 otherwise, "null" included. Allowed
 * origins also get the CORS answers a page there needs to call.
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
  /**
   * Origins (scheme://host[:port]) whose web pages may call the gateway;
   * a request from any other origin is refused 403. None by default.
   */
  readonly allowedOrigins?: readonly string[];
}

/** A configured origin that is not an http(s) origin (scheme, host and optional port, nothing else). */
export class InvalidOriginError extends Error {}

/**
 * `text` as the origin a browser sends (lower-case scheme and host, default
 * port left out): "https://app.example:443" is "https://app.example".
 * Undefined when it is not one: another scheme, a path, a query, a user,
 * or the opaque origin "null".
 */
export function originOf(text: string): string | undefined {
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(text)) return undefined;
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
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
  { host, port, allowPlaintextNonLoopback = false, allowedOrigins = [] }: McpHttpOptions,
): Promise<McpHttpServer> {
  if (!isLoopback(host) && !allowPlaintextNonLoopback) {
    throw new PlaintextRefusedError(
      `refusing plaintext on ${host}, which is not a loopback address: MCP requests carry bearer tokens, which other machines could read; pass --allow-plaintext-non-loopback if a proxy in front terminates TLS`,
    );
  }
  const origins = new Set(
    allowedOrigins.map((text) => {
      const origin = originOf(text);
      if (origin === undefined)
        throw new InvalidOriginError(`${text} is not an origin: write scheme://host[:port], as https://app.example`);
      return origin;
    }),
  );
  let allowedHosts: string[] | undefined;
  const http = createServer((request, response) => {
    handle(executor, { allowedHosts, origins }, request, response).catch((error: unknown) => {
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

/** Whom a listening gateway serves: the Host names it answers on loopback, and the origins whose pages may call it. */
interface Admission {
  readonly allowedHosts: string[] | undefined;
  readonly origins: ReadonlySet<string>;
}

/** The headers a browser needs to let a page of an allowed origin call, and read the answer. */
function corsHeaders(origin: string): Record<string, string> {
  return { "access-control-allow-origin": origin, vary: "origin" };
}

async function handle(executor: ToolExecutor, admission: Admission, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = new URL(request.url ?? "/", "http://calq").pathname;
  if (path !== MCP_PATH) return jsonRpcError(response, 404, -32601, `not found: MCP is served at ${MCP_PATH}`);
  const sentOrigin = request.headers.origin;
  if (sentOrigin !== undefined) {
    const origin = originOf(sentOrigin);
    if (origin === undefined || !admission.origins.has(origin)) {
      response.setHeader("vary", "origin");
      return jsonRpcError(
        response,
        403,
        -32000,
        "requests from this origin are not allowed (the gateway's --allow-origin lists those that are)",
      );
    }
    for (const [name, value] of Object.entries(corsHeaders(origin))) response.setHeader(name, value);
    if (request.method === "OPTIONS") {
      response.writeHead(204, {
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": "authorization, content-type, accept, mcp-protocol-version",
        "access-control-max-age": "600",
      });
      response.end();
      return;
    }
  }
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
    enableDnsRebindingProtection: admission.allowedHosts !== undefined,
    allowedHosts: admission.allowedHosts,
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

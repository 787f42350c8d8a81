/**
 * The gateway's subcommands of `calq`:
 *
 *   calq tools --format openai|anthropic|mcp
 *   calq mcp [--service URL] [--http PORT [--host H] [--allow-plaintext-non-loopback] [--allow-origin O ...]]
 *
 * `calq mcp` serves MCP over stdio as the caller whose token is in CALQ_TOKEN,
 * or, with --http, over Streamable HTTP as whoever each request's bearer
 * token names. Either way it reaches calq at --service (or CALQ_SERVICE_URL).
 * Like the service, it serves plaintext on a non-loopback address only when
 * told a proxy in front terminates TLS. Over HTTP, web pages may call it
 * only from the origins --allow-origin (or CALQ_MCP_ALLOWED_ORIGINS, comma
 * separated) names.
 *
 * Usage errors exit 2 with a one-line message, like the rest of the command.
 */
import { readFileSync } from "node:fs";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import type { Logger } from "../log.js";
import { pinoLogger } from "../logging/logger.js";
import { createCalqClient } from "./calq-client.js";
import { ToolExecutor } from "./execute.js";
import { FORMATS, MCP_PROTOCOL_VERSION, type ToolFormat, toolsInFormat } from "./formats.js";
import { InvalidOriginError, type McpHttpServer, PlaintextRefusedError, serveMcpHttp } from "./mcp-http.js";
import { serveStdio } from "./mcp-server.js";
import { buildToolCatalog } from "./tool-schemas.js";

const DEFAULT_SERVICE_URL = "http://127.0.0.1:50051";

function readCa(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch {
    throw new GatewayUsageError(`--tls-ca ${path} cannot be read`);
  }
}

/** A mistake in how `calq tools` or `calq mcp` was called: `calq` prints it with the usage and exits 2. */
export class GatewayUsageError extends Error {}

/** True for an error that is the caller's usage mistake rather than a failure. */
export function isGatewayUsageError(error: unknown): boolean {
  return error instanceof GatewayUsageError || error instanceof PlaintextRefusedError || error instanceof InvalidOriginError;
}

/** What `calq tools ARGS` prints: the tool schemas in the format asked for. */
export function toolsText(argv: string[]): string {
  const { values } = parseArgs({ args: argv, options: { format: { type: "string" } }, strict: true });
  const format = values.format as ToolFormat | undefined;
  if (format === undefined || !FORMATS.includes(format)) throw new GatewayUsageError(`--format must be one of ${FORMATS.join(", ")}`);
  return `${JSON.stringify(toolsInFormat(buildToolCatalog().tools, format), null, 2)}\n`;
}

/** `calq mcp ARGS`: serves MCP over stdio or Streamable HTTP until stopped. */
export async function serveMcp(argv: string[], env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const server = await openMcp(argv, env, process.stdout);
  if (server === undefined) return;
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/**
 * `calq mcp ARGS` up to serving, without the process's signals: over
 * stdio it serves until its input ends (and gives undefined); over HTTP it
 * gives the listening server, its address written to `out`. Logs go to
 * `log` (JSON lines on stdout by default).
 */
export async function openMcp(
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
  out: Writable,
  log: Logger = pinoLogger(),
): Promise<McpHttpServer | undefined> {
  const { values } = parseArgs({
    args: argv,
    options: {
      service: { type: "string" },
      "tls-ca": { type: "string", default: env.CALQ_TLS_CA },
      http: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      "allow-plaintext-non-loopback": { type: "boolean", default: false },
      "allow-origin": { type: "string", multiple: true },
    },
    strict: true,
  });
  const serviceUrl = values.service ?? env.CALQ_SERVICE_URL ?? DEFAULT_SERVICE_URL;
  if (!/^https?:\/\/[^/]+/.test(serviceUrl)) throw new GatewayUsageError(`--service ${serviceUrl} is not an http(s) URL`);
  const ca = values["tls-ca"];
  if (ca !== undefined && !serviceUrl.startsWith("https://")) throw new GatewayUsageError("--tls-ca needs an https:// --service");
  const executor = new ToolExecutor(
    buildToolCatalog(),
    createCalqClient(serviceUrl, { ca: ca === undefined ? undefined : readCa(ca) }),
    log,
  );
  const allowedOrigins = values["allow-origin"] ?? listOf(env.CALQ_MCP_ALLOWED_ORIGINS);
  if (values.http === undefined) {
    if (values["allow-origin"] !== undefined) throw new GatewayUsageError("--allow-origin goes with --http: stdio has no origins");
    const token = env.CALQ_TOKEN;
    if (token === undefined || token === "") throw new GatewayUsageError("calq mcp over stdio needs the caller's token in CALQ_TOKEN");
    await serveStdio(executor, token);
    return undefined;
  }
  const port = Number(values.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new GatewayUsageError(`--http ${values.http} is not a port number`);
  const server = await serveMcpHttp(executor, {
    host: values.host,
    port,
    allowPlaintextNonLoopback: values["allow-plaintext-non-loopback"],
    allowedOrigins,
  });
  out.write(`calq MCP gateway (MCP ${MCP_PROTOCOL_VERSION}, Streamable HTTP) listening on ${server.url}, calling ${serviceUrl}\n`);
  return server;
}

/** A comma-separated list, blanks dropped; empty when unset. */
function listOf(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * A tool call's `arguments` must be a JSON object (MCP 2025-06-18,
 * CallToolRequest). The SDK parses every request against its schema before
 * any handler runs and answers a mismatch -32603 (internal error), which
 * tells the client the server broke, not that the request did. This guard
 * sits between a transport and the server and answers such a call -32602
 * (invalid params) itself, on stdio and HTTP alike.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Rewires `transport.onmessage` (set by `server.connect`) so tool calls with non-object arguments never reach the server. */
export function guardToolArguments(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refusal = argumentsRefusal(message);
    if (refusal === undefined) return deliver?.(message, extra);
    void transport.send(refusal).catch(() => undefined);
  };
}

function argumentsRefusal(message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!isJSONRPCRequest(message) || message.method !== "tools/call") return undefined;
  const args: unknown = message.params?.arguments;
  if (args === undefined || (typeof args === "object" && args !== null && !Array.isArray(args))) return undefined;
  const got = args === null ? "null" : Array.isArray(args) ? "an array" : `a ${typeof args}`;
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: { code: ErrorCode.InvalidParams, message: `arguments must be a JSON object of the tool's parameters, not ${got}` },
  };
}

/**
 * The tools in each vendor's format: OpenAI function tools in strict mode
 * (Chat Completions), Anthropic tools (`input_schema`) and MCP 2025-06-18
 * tools (`inputSchema`, `outputSchema`, `title`, read-only annotations).
 * Only the envelope differs; schemas and descriptions are the catalog's.
 */
import type { JsonSchema, ToolDefinition } from "./tool-schemas.js";

/** The formats `calq tools --format` prints. */
export const FORMATS = ["openai", "anthropic", "mcp"] as const;
/** One of FORMATS. */
export type ToolFormat = (typeof FORMATS)[number];

/** The MCP protocol version this gateway implements. */
export const MCP_PROTOCOL_VERSION = "2025-06-18";

/** An OpenAI Chat Completions function tool, strict mode. */
export interface OpenAiTool {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema; readonly strict: true };
}

/** An Anthropic Messages API tool. */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonSchema;
}

/** An MCP tool as tools/list returns it. */
export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { type: "object" };
  readonly outputSchema: JsonSchema & { type: "object" };
  readonly annotations: {
    readonly title: string;
    readonly readOnlyHint: true;
    readonly destructiveHint: false;
    readonly idempotentHint: true;
    readonly openWorldHint: false;
  };
}

/** Strict mode: the input schema already has every property required and no additional properties. */
export function openAiTool(tool: ToolDefinition): OpenAiTool {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: true } };
}

/** Anthropic takes the same JSON Schema as `input_schema`. */
export function anthropicTool(tool: ToolDefinition): AnthropicTool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}

/** Every calq tool only reads, and reads only calq: the annotations say so. */
export function mcpTool(tool: ToolDefinition): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as McpTool["inputSchema"],
    outputSchema: tool.outputSchema as McpTool["outputSchema"],
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

/** The tools in one format. */
export function toolsInFormat(tools: readonly ToolDefinition[], format: ToolFormat): OpenAiTool[] | AnthropicTool[] | McpTool[] {
  switch (format) {
    case "openai":
      return tools.map(openAiTool);
    case "anthropic":
      return tools.map(anthropicTool);
    case "mcp":
      return tools.map(mcpTool);
  }
}

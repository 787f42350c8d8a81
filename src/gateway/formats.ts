/**
 * The tools in each vendor's format: OpenAI function tools in strict mode
 * (Chat Completions), Anthropic tools (`input_schema`) and MCP 2025-06-18
 * tools (`inputSchema`, `outputSchema`, `title`, read-only annotations).
 * Only the envelope differs; schemas and descriptions are the catalog's,
 * except that OpenAI's strict mode, which has no `maxLength`, reads the same
 * bound as a `pattern`.
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
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: strictModeSchema(tool.inputSchema), strict: true },
  };
}

/**
 * `schema` in the keywords OpenAI's strict mode takes: a `maxLength` becomes
 * the `pattern` that accepts the same strings. JSON Schema patterns are
 * Unicode regular expressions, so `[\s\S]{0,n}` counts code points, as
 * `maxLength` does.
 */
export function strictModeSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "maxLength") out.pattern = `^[\\s\\S]{0,${String(value)}}$`;
    else if (keyword === "properties") out.properties = mapValues(value as Record<string, JsonSchema>, strictModeSchema);
    else if (keyword === "items") out.items = strictModeSchema(value as JsonSchema);
    else out[keyword] = value;
  }
  return out;
}

function mapValues<T, U>(record: Readonly<Record<string, T>>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
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

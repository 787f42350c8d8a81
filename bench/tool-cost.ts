/**
 * What one tool costs a model's context, and the budgets the issues set:
 * o200k tokens of the JSON a client receives for it from tools/list, its
 * name, description and input schema serialised together, as an MCP client
 * (or `calq tools`) hands them to a model. Shared by bench/tool-tokens.ts,
 * which records the figures, and the tests that hold the budgets (one in
 * process, one on a real tools/list answer).
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

/** Tokens one tool may cost, the search tool, and all of them together. */
export const PER_TOOL_BUDGET = 1_200;
export const SEARCH_TOOL_BUDGET = 1_000;
export const ALL_TOOLS_BUDGET = 5_000;

/** The tool a model searches with, held to SEARCH_TOOL_BUDGET. */
export const SEARCH_TOOL = "search_calendar_events";

/** A tool as tools/list gives it; only these three fields reach the model's context as the tool's definition. */
export interface ListedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: unknown;
}

export interface ToolCost {
  readonly tool: string;
  readonly name: number;
  readonly description: number;
  readonly schema: number;
  /** The serialised {name, description, inputSchema}: what the budgets hold. */
  readonly total: number;
}

export function toolCost(tool: ListedTool): ToolCost {
  const { name, description = "", inputSchema } = tool;
  return {
    tool: name,
    name: countTokens(name),
    description: countTokens(description),
    schema: countTokens(JSON.stringify(inputSchema)),
    total: countTokens(JSON.stringify({ name, description, inputSchema })),
  };
}

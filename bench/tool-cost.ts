/**
 * What one tool costs a model's context, and the budget issue 11 sets: o200k
 * tokens of its name, description and input schema (JSON), as
 * `calq tools --format openai` prints them. Shared by bench/tool-tokens.ts,
 * which records the figures, and the test that holds the budget.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { ToolDefinition } from "../src/gateway/tool-schemas.js";

/** Tokens one tool may cost, and all of them together. */
export const PER_TOOL_BUDGET = 1_200;
export const ALL_TOOLS_BUDGET = 5_000;

export interface ToolCost {
  readonly tool: string;
  readonly name: number;
  readonly description: number;
  readonly schema: number;
  readonly total: number;
}

export function toolCost(tool: ToolDefinition): ToolCost {
  const name = countTokens(tool.name);
  const description = countTokens(tool.description);
  const schema = countTokens(JSON.stringify(tool.inputSchema));
  return { tool: tool.name, name, description, schema, total: name + description + schema };
}

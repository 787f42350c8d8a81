/**
 * Reading MCP tool results in tests: the text, the error code of a refusal,
 * and the structured content checked against the tool's output schema.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "vitest";
import { compileValidator, createAjv, type Validator } from "../../../src/gateway/schema-validator.js";
import { buildToolCatalog } from "../../../src/gateway/tool-schemas.js";

export interface CallResult {
  readonly text: string;
  readonly isError: boolean;
  readonly structured?: Record<string, unknown>;
}

const ajv = createAjv();
const outputValidators = new Map<string, Validator>(
  buildToolCatalog().tools.map((tool) => [tool.name, compileValidator(ajv, tool.outputSchema)]),
);

/** Calls a tool; a successful result's structured content must fit the tool's output schema. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
  };
  const text = result.content.map((part) => part.text).join("\n");
  if (result.isError !== true) expect(outputValidators.get(name)!.problems(result.structuredContent)).toEqual([]);
  return { text, isError: result.isError === true, structured: result.structuredContent };
}

/** The lower-case code of a refusal ("invalid_interval: ..."). */
export function errorCode(result: CallResult): string {
  expect(result.isError, result.text).toBe(true);
  return result.text.slice(0, result.text.indexOf(":"));
}

export interface Occurrence {
  event_id: string;
  summary: string;
  start_local: string;
  end_local: string;
  window_relation: string;
}

export function eventsOf(result: CallResult): Occurrence[] {
  expect(result.isError, result.text).toBe(false);
  return (result.structured as { events: Occurrence[] }).events;
}

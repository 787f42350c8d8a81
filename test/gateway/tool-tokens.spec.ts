/**
 * The context budget: each tool costs at most 1,200 o200k tokens, the
 * search tool at most 1,000, and all of them together at most 5,000,
 * counted with a real tokenizer on the JSON a client receives from
 * tools/list (name, description and input schema of each tool, serialised),
 * so a proto comment that grows a tool past its budget fails here rather
 * than in a model's context. The MCP end-to-end specs count the same on a
 * real tools/list answer.
 */
import { describe, expect, it } from "vitest";
import { ALL_TOOLS_BUDGET, PER_TOOL_BUDGET, SEARCH_TOOL, SEARCH_TOOL_BUDGET, toolCost } from "../../bench/tool-cost.js";
import { mcpTool } from "../../src/gateway/formats.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";

const costs = buildToolCatalog().tools.map(mcpTool).map(toolCost);

describe("the tools' context cost", () => {
  it.each(costs.map((cost) => [cost.tool, cost] as const))("keeps %s within its budget", (_name, cost) => {
    expect(cost.total).toBeLessThanOrEqual(PER_TOOL_BUDGET);
    // Counted for real: a description is never free.
    expect(cost.description).toBeGreaterThan(50);
  });

  it("keeps the search tool within its own budget", () => {
    expect(costs.find((cost) => cost.tool === SEARCH_TOOL)!.total).toBeLessThanOrEqual(SEARCH_TOOL_BUDGET);
  });

  it("keeps all the tools together within the budget", () => {
    expect(costs.reduce((sum, cost) => sum + cost.total, 0)).toBeLessThanOrEqual(ALL_TOOLS_BUDGET);
  });

  it("says each result field's meaning once, in the output schema, not in the description", () => {
    for (const tool of buildToolCatalog().tools) {
      expect(tool.description, tool.name).not.toContain("The result:");
      for (const field of tool.method.output.fields) {
        const property = (tool.outputSchema.properties as Record<string, { description?: string }>)[field.name];
        expect(property?.description, `${tool.name}.${field.name}`).toBeTruthy();
      }
    }
  });
});

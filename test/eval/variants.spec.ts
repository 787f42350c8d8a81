import { describe, expect, it } from "vitest";
import { SYSTEM_PROMPT } from "../../eval/runner.js";
import { VARIANTS, variantNamed } from "../../eval/variants.js";
import type { OpenAiTool } from "../../src/gateway/formats.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";

const { tools: definitions } = buildToolCatalog();

/** The parameters of a tool with every `description` removed, at any depth. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "description")
      .map(([key, inner]) => [key, withoutDescriptions(inner)]),
  );
}

const properties = (tool: OpenAiTool) => tool.function.parameters.properties as Record<string, { description?: string }>;

describe("description variants stay comparable", () => {
  it("offer the same tools, in the same order, with the same schemas: only the descriptions differ", () => {
    const [full, ...others] = VARIANTS.map((variant) => variant.tools(definitions));
    expect(full.map((tool) => tool.function.name)).toEqual(definitions.map((definition) => definition.name));
    for (const tools of others) {
      expect(tools.map((tool) => tool.function.name)).toEqual(full.map((tool) => tool.function.name));
      expect(tools.map((tool) => withoutDescriptions(tool))).toEqual(full.map((tool) => withoutDescriptions(tool)));
    }
  });

  it("share a system prompt that names no tool, no argument and no match mode, so it cannot stand in for a description", () => {
    const names = definitions.flatMap((definition) => [
      definition.name,
      ...Object.keys((definition.inputSchema.properties ?? {}) as Record<string, unknown>).filter((name) => name.includes("_")),
    ]);
    for (const name of [...names, "overlap", "start_within", "tentative"]) expect(SYSTEM_PROMPT, name).not.toContain(name);
  });

  it("cut terse at whole sentences of the full text, for every tool and property, never at a colon", () => {
    const full = variantNamed("full").tools(definitions);
    const terse = variantNamed("terse").tools(definitions);
    terse.forEach((tool, index) => {
      const name = tool.function.name;
      expect(tool.function.description, name).not.toBe("");
      expect(full[index].function.description.startsWith(tool.function.description), name).toBe(true);
      for (const [property, schema] of Object.entries(properties(tool))) {
        const fullText = properties(full[index])[property].description ?? "";
        const terseText = schema.description ?? "";
        expect(fullText.startsWith(terseText), `${name}.${property}`).toBe(true);
        expect(terseText === fullText || /[.!?]$/.test(terseText), `${name}.${property}: "${terseText}"`).toBe(true);
      }
    });
  });

  it("keep the range of each bounded number in every variant, as the schema's keywords rather than in a description", () => {
    for (const variant of VARIANTS) {
      const findFreeSlots = variant.tools(definitions).find((tool) => tool.function.name === "find_free_slots")!;
      expect(properties(findFreeSlots).duration_minutes, variant.name).toMatchObject({ minimum: 5, maximum: 1440 });
      expect(properties(findFreeSlots).limit, variant.name).toMatchObject({ minimum: 0, maximum: 50 });
    }
    const terse = variantNamed("terse")
      .tools(definitions)
      .find((tool) => tool.function.name === "find_free_slots")!;
    expect(properties(terse).duration_minutes.description).toBe("Length of each slot in minutes.");
  });
});

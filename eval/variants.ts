/**
 * Description variants to compare, all derived from the generated tools (so
 * none is written by hand): the full generated text, a terse cut of it, and
 * no descriptions at all as the baseline. Schemas are the same in all three.
 */
import { type OpenAiTool, openAiTool } from "../src/gateway/formats.js";
import type { JsonSchema, ToolDefinition } from "../src/gateway/tool-schemas.js";

/** A way of describing the same tools. */
export interface DescriptionVariant {
  readonly name: string;
  readonly summary: string;
  tools(definitions: readonly ToolDefinition[]): OpenAiTool[];
}

/** The variants `eval/run.ts` compares by default. */
export const VARIANTS: readonly DescriptionVariant[] = [
  { name: "full", summary: "the generated descriptions, as served", tools: (definitions) => definitions.map(openAiTool) },
  {
    name: "terse",
    summary: "first paragraph of each tool description, first sentence of each property",
    tools: (definitions) =>
      definitions.map((definition) =>
        openAiTool({
          ...definition,
          description: firstParagraph(definition.description),
          inputSchema: mapDescriptions(definition.inputSchema, firstSentence),
        }),
      ),
  },
  {
    name: "bare",
    summary: "names and schemas only, no descriptions",
    tools: (definitions) =>
      definitions.map((definition) =>
        openAiTool({ ...definition, description: "", inputSchema: mapDescriptions(definition.inputSchema, () => undefined) }),
      ),
  },
];

/** The variant of this name; throws on an unknown one. */
export function variantNamed(name: string): DescriptionVariant {
  const variant = VARIANTS.find((candidate) => candidate.name === name);
  if (variant === undefined) throw new Error(`unknown variant ${name}; known: ${VARIANTS.map((candidate) => candidate.name).join(", ")}`);
  return variant;
}

function firstParagraph(text: string): string {
  return text.split("\n\n")[0];
}

/**
 * Up to the first full stop, question or exclamation mark followed by a space
 * or the end. A colon does not end a sentence: what follows it (the forms an
 * instant may take, say) belongs to it. Bounds need no sentence: they are
 * the schema's own keywords, the same in every variant.
 */
function firstSentence(text: string): string {
  const match = /^.*?[.!?](?=\s|$)/s.exec(text);
  return match === null ? text : match[0];
}

/** The input schema with each property's description rewritten (or dropped when `rewrite` gives undefined). */
function mapDescriptions(schema: JsonSchema, rewrite: (text: string) => string | undefined): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        const { description, ...rest } = property;
        const rewritten = rewrite(String(description ?? ""));
        return [name, rewritten === undefined ? rest : { ...rest, description: rewritten }];
      }),
    ),
  };
}

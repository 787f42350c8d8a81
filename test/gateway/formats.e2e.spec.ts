import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { anthropicTool, mcpTool, openAiTool, strictModeSchema, toolsInFormat } from "../../src/gateway/formats.js";
import { compileValidator, createAjv } from "../../src/gateway/schema-validator.js";
import { buildToolCatalog, type JsonSchema } from "../../src/gateway/tool-schemas.js";
import { runInProcess } from "../support/in-process.js";

const { tools } = buildToolCatalog();

/** Keywords OpenAI's strict mode (Structured Outputs) supports; anything else is refused by the API. */
const OPENAI_KEYWORDS = new Set([
  "type",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);
const OPENAI_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

/** Every way `schema` breaks OpenAI's strict-mode rules, as paths; empty when it keeps them. */
function strictModeViolations(schema: JsonSchema, path = "$"): string[] {
  const found: string[] = [];
  for (const keyword of Object.keys(schema)) {
    if (!OPENAI_KEYWORDS.has(keyword)) found.push(`${path}: unsupported keyword ${keyword}`);
  }
  if (typeof schema.format === "string" && !OPENAI_FORMATS.has(schema.format)) found.push(`${path}: unsupported format ${schema.format}`);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("object")) {
    if (schema.additionalProperties !== false) found.push(`${path}: additionalProperties must be false`);
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = (schema.required ?? []) as string[];
    if ([...Object.keys(properties)].sort().join() !== [...required].sort().join()) found.push(`${path}: every property must be required`);
    for (const [name, property] of Object.entries(properties)) found.push(...strictModeViolations(property, `${path}.${name}`));
  }
  if (schema.items !== undefined) found.push(...strictModeViolations(schema.items as JsonSchema, `${path}[]`));
  if (schema.type === undefined && schema.anyOf === undefined && schema.$ref === undefined) found.push(`${path}: no type`);
  return found;
}

/** Every schema must be a valid JSON Schema under both dialects tool hosts use. */
function expectValidJsonSchema(schema: JsonSchema): void {
  const draft7 = new Ajv({ strict: true, validateFormats: false });
  const draft2020 = new Ajv2020({ strict: true, validateFormats: false });
  expect(draft7.validateSchema(schema), JSON.stringify(draft7.errors)).toBe(true);
  expect(draft2020.validateSchema(schema), JSON.stringify(draft2020.errors)).toBe(true);
  expect(() => draft2020.compile(schema)).not.toThrow();
}

describe("OpenAI function tools (strict mode)", () => {
  const openai = tools.map(openAiTool);

  it("are strict function tools whose parameters keep every strict-mode rule", () => {
    for (const tool of openai) {
      expect(Object.keys(tool)).toEqual(["type", "function"]);
      expect(tool.type).toBe("function");
      expect(tool.function.strict).toBe(true);
      expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(strictModeViolations(tool.function.parameters)).toEqual([]);
      expectValidJsonSchema(tool.function.parameters);
    }
  });

  it("states a length bound, which strict mode lacks, as a pattern accepting exactly the same strings", () => {
    const search = tools.find((tool) => tool.name === "search_calendar_events")!;
    const strict = strictModeSchema(search.inputSchema) as { properties: { text_query: JsonSchema } };
    expect(strict.properties.text_query).toMatchObject({ pattern: "^[\\s\\S]{0,200}$" });
    expect(strict.properties.text_query.maxLength).toBeUndefined();
    const ajv = createAjv();
    const [catalog, openai] = [search.inputSchema, strict].map((schema) =>
      compileValidator(ajv, (schema as { properties: { text_query: JsonSchema } }).properties.text_query),
    );
    const bold = "\u{1D431}"; // one code point, two UTF-16 units
    for (const text of ["x".repeat(200), bold.repeat(200), "dòng\nmới", null]) {
      expect([catalog.problems(text), openai.problems(text)]).toEqual([[], []]);
    }
    for (const text of ["x".repeat(201), bold.repeat(201)]) {
      expect(catalog.problems(text)).not.toEqual([]);
      expect(openai.problems(text)).not.toEqual([]);
    }
  });

  it("the strict-mode check catches what OpenAI refuses", () => {
    expect(strictModeViolations({ type: "object", properties: { a: { type: "string", minLength: 1 } }, required: [] })).toEqual([
      "$: additionalProperties must be false",
      "$: every property must be required",
      "$.a: unsupported keyword minLength",
    ]);
  });
});

describe("Anthropic tools", () => {
  it("carry name, description and an object input_schema, nothing else", () => {
    for (const tool of tools.map(anthropicTool)) {
      expect(Object.keys(tool)).toEqual(["name", "description", "input_schema"]);
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.input_schema.type).toBe("object");
      expect(tool.description.length).toBeGreaterThan(0);
      expectValidJsonSchema(tool.input_schema);
    }
  });
});

describe("MCP 2025-06-18 tools", () => {
  it("parse as the SDK's Tool and carry title, output schema and read-only annotations", () => {
    for (const tool of tools.map(mcpTool)) {
      expect(ToolSchema.safeParse(tool).success).toBe(true);
      expect(tool.title).toMatch(/^[A-Z]/);
      expect(tool.annotations.readOnlyHint).toBe(true);
      expect(tool.annotations.destructiveHint).toBe(false);
      expectValidJsonSchema(tool.inputSchema);
      expectValidJsonSchema(tool.outputSchema);
      expect(tool.outputSchema.type).toBe("object");
    }
  });
});

// The command in this process (test/cli/smoke.e2e.spec.ts runs `calq tools` as a process of its own).
describe("calq tools --format", () => {
  for (const format of ["openai", "anthropic", "mcp"] as const) {
    it(`prints the ${format} tools`, async () => {
      const run = await runInProcess(["tools", "--format", format], {});
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(toolsInFormat(tools, format))));
    });
  }

  it("refuses an unknown format with status 2", async () => {
    expect((await runInProcess(["tools", "--format", "yaml"], {})).status).toBe(2);
  });
});

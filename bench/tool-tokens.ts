/**
 * What the calq tools cost a model's context: o200k tokens of each tool's
 * name, description and input schema, as `calq tools --format openai`
 * prints them, beside the budget issue 11 sets (1,200 per tool, 5,000 for
 * all). Writes its section of bench/RESULTS.md; a test will hold the
 * budget once the descriptions fit it.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { buildToolCatalog } from "../src/gateway/tool-schemas.js";
import { machineLine, writeResultsSection } from "./results-file.js";

const PER_TOOL = 1_200;
const ALL_TOOLS = 5_000;

const rows = buildToolCatalog().tools.map((tool) => {
  const name = countTokens(tool.name);
  const description = countTokens(tool.description);
  const schema = countTokens(JSON.stringify(tool.inputSchema));
  return { tool: tool.name, name, description, schema, total: name + description + schema };
});
const total = rows.reduce((sum, row) => sum + row.total, 0);

const section = `## Tool context cost (bench/tool-tokens.ts)

- ${machineLine()}
- o200k tokens (gpt-tokenizer) of each tool's name, description and input schema (JSON), as generated from the proto.

| tool | name | description | input schema | total | budget |
|---|---|---|---|---|---|
${rows.map((row) => `| ${row.tool} | ${row.name} | ${row.description} | ${row.schema} | ${row.total} | ${PER_TOOL} |`).join("\n")}
| all tools | | | | ${total} | ${ALL_TOOLS} |
`;
writeResultsSection("tool-tokens", section);
process.stdout.write(section);

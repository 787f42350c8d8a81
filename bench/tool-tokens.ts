/**
 * What the calq tools cost a model's context (bench/tool-cost.ts), beside
 * the budget issue 11 sets; test/gateway/tool-tokens.spec.ts holds the
 * budget. Writes its section of bench/RESULTS.md.
 */
import { buildToolCatalog } from "../src/gateway/tool-schemas.js";
import { machineLine, writeResultsSection } from "./results-file.js";
import { ALL_TOOLS_BUDGET as ALL_TOOLS, PER_TOOL_BUDGET as PER_TOOL, toolCost } from "./tool-cost.js";

const rows = buildToolCatalog().tools.map(toolCost);
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

/**
 * What the calq tools cost a model's context (bench/tool-cost.ts), beside
 * their budgets, which test/gateway/tool-tokens.spec.ts holds. Writes its
 * section of bench/RESULTS.md.
 */
import { mcpTool } from "../src/gateway/formats.js";
import { buildToolCatalog } from "../src/gateway/tool-schemas.js";
import { machineLine, writeResultsSection } from "./results-file.js";
import { ALL_TOOLS_BUDGET as ALL_TOOLS, PER_TOOL_BUDGET as PER_TOOL, SEARCH_TOOL, SEARCH_TOOL_BUDGET, toolCost } from "./tool-cost.js";

const rows = buildToolCatalog().tools.map(mcpTool).map(toolCost);
const total = rows.reduce((sum, row) => sum + row.total, 0);

const section = `## Tool context cost (bench/tool-tokens.ts)

- ${machineLine()}
- o200k tokens (gpt-tokenizer) of each tool as a client receives it from tools/list: its name, description and input schema serialised together (JSON), as generated from the proto. The parts are counted alone too.

| tool | name | description | input schema | total | budget |
|---|---|---|---|---|---|
${rows.map((row) => `| ${row.tool} | ${row.name} | ${row.description} | ${row.schema} | ${row.total} | ${row.tool === SEARCH_TOOL ? SEARCH_TOOL_BUDGET : PER_TOOL} |`).join("\n")}
| all tools | | | | ${total} | ${ALL_TOOLS} |
`;
writeResultsSection("tool-tokens", section);
process.stdout.write(section);

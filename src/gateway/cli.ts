/**
 * The gateway's subcommands of `calq`:
 *
 *   calq tools --format openai|anthropic|mcp
 *   calq mcp [--service URL] [--http PORT [--host H]]
 *
 * Usage errors exit 2 with a one-line message, like the rest of the command.
 */
import { parseArgs } from "node:util";
import { FORMATS, toolsInFormat, type ToolFormat } from "./formats.js";
import { buildToolCatalog } from "./tool-schemas.js";

export const GATEWAY_USAGE = `usage: calq tools --format openai|anthropic|mcp

  --format F       print the calq tools as OpenAI function tools (strict), Anthropic tools or MCP tools`;

/** Runs `calq tools ...`; false when `command` is not the gateway's. */
export async function runGatewayCommand(command: string, argv: string[]): Promise<boolean> {
  if (command !== "tools") return false;
  try {
    printTools(argv);
  } catch (error) {
    const usage = error instanceof GatewayUsageError || (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"));
    if (!usage) throw error;
    process.stderr.write(`calq: ${(error as Error).message}\n${GATEWAY_USAGE}\n`);
    process.exit(2);
  }
  return true;
}

class GatewayUsageError extends Error {}

function printTools(argv: string[]): void {
  const { values } = parseArgs({ args: argv, options: { format: { type: "string" } }, strict: true });
  const format = values.format as ToolFormat | undefined;
  if (format === undefined || !FORMATS.includes(format)) throw new GatewayUsageError(`--format must be one of ${FORMATS.join(", ")}`);
  process.stdout.write(`${JSON.stringify(toolsInFormat(buildToolCatalog().tools, format), null, 2)}\n`);
}

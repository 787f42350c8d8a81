/**
 * The `calq` command.
 *
 *   calq serve --data DIR [options]     (serve-command.ts)
 *   calq search --calendar ID ...       (search-command.ts)
 *   calq check FILE.ics [--timezone Z]  (check-command.ts)
 *   calq tools | calq mcp               (gateway/cli.ts)
 *
 * Exits 2 on bad usage or a bad config: a one-line message, then the usage
 * of the command that was misused only (the whole manual is `calq help`).
 */
import { ConfigError } from "../config/calq-config.js";
import { GATEWAY_USAGE, runGatewayCommand } from "../gateway/cli.js";
import { stderrLogger } from "../server/log.js";
import { CHECK_USAGE, check } from "./check-command.js";
import { SEARCH_USAGE, search } from "./search-command.js";
import { SERVE_USAGE, serve } from "./serve-command.js";
import { UsageError } from "./usage-error.js";

const USAGE = `${SERVE_USAGE}\n\n${SEARCH_USAGE}\n\n${CHECK_USAGE}`;

/** The usage printed after a mistake in each command. */
const COMMAND_USAGE: Readonly<Record<string, string>> = { serve: SERVE_USAGE, search: SEARCH_USAGE, check: CHECK_USAGE };

/** After an unknown command: what the commands are, not every option of each. */
const COMMANDS = `usage: calq serve|search|check|tools|mcp ...   (calq help shows every option)`;

function usageOf(command: string | undefined): string {
  return command !== undefined && Object.hasOwn(COMMAND_USAGE, command) ? COMMAND_USAGE[command] : COMMANDS;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command !== undefined && Object.hasOwn(COMMAND_USAGE, command) && (rest.includes("--help") || rest.includes("-h"))) {
      process.stdout.write(`${COMMAND_USAGE[command]}\n`);
      return;
    }
    if (command === "serve") return await serve(rest);
    if (command === "search") process.exit(await search(rest));
    if (command === "check") process.exit(await check(rest));
    if (command !== undefined && (await runGatewayCommand(command, rest))) return;
    if (command === undefined || command === "help" || command === "--help" || command === "-h") {
      process.stdout.write(`${USAGE}\n\n${GATEWAY_USAGE}\n`);
      return;
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`calq: ${error.message}\n${error instanceof UsageError ? `${usageOf(command)}\n` : ""}`);
      process.exit(2);
    }
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`calq: ${error.message}\n${usageOf(command)}\n`);
      process.exit(2);
    }
    if (error instanceof Error && "code" in error && error.code === "EADDRINUSE") {
      process.stderr.write(`calq: the address is already in use (${error.message})\n`);
      process.exit(1);
    }
    stderrLogger({ level: "error", msg: "calq failed", error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
}

await main(process.argv.slice(2));

/**
 * The `calq` command, as a function of its arguments, environment and output
 * streams (main.ts hands it the process's), so tests run it in process.
 *
 *   calq serve --data DIR [options]     (serve-command.ts)
 *   calq search --calendar ID ...       (search-command.ts)
 *   calq busy | calq slots ...          (free-busy-command.ts)
 *   calq meet --required ID ...         (meet-command.ts)
 *   calq check FILE.ics [--timezone Z]  (check-command.ts)
 *   calq calendars add|update|rm|ls     (registry-command.ts)
 *   calq people set PRINCIPAL           (registry-command.ts)
 *   calq tools | calq mcp               (gateway/cli.ts)
 *
 * Only the command that runs is loaded: `calq help` and `calq CMD --help`
 * read the usage texts alone (usage.ts), so they start in a few tens of
 * milliseconds rather than after the server, the client and the gateway.
 *
 * Exits 2 on bad usage or a bad config: a one-line message, then the usage
 * of the command that was misused only (the whole manual is `calq help`).
 */

import type { Environment } from "../config/calq-config.js";
import {
  BUSY_USAGE,
  CALENDARS_USAGE,
  CHECK_USAGE,
  GATEWAY_USAGE,
  MEET_USAGE,
  PEOPLE_USAGE,
  SEARCH_USAGE,
  SERVE_USAGE,
  SLOTS_USAGE,
} from "./usage.js";
import { UsageError } from "./usage-error.js";

/** What a command does when it finishes: an exit status, or keep running (a server). */
export type Outcome = number | "running";

/** Where a command writes: the process's stdout and stderr, or a test's. */
export interface CommandOutput {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

interface Command {
  readonly usage: string;
  readonly run: (argv: string[], env: Environment, output: CommandOutput) => Promise<Outcome>;
}

/** Every command, its usage and how to load and run it. */
const COMMANDS: Readonly<Record<string, Command>> = {
  serve: {
    usage: SERVE_USAGE,
    run: async (argv, env) => {
      await (await import("./serve-command.js")).serve(argv, env, process.cwd());
      return "running";
    },
  },
  search: {
    usage: SEARCH_USAGE,
    run: async (argv, env, { out, err }) => (await import("./search-command.js")).search(argv, env, out, err),
  },
  busy: {
    usage: BUSY_USAGE,
    run: async (argv, env, { out, err }) => (await import("./free-busy-command.js")).busy(argv, env, out, err),
  },
  slots: {
    usage: SLOTS_USAGE,
    run: async (argv, env, { out, err }) => (await import("./free-busy-command.js")).slots(argv, env, out, err),
  },
  meet: {
    usage: MEET_USAGE,
    run: async (argv, env, { out, err }) => (await import("./meet-command.js")).meet(argv, env, out, err),
  },
  check: { usage: CHECK_USAGE, run: async (argv, env) => (await import("./check-command.js")).check(argv, env) },
  calendars: {
    usage: CALENDARS_USAGE,
    run: async (argv, env, { out, err }) => (await import("./registry-command.js")).calendars(argv, env, out, err),
  },
  people: {
    usage: PEOPLE_USAGE,
    run: async (argv, env, { out, err }) => (await import("./registry-command.js")).people(argv, env, out, err),
  },
  tools: {
    usage: GATEWAY_USAGE,
    run: async (argv, _env, { out }) => {
      await writeAll(out, (await import("../gateway/cli.js")).toolsText(argv));
      return 0;
    },
  },
  mcp: {
    usage: GATEWAY_USAGE,
    run: async (argv, env) => {
      await (await import("../gateway/cli.js")).serveMcp(argv, env);
      return "running";
    },
  },
};

const MANUAL = [SERVE_USAGE, SEARCH_USAGE, BUSY_USAGE, SLOTS_USAGE, CHECK_USAGE, CALENDARS_USAGE, PEOPLE_USAGE, GATEWAY_USAGE].join("\n\n");

/** After an unknown command: what the commands are, not every option of each. */
const SUMMARY = `usage: calq ${Object.keys(COMMANDS).join("|")} ...   (calq help shows every option)`;

function commandNamed(name: string | undefined): Command | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** True for a mistake in how calq was called, as opposed to a failure while running. */
async function isUsageMistake(error: unknown): Promise<boolean> {
  if (error instanceof UsageError) return true;
  if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) return true;
  const { ConfigError } = await import("../config/config-model.js");
  if (error instanceof ConfigError) return true;
  const { isGatewayUsageError } = await import("../gateway/cli.js");
  return isGatewayUsageError(error);
}

/** Writes `text` and waits until it is handed on, so a pipe gets all of it before the process exits. */
export function writeAll(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

/** Runs `calq ARGV`: an exit status (0 done, 1 failed, 2 misused), or "running" for a server. */
export async function runCommand(argv: readonly string[], env: Environment, output: CommandOutput): Promise<Outcome> {
  const [name, ...rest] = argv;
  const command = commandNamed(name);
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    await writeAll(output.out, `${MANUAL}\n`);
    return 0;
  }
  try {
    if (command === undefined) throw new UsageError(`unknown command "${name}"`);
    if (rest.includes("--help") || rest.includes("-h")) {
      await writeAll(output.out, `${command.usage}\n`);
      return 0;
    }
    return await command.run(rest, env, output);
  } catch (error) {
    if (await isUsageMistake(error)) {
      const shown = error instanceof Error ? error.message : String(error);
      const isConfig = error instanceof Error && error.name === "ConfigError";
      await writeAll(output.err, `calq: ${shown}\n${isConfig ? "" : `${command?.usage ?? SUMMARY}\n`}`);
      return 2;
    }
    if (error instanceof Error && "code" in error && error.code === "EADDRINUSE") {
      await writeAll(output.err, `calq: the address is already in use (${error.message})\n`);
      return 1;
    }
    const { stderrLogger } = await import("../logging/logger.js");
    stderrLogger({ level: "error", msg: "calq failed", error: error instanceof Error ? error.message : String(error) });
    return 1;
  }
}

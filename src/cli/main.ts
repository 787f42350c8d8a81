/**
 * The `calq` command.
 *
 *   calq serve --data DIR [--port N] [--host H] [--dev-token T]
 *   calq check FILE.ics [--timezone ZONE]
 *
 * Exits 2 with a one-line message on bad usage or a bad config.
 */
import { parseArgs } from "node:util";
import { CHECK_USAGE, checkFeed } from "./check-command.js";
import { ConfigError, loadDataDirectory } from "../config/calq-config.js";
import { startServer } from "../server/server.js";
import { stderrLogger } from "../server/log.js";
import { GATEWAY_USAGE, runGatewayCommand } from "../gateway/cli.js";

const USAGE = `usage: calq serve --data DIR [--port N] [--host H] [--dev-token T]
       calq check FILE.ics [--timezone ZONE]

  --data DIR       folder with calq.yaml, or with *.ics files (then --dev-token is needed)
  --port N         port to listen on (default 50051; 0 picks a free one)
  --host H         address to bind (default 127.0.0.1)
  --dev-token T    bearer token of principal "dev" when DIR has no calq.yaml
                   (or set CALQ_DEV_TOKEN)`;

class UsageError extends Error {}

async function check(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { timezone: { type: "string" } }, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError(`calq check takes one file\n${CHECK_USAGE}`);
  const { exitCode, report } = await checkFeed(positionals[0], values.timezone);
  process.stdout.write(`${report}\n`);
  process.exitCode = exitCode;
}

async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: "string" },
      port: { type: "string", default: "50051" },
      host: { type: "string", default: "127.0.0.1" },
      "dev-token": { type: "string" },
    },
    strict: true,
  });
  if (values.data === undefined) throw new UsageError("--data DIR is required");
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${values.port} is not a port number`);
  const config = loadDataDirectory(values.data, values["dev-token"] ?? process.env.CALQ_DEV_TOKEN);
  const server = await startServer({ config, host: values.host, port });
  const shown = server.host.includes(":") ? `[${server.host}]` : server.host;
  process.stdout.write(
    `calq listening on ${shown}:${server.port} (gRPC and gRPC-Web over HTTP/2 cleartext; Connect and gRPC-Web over HTTP/1.1)\n` +
      `serving ${config.calendars.length} calendar(s) from ${values.data}\n`,
  );
  process.on("SIGHUP", () => {
    for (const calendar of config.calendars) void server.store.reload(calendar.id);
  });
  const stop = () => {
    void server.close(2_000).then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === "serve") return await serve(rest);
    if (command === "check") return await check(rest);
    if (command !== undefined && (await runGatewayCommand(command, rest))) return;
    if (command === undefined || command === "help" || command === "--help" || command === "-h") {
      process.stdout.write(`${USAGE}\n\n${GATEWAY_USAGE}\n`);
      return;
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`calq: ${error.message}\n${error instanceof UsageError ? `${USAGE}\n` : ""}`);
      process.exit(2);
    }
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`calq: ${error.message}\n${USAGE}\n`);
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

/**
 * The calq command run inside the test process, with its own environment and
 * its output collected: the command's logic without the cost of a process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { runCommand } from "../../src/cli/run-command.js";
import { openServe } from "../../src/cli/serve-command.js";
import { openMcp } from "../../src/gateway/cli.js";

/** What a command printed and how it ended. */
export interface CommandRun {
  readonly status: number | "running";
  readonly stdout: string;
  readonly stderr: string;
}

/** A stream that keeps what is written to it. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

/** Runs `calq ARGS` in this process, with `env` as its whole environment, and collects what it prints. */
export async function runInProcess(args: readonly string[], env: Record<string, string>): Promise<CommandRun> {
  const out = collector();
  const err = collector();
  const status = await runCommand(args, env, { out: out.stream, err: err.stream });
  return { status, stdout: out.text(), stderr: err.text() };
}

/** A `calq serve` running in this process: its address, and how to stop it. */
export interface ServedInProcess {
  readonly address: string;
  /** Closes the server at once (no grace period), as a replica that is stopped; once, however often called. */
  stop(): Promise<void>;
}

/**
 * Runs `calq serve ARGS` in this process (src/cli/serve-command.ts: the
 * same settings, registry and calendars as the command), without the
 * signals and exit of the command, and resolves once it serves. With its
 * own registry folder unless `env` names one or another engine, as
 * startCalqServe gives each process.
 */
export async function serveInProcess(args: readonly string[], env: Record<string, string>): Promise<ServedInProcess> {
  const ownRegistry =
    env.CALQ_REGISTRY_FOLDER === undefined && env.CALQ_REGISTRY_ENGINE === undefined
      ? mkdtempSync(join(tmpdir(), "calq-registry-"))
      : undefined;
  const server = await openServe(
    [...args],
    ownRegistry === undefined ? env : { ...env, CALQ_REGISTRY_FOLDER: ownRegistry },
    process.cwd(),
    {
      out: collector().stream,
      log: () => {},
    },
  );
  if (server === undefined) throw new Error("calq serve ended without serving");
  return {
    address: `${server.host}:${server.port}`,
    // A server closes once however often asked (RunningServer.close), and removing a removed folder is nothing.
    stop: async () => {
      await server.close(0);
      if (ownRegistry !== undefined) rmSync(ownRegistry, { recursive: true, force: true });
    },
  };
}

/** `calq mcp --http ...` in this process (src/gateway/cli.ts openMcp): its URL, and how to stop it. */
export async function mcpInProcess(args: readonly string[], env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const server = await openMcp([...args], env, collector().stream, () => {});
  if (server === undefined) throw new Error("calq mcp served stdio, not HTTP");
  return { url: server.url, stop: () => server.close() };
}

/**
 * The calq command run inside the test process, with its own environment and
 * its output collected: the command's logic without the cost of a process.
 */
import { Writable } from "node:stream";
import { runCommand } from "../../src/cli/run-command.js";

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

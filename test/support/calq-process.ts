/**
 * The calq command as a user runs it: a real child process of
 * `node bin/calq.mjs ...`, for end-to-end tests of the CLI (in-process.ts
 * runs the same command inside the test).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommandRun } from "./in-process.js";

export const CALQ = join(import.meta.dirname, "../../bin/calq.mjs");
export const ROOT = join(import.meta.dirname, "../..");

/** Starts `node ARGS` in the repository root with stdout and stderr piped. */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
}

/** Resolves with the first match of `pattern` in the child's stdout; rejects if it exits first. */
export function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = pattern.exec(out);
      if (match) resolve(match);
    });
    child.stderr!.on("data", (chunk) => (err += chunk));
    child.on("exit", (code, signal) => reject(new Error(`exited ${code ?? signal} before printing ${pattern}: ${err}`)));
  });
}

/**
 * Starts `calq serve ARGS` and resolves with the child and the host:port it
 * prints, once it says it is serving: the listening line comes as the port
 * opens, before the first load of the calendars. Unless `env` names a
 * registry, each process gets an embedded registry of its own in a
 * temporary folder (removed when it exits), so processes serving one data
 * folder side by side do not contend for its registry/ (one process per
 * embedded registry).
 */
export async function startCalqServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; address: string }> {
  const ownRegistry =
    env.CALQ_REGISTRY_FOLDER === undefined && env.CALQ_REGISTRY_ENGINE === undefined
      ? mkdtempSync(join(tmpdir(), "calq-registry-"))
      : undefined;
  const child = spawnNode([CALQ, "serve", ...args], ownRegistry === undefined ? env : { ...env, CALQ_REGISTRY_FOLDER: ownRegistry });
  if (ownRegistry !== undefined) child.once("exit", () => rmSync(ownRegistry, { recursive: true, force: true }));
  const [, host, port] = await waitForOutput(child, /listening on (\S+):(\d+)[\s\S]*\nserving \d+ calendar/);
  return { child, address: `${host}:${port}` };
}

/** SIGKILLs the child and resolves once it has exited. */
export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/** What a spawned command printed and its exit status. */
export interface ChildProcessRun extends CommandRun {
  readonly status: number;
}

/** `calq search` flags for the demo's Friday morning, 09:00 to 12:00 in Ho Chi Minh City, on the caller's primary calendar. */
export const FRIDAY_MORNING_FLAGS: readonly string[] = [
  "--calendar",
  "primary",
  "--start",
  "2026-10-02T09:00",
  "--end-exclusive",
  "2026-10-02T12:00",
  "--timezone",
  "Asia/Ho_Chi_Minh",
];

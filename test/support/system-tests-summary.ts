/**
 * The run's globalSetup for tests that need programs of the system
 * (system-program.ts): before the run it makes the folder where each skipped
 * block is recorded (test files run in other processes, so the record goes
 * through the file system), and after the run it prints the one line that
 * says what was skipped and how to run it. It also reads CALQ_SYSTEM_TESTS
 * once up front, so a value it does not understand stops the run at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { readSkips, summaryLine, systemTestsMode } from "./system-program.js";

export default function setup(project: TestProject): (() => void) | undefined {
  // Every project inherits this setup; the root project's folder is the one all of them see.
  if (!project.isRootProject()) return undefined;
  systemTestsMode();
  const folder = mkdtempSync(join(tmpdir(), "calq-system-skips-"));
  project.provide("calqSystemSkips", folder);
  return () => {
    const line = summaryLine(readSkips(folder));
    rmSync(folder, { recursive: true, force: true });
    if (line !== undefined) process.stdout.write(`\n${line}\n`);
  };
}

/**
 * The calq command's own logic, in process: which usage it prints, how it
 * exits on a mistake, and that a bad calq.yaml stops `calq serve` before
 * anything starts.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUSY_USAGE, CHECK_USAGE, SEARCH_USAGE, SERVE_USAGE, SLOTS_USAGE } from "../../src/cli/usage.js";
import { runInProcess } from "../support/in-process.js";

describe("calq, run in process", () => {
  it("prints the whole manual for help, --help and no command", async () => {
    for (const args of [["help"], ["--help"], []]) {
      const run = await runInProcess(args, {});
      expect(run.status).toBe(0);
      for (const usage of [SERVE_USAGE, SEARCH_USAGE, BUSY_USAGE, SLOTS_USAGE, CHECK_USAGE]) expect(run.stdout).toContain(usage);
    }
  });

  it("prints only a command's usage for CMD --help", async () => {
    const run = await runInProcess(["search", "--help"], {});
    expect(run).toEqual({ status: 0, stdout: `${SEARCH_USAGE}\n`, stderr: "" });
  });

  it("exits 2 on a usage mistake with that command's usage only", async () => {
    const run = await runInProcess(["check"], {});
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`calq: calq check takes one file\n${CHECK_USAGE}\n`);
  });

  it("exits 2 on an unknown flag, naming it", async () => {
    const run = await runInProcess(["serve", "--data", "data", "--prot", "1"], {});
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^calq: .*--prot/);
    expect(run.stderr).toContain(SERVE_USAGE);
  });

  it("stops calq serve at a typo in calq.yaml, naming the key, without the usage", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-typo-"));
    try {
      writeFileSync(join(dir, "calq.yaml"), "calendars:\n  - id: team\n    source: team.ics\n    readers: []\n    refesh: 5m\n");
      const run = await runInProcess(["serve", "--data", dir, "--port", "0"], {});
      expect(run).toEqual({ status: 2, stdout: "", stderr: `calq: ${join(dir, "calq.yaml")}: calendars[0].refesh: unknown key\n` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads CALQ_* variables from the environment it is given, not the process's", async () => {
    const run = await runInProcess(["serve", "--data", "data", "--print-config"], { CALQ_PORT: "not-a-port" });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe("calq: CALQ_PORT: expected a port number (0 picks a free one)\n");
  });
});

/**
 * `calq serve` settings as an operator meets them: --print-config shows the
 * merge of calq.yaml, CALQ_* variables and flags with secrets redacted, and
 * plaintext on a non-loopback address is refused unless asked for.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { ics } from "../support/feeds.js";

const CALQ = join(import.meta.dirname, "../../bin/calq.mjs");

function runCalq(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [CALQ, ...args], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 120_000 });
}

describe("calq serve --print-config", () => {
  it("shows calq.yaml overridden by CALQ_* overridden by flags, with tokens redacted", () => {
    const run = runCalq(["serve", "--data", "data", "--print-config", "--log-level", "debug"], {
      CALQ_PORT: "7001",
      CALQ_LOG_LEVEL: "warn",
      CALQ_ADMIN_PORT: "9464",
    });
    expect(run.status).toBe(0);
    const shown = YAML.parse(run.stdout);
    expect(shown.server).toMatchObject({ host: "127.0.0.1", port: 7001, log_level: "debug" });
    expect(shown.admin).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(shown.calendars.map((calendar: { id: string }) => calendar.id)).toEqual(["work", "new-york", "binh-private"]);
    expect(shown.principals[0].tokens).toEqual(["[redacted]"]);
    // The demo tokens' digests, as data/calq.yaml holds them, must not be printed.
    expect(run.stdout).not.toMatch(/[0-9a-f]{64}/);
  });

  it("redacts the development token of a folder without calq.yaml", () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-print-"));
    try {
      writeFileSync(join(dir, "team.ics"), ics());
      const run = runCalq(["serve", "--data", dir, "--print-config", "--port", "7002"], {
        CALQ_DEV_TOKEN: "dev-secret",
        CALQ_PORT: "7001",
      });
      expect(run.status).toBe(0);
      const shown = YAML.parse(run.stdout);
      expect(shown.server.port).toBe(7002);
      expect(shown.principals).toEqual([{ id: "dev", primary: "team", tokens: ["[redacted]"] }]);
      expect(run.stdout).not.toMatch(/[0-9a-f]{64}/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("plaintext beyond loopback", () => {
  it("is refused without --allow-plaintext-non-loopback, with a message saying what to do", () => {
    const run = runCalq(["serve", "--data", "data", "--host", "0.0.0.0", "--port", "0"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("refusing plaintext on 0.0.0.0");
    expect(run.stderr).toContain("--allow-plaintext-non-loopback");
  });
});

describe("a typo in calq.yaml", () => {
  it("stops the start with status 2 and names the key, instead of being ignored", () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-typo-"));
    try {
      writeFileSync(join(dir, "team.ics"), ics());
      writeFileSync(join(dir, "calq.yaml"), "calendars:\n  - id: team\n    source: team.ics\n    timzone: Asia/Ho_Chi_Minh\n");
      const run = runCalq(["serve", "--data", dir, "--port", "0"]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain("calendars[0].timzone: unknown key");
      expect(run.stdout).not.toContain("listening");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

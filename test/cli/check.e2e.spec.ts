/**
 * `calq check` as an operator runs it, as a process: its flags reach the
 * check (--config's feed limits), and its report, however long, reaches a
 * pipe whole before the process exits. What it reports for each kind of
 * feed is tested in process (check.spec.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

function check(...args: string[]) {
  const run = spawnSync(process.execPath, ["bin/calq.mjs", "check", ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

describe("calq check, spawned", () => {
  it("prints the whole report into a pipe, however long", () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-check-"));
    const file = join(dir, "big.ics");
    // 3,000 events that end before they start: a report of about 400 KiB.
    const events = Array.from({ length: 3000 }, (_, i) =>
      ["BEGIN:VEVENT", `UID:reversed-${i}@calq.test`, "DTSTART:20261002T100000Z", "DTEND:20261002T090000Z", "END:VEVENT"].join("\r\n"),
    );
    writeFileSync(file, ["BEGIN:VCALENDAR", "VERSION:2.0", "X-WR-TIMEZONE:UTC", ...events, "END:VCALENDAR", ""].join("\r\n"));
    try {
      const run = spawnSync("sh", ["-c", `"${process.execPath}" bin/calq.mjs check "${file}" | cat`], {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(run.stdout.length).toBeGreaterThan(128 * 1024);
      expect(run.stdout.match(/ error END_BEFORE_START /g)).toHaveLength(3000);
      expect(run.stdout).toContain("UID reversed-2999@calq.test");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads with the feed limits of --config's calq.yaml", () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-check-"));
    writeFileSync(join(dir, "calq.yaml"), "calendars: []\nfeeds:\n  max_components: 2\n");
    try {
      const { status, out } = check("data/work.ics", "--config", join(dir, "calq.yaml"));
      expect(status).toBe(1);
      expect(out).toMatch(/^work\.ics: 2 events/);
      expect(out).toContain("FEED_COMPONENTS_CAPPED");
      writeFileSync(join(dir, "calq.yaml"), "calendars: []\nfeeds:\n  max_bytes: 100\n");
      expect(check("data/work.ics", "--config", join(dir, "calq.yaml"))).toMatchObject({
        status: 2,
        out: expect.stringContaining("unreadable (too_large)"),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

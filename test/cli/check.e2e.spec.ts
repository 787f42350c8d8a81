/**
 * `calq check` as an operator runs it, before adding a feed: a real process
 * on real files, judged by its output and exit status (0: nothing left out,
 * 1: something left out, 2: refused).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

function check(...args: string[]) {
  const run = spawnSync(process.execPath, ["bin/calq.mjs", "check", ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

describe("calq check", () => {
  it("exits 0 on a clean feed and says which zone it chose and why", () => {
    const { status, out } = check("data/work.ics");
    expect(status, out).toBe(0);
    expect(out).toMatch(/^work\.ics: 8 events, \d+ occurrences indexed from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d, 1 recurring series/);
    expect(out).toContain("calendar zone: Asia/Ho_Chi_Minh (from the feed's X-WR-TIMEZONE)");
    expect(out).toContain("diagnostics: none");
  });

  it("takes --timezone as calq.yaml's timezone would: it overrides X-WR-TIMEZONE", () => {
    const { status, out } = check("data/work.ics", "--timezone", "Europe/Berlin");
    expect(status).toBe(0);
    expect(out).toContain("calendar zone: Europe/Berlin (given by --timezone");
  });

  it("exits 1 when something is left out, listing each diagnostic with its severity, code, line and UID", () => {
    const { status, out } = check("test/fixtures/bad-input/end-before-start.ics");
    expect(status).toBe(1);
    expect(out).toContain("diagnostics: 1 error (something left out), 0 warnings");
    expect(out).toMatch(/ {2}error END_BEFORE_START \(line \d+, UID [^)]+\): /);
  });

  it("exits 0 when the only diagnostics are warnings: the feed names no zone and UTC was assumed", () => {
    const { status, out } = check("test/fixtures/producers/outlook-exchange.ics");
    expect(status).toBe(0);
    expect(out).toContain("calendar zone: UTC (UTC by default");
    expect(out).toContain("diagnostics: 0 errors (something left out), 1 warning (read by a stated rule)");
    expect(out).toContain("  warning NO_CALENDAR_ZONE: ");
  });

  it("reads a 9-line feed with FREQ=MINUTELY;BYSETPOS=53 with its rule refused from its shape, never walked (that took 72 s of CPU)", () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-check-"));
    const file = join(dir, "setpos.ics");
    const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calq//test//EN", "BEGIN:VEVENT", "UID:setpos@calq.test"];
    writeFileSync(
      file,
      [...lines, "DTSTART:20260101T090000Z", "RRULE:FREQ=MINUTELY;BYSETPOS=53", "END:VEVENT", "END:VCALENDAR", ""].join("\r\n"),
    );
    try {
      const { status, out } = check(file, "--timezone", "UTC");
      // A rule that never matches leaves nothing out (the event keeps its DTSTART): a warning, exit 0.
      expect(status).toBe(0);
      // The reason names the period's size: the rule was refused before rrule was asked for a date (bench/bounds.ts times it).
      expect(out).toMatch(
        / {2}warning RRULE_NEVER_MATCHES \(line 4, UID setpos@calq\.test\): RRULE BYSETPOS asks for position 53 but each period of the rule holds at most 1 date/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

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

  it("exits 0 on bytes that are not UTF-8 (a warning), naming the line, as a reload would report them", () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-check-"));
    const file = join(dir, "latin1.ics");
    const text = readFileSync(join(ROOT, "data/work.ics"), "utf8").replace("SUMMARY:", "SUMMARY:Café ");
    writeFileSync(file, Buffer.from(text, "latin1"));
    try {
      const { status, out } = check(file);
      expect(status).toBe(0);
      const line = text.split("\n").findIndex((row) => row.includes("Café")) + 1;
      expect(out).toContain(`warning INVALID_UTF8 (line ${line}): `);
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

  it.each([
    ["HTML instead of ICS", "test/fixtures/bad-input/html-page.ics", "unreadable (not_icalendar)"],
    ["a cut-off file", "test/fixtures/bad-input/truncated.ics", "unreadable (truncated)"],
    ["a missing file", "test/fixtures/no-such-file.ics", "unreadable (unreachable)"],
  ])("exits 2 on %s, as calq would refuse it", (_case, file, says) => {
    const { status, out } = check(file);
    expect(status).toBe(2);
    expect(out).toContain(says);
  });

  it("exits 2 with the usage on a bad zone or no file", () => {
    expect(check("data/work.ics", "--timezone", "EST")).toMatchObject({ status: 2 });
    const none = check();
    expect(none.status).toBe(2);
    expect(none.err).toContain("usage: calq check FILE.ics");
  });
});

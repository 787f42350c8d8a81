/**
 * What `calq check` reports and the status it exits with (0: nothing left
 * out, 1: something left out, 2: refused), in process: checkFeed is the
 * command but for printing its report and exiting with its status, so each
 * case costs no process. check.e2e.spec.ts runs the command as a process
 * (its flags, and a long report into a pipe); smoke.e2e.spec.ts shows the
 * compiled command exits 0 on a clean feed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkFeed } from "../../src/cli/check-command.js";
import { runInProcess } from "../support/in-process.js";

const ROOT = join(import.meta.dirname, "../..");

/** `calq check FILE [--timezone ZONE]`: its exit status and what it prints. */
async function check(file: string, timezone?: "--timezone", zone?: string) {
  const { exitCode, report } = await checkFeed(file, timezone === undefined ? undefined : zone);
  return { status: exitCode, out: `${report}\n` };
}

describe("calq check", () => {
  it("exits 0 on a clean feed and says which zone it chose and why", async () => {
    const { status, out } = await check("data/work.ics");
    expect(status, out).toBe(0);
    expect(out).toMatch(/^work\.ics: 8 events, \d+ occurrences indexed from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d, 1 recurring series/);
    expect(out).toContain("calendar zone: Asia/Ho_Chi_Minh (from the feed's X-WR-TIMEZONE)");
    expect(out).toContain("diagnostics: none");
  });

  it("takes --timezone as calq.yaml's timezone would: it overrides X-WR-TIMEZONE", async () => {
    const { status, out } = await check("data/work.ics", "--timezone", "Europe/Berlin");
    expect(status).toBe(0);
    expect(out).toContain("calendar zone: Europe/Berlin (given by --timezone");
  });

  it("exits 1 when something is left out, listing each diagnostic with its severity, code, line and UID", async () => {
    const { status, out } = await check("test/fixtures/bad-input/end-before-start.ics");
    expect(status).toBe(1);
    expect(out).toContain("diagnostics: 1 error (something left out), 0 warnings");
    expect(out).toMatch(/ {2}error END_BEFORE_START \(line \d+, UID [^)]+\): /);
  });

  it("exits 0 when the only diagnostics are warnings: the feed names no zone and UTC was assumed", async () => {
    const { status, out } = await check("test/fixtures/producers/outlook-exchange.ics");
    expect(status).toBe(0);
    expect(out).toContain("calendar zone: UTC (UTC by default");
    expect(out).toContain("diagnostics: 0 errors (something left out), 1 warning (read by a stated rule)");
    expect(out).toContain("  warning NO_CALENDAR_ZONE: ");
  });

  it("reads a 9-line feed with FREQ=MINUTELY;BYSETPOS=53 with its rule refused from its shape, never walked (that took 72 s of CPU)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-check-"));
    const file = join(dir, "setpos.ics");
    const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calq//test//EN", "BEGIN:VEVENT", "UID:setpos@calq.test"];
    writeFileSync(
      file,
      [...lines, "DTSTART:20260101T090000Z", "RRULE:FREQ=MINUTELY;BYSETPOS=53", "END:VEVENT", "END:VCALENDAR", ""].join("\r\n"),
    );
    try {
      const { status, out } = await check(file, "--timezone", "UTC");
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

  it("exits 0 on bytes that are not UTF-8 (a warning), naming the line, as a reload would report them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-check-"));
    const file = join(dir, "latin1.ics");
    const text = readFileSync(join(ROOT, "data/work.ics"), "utf8").replace("SUMMARY:", "SUMMARY:Café ");
    writeFileSync(file, Buffer.from(text, "latin1"));
    try {
      const { status, out } = await check(file);
      expect(status).toBe(0);
      const line = text.split("\n").findIndex((row) => row.includes("Café")) + 1;
      expect(out).toContain(`warning INVALID_UTF8 (line ${line}): `);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ["HTML instead of ICS", "test/fixtures/bad-input/html-page.ics", "unreadable (not_icalendar)"],
    ["a cut-off file", "test/fixtures/bad-input/truncated.ics", "unreadable (truncated)"],
    ["a missing file", "test/fixtures/no-such-file.ics", "unreadable (unreachable)"],
  ])("exits 2 on %s, as calq would refuse it", async (_case, file, says) => {
    const { status, out } = await check(file);
    expect(status).toBe(2);
    expect(out).toContain(says);
  });

  it("exits 2 with the usage on a bad zone or no file", async () => {
    expect(await check("data/work.ics", "--timezone", "EST")).toMatchObject({ status: 2 });
    const none = await runInProcess(["check"], {});
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("usage: calq check FILE.ics");
  });
});

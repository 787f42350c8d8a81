/**
 * `calq search` as a person runs it, against a real server on a real port:
 * a readable table in the request's zone, JSON on request, cursors followed
 * with --all, and refusals printed with their reason and advice. The command
 * runs in process (the spawned one is smoke-tested in smoke.e2e.spec.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRIDAY_MORNING_FLAGS, killed, startCalqServe } from "../support/calq-process.js";
import { ics, vevent } from "../support/feeds.js";
import { runInProcess } from "../support/in-process.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      work: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent(
          "UID:review",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T083000",
          "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T093000",
          "SUMMARY:Design review",
          "LOCATION:Room 3.2",
        ),
        ...vevent(
          "UID:workshop",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T113000",
          "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T123000",
          "SUMMARY:Workshop",
        ),
        ...vevent("UID:holiday", "DTSTART;VALUE=DATE:20261002", "SUMMARY:Holiday"),
      ),
      team: ics(
        ...vevent(
          "UID:sync",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T083000",
          "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T091500",
          "SUMMARY:Team sync",
        ),
      ),
    },
    config: {
      calendars: [
        { id: "work", source: "work.ics", timezone: "Asia/Ho_Chi_Minh", readers: ["an"] },
        { id: "team", source: "team.ics", timezone: "Asia/Ho_Chi_Minh", readers: ["an"] },
      ],
      principals: [{ id: "an", primary: "work", tokens: ["token-an"] }],
    },
  });
});

afterAll(() => served.close());

/** Runs `calq search ARGS` in process, with the server's address and An's token in the environment. */
function calqSearch(args: string[], env: Record<string, string> = {}) {
  return runInProcess(["search", ...args], { CALQ_ADDRESS: served.address, CALQ_TOKEN: "token-an", ...env });
}

describe("calq search", () => {
  it("prints a table in the request's zone: local times, all-day dates, the window relation", async () => {
    const run = await calqSearch([...FRIDAY_MORNING_FLAGS, "--mode", "overlap"]);
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("work: 3 event(s), overlap, window in Asia/Ho_Chi_Minh");
    expect(lines[1]).toMatch(/^START\s+END \(excl\.\)\s+RELATION\s+EVENT$/);
    expect(lines[2]).toMatch(/^2026-10-02\s+2026-10-03\s+spans window\s+Holiday \[all day\]$/);
    expect(lines[3]).toMatch(/^2026-10-02 08:30 \+07:00\s+2026-10-02 09:30 \+07:00\s+crosses start\s+Design review @ Room 3.2$/);
    expect(lines[4]).toMatch(/^2026-10-02 11:30 \+07:00\s+2026-10-02 12:30 \+07:00\s+crosses end\s+Workshop$/);
    expect(lines).toHaveLength(5);
  });

  it("searches several calendars merged in start order when --calendar is given more than once, naming each event's calendar", async () => {
    const flags = FRIDAY_MORNING_FLAGS.filter((_, i, all) => all[i] !== "--calendar" && all[i - 1] !== "--calendar");
    const run = await calqSearch([...flags, "--calendar", "primary", "--calendar", "team", "--mode", "overlap"]);
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("team, work: 4 event(s), overlap, window in Asia/Ho_Chi_Minh");
    expect(lines[1]).toMatch(/^START\s+END \(excl\.\)\s+RELATION\s+CALENDAR\s+EVENT$/);
    expect(lines.slice(2).map((line) => line.replace(/\s{2,}/g, " | "))).toEqual([
      "2026-10-02 | 2026-10-03 | spans window | work | Holiday [all day]",
      "2026-10-02 08:30 +07:00 | 2026-10-02 09:15 +07:00 | crosses start | team | Team sync",
      "2026-10-02 08:30 +07:00 | 2026-10-02 09:30 +07:00 | crosses start | work | Design review @ Room 3.2",
      "2026-10-02 11:30 +07:00 | 2026-10-02 12:30 +07:00 | crosses end | work | Workshop",
    ]);
    const json = await calqSearch([...flags, "--calendar", "work", "--calendar", "team", "--mode", "overlap", "--json"]);
    expect(JSON.parse(json.stdout).query.calendarIds).toEqual(["team", "work"]);
  });

  it("keeps only the events holding every word of --text, whatever their case", async () => {
    const run = await calqSearch([...FRIDAY_MORNING_FLAGS, "--mode", "overlap", "--text", "ROOM design"]);
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("work: 1 event(s), overlap, window in Asia/Ho_Chi_Minh");
    expect(lines[2]).toMatch(/Design review @ Room 3.2$/);
    expect(lines).toHaveLength(3);
  });

  it("shows the same events in another zone's local times", async () => {
    const run = await calqSearch([
      "--calendar",
      "work",
      "--start",
      "2026-10-02T03:00",
      "--end-exclusive",
      "2026-10-02T04:00",
      "--timezone",
      "Europe/Paris",
      "--mode",
      "start-within",
    ]);
    expect(run.stdout).toMatch(/2026-10-02 03:30 \+02:00\s+2026-10-02 04:30 \+02:00\s+crosses end\s+Design review/);
  });

  it("pages: a cursor hint without --all, every page with it", async () => {
    const args = [...FRIDAY_MORNING_FLAGS, "--mode", "overlap", "--limit", "1"];
    const first = await calqSearch(args);
    expect(first.stdout).toMatch(/^more: repeat with --all, or with --cursor \S+$/m);
    const all = await calqSearch([...args, "--all"]);
    expect(all.stdout).toContain("work: 3 event(s)");
    expect(all.stdout).not.toContain("more:");
    const cursor = /--cursor (\S+)/.exec(first.stdout)![1];
    const rest = await calqSearch([...args, "--cursor", cursor, "--all"]);
    expect(rest.stdout).toContain("work: 2 event(s)");
  });

  it("prints the service's JSON with --json, one line per page", async () => {
    const run = await calqSearch([...FRIDAY_MORNING_FLAGS, "--mode", "start-within", "--json"]);
    const pages = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(pages).toHaveLength(1);
    expect(pages[0].events.map((event: { summary: string }) => event.summary)).toEqual(["Workshop"]);
    expect(pages[0].query.matchMode).toBe("MATCH_MODE_START_WITHIN");
  });

  it("prints a refusal's reason, advice and facts, and exits 1", async () => {
    const run = await calqSearch([
      "--calendar",
      "work",
      "--start",
      "2026-11-01T01:30",
      "--end-exclusive",
      "2026-11-01T03:00",
      "--timezone",
      "America/New_York",
      "--mode",
      "overlap",
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^calq: AMBIGUOUS_TIMEZONE: .*happens twice/);
    expect(run.stderr).toContain("earlier: 2026-11-01T01:30:00-04:00");
    expect(run.stdout).toBe("");
    const unauthenticated = await calqSearch([...FRIDAY_MORNING_FLAGS, "--mode", "overlap"], { CALQ_TOKEN: "wrong" });
    expect(unauthenticated.status).toBe(1);
    expect(unauthenticated.stderr).toMatch(/^calq: UNAUTHENTICATED: .*fix the credentials/);
  });

  it("exits 2 with the search usage alone on a missing or unknown mode", async () => {
    const run = await calqSearch([...FRIDAY_MORNING_FLAGS, "--mode", "during"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^calq: --mode must be overlap or start-within, not "during"\nusage: calq search /);
    expect(run.stderr).not.toContain("usage: calq serve");
    expect(run.stderr).not.toContain("usage: calq check");
    const unknownFlag = await calqSearch([...FRIDAY_MORNING_FLAGS, "--mode", "overlap", "--window", "x"]);
    expect(unknownFlag.status).toBe(2);
    expect(unknownFlag.stderr).toMatch(/^calq: .*--window.*\nusage: calq search /);
    expect(unknownFlag.stderr).not.toContain("usage: calq serve");
  });
});

describe("calq search across the New York fall-back, against `calq serve --data data`", () => {
  it("prints each time with its offset, so the 90-minute maintenance does not read as 30 minutes", async () => {
    const { child, address } = await startCalqServe(["--data", "data", "--port", "0"]);
    try {
      const run = await calqSearch(
        [
          "--calendar",
          "new-york",
          "--start",
          "2026-11-01T00:00",
          "--end-exclusive",
          "2026-11-01T04:00",
          "--timezone",
          "America/New_York",
          "--mode",
          "overlap",
        ],
        { CALQ_ADDRESS: address, CALQ_TOKEN: "demo-an-token" },
      );
      expect(run.status).toBe(0);
      const lines = run.stdout.trimEnd().split("\n");
      expect(lines[0]).toBe("new-york: 2 event(s), overlap, window in America/New_York");
      // 01:15 EDT to 01:45 EST: the second 01:xx comes after the clocks went back.
      expect(lines[2]).toMatch(/^2026-11-01 01:15 -04:00\s+2026-11-01 01:45 -05:00\s+inside\s+Maintenance across the fall-back fold/);
      expect(lines[3]).toMatch(/^2026-11-01 02:30 -05:00\s+2026-11-01 03:00 -05:00\s+inside\s+Nightly batch/);
      expect(lines).toHaveLength(4);
    } finally {
      await killed(child);
    }
  });
});

/**
 * `calq serve` as a user runs it: a real process, a real port, the demo data.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MatchMode, WindowRelation } from "../../gen/calq/v1/calendar_service_pb.js";
import { CALQ, startCalqServe } from "../support/calq-process.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";

const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGTERM");
});

/** Starts `calq serve ARGS` and resolves with the address it prints. */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { child, address } = await startCalqServe(args, env);
  running.push(child);
  return address;
}

function runCalq(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [CALQ, ...args], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 120_000 });
}

describe("calq serve", () => {
  it("serves the demo data: the README's Friday-morning search finds the 08:30-09:30 review", async () => {
    const address = await serve(["--data", "data", "--port", "0"]);
    const client = new CalqGrpcClient(address, "demo-an-token");
    try {
      const response = await client.searchEvents({
        calendarId: "primary",
        start: "2026-10-02T09:00:00+07:00",
        endExclusive: "2026-10-02T12:00:00+07:00",
        timezone: "Asia/Ho_Chi_Minh",
        matchMode: MatchMode.OVERLAP,
      });
      const review = response.events.find((event) => event.summary === "Design review");
      expect(review?.startLocal).toBe("2026-10-02T08:30:00+07:00");
      expect(review?.windowRelation).toBe(WindowRelation.CROSSES_START);
    } finally {
      client.close();
    }
  });

  it("serves a folder of .ics files without calq.yaml to the dev principal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-cli-"));
    try {
      writeFileSync(
        join(dir, "team.ics"),
        ics(...vevent("UID:t", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", "SUMMARY:Team sync")),
      );
      const address = await serve(["--data", dir, "--port", "0"], { CALQ_DEV_TOKEN: "dev-secret" });
      const client = new CalqGrpcClient(address, "dev-secret");
      try {
        const calendars = await client.listCalendars();
        expect(calendars.calendars.map((calendar) => [calendar.id, calendar.primary])).toEqual([["team", true]]);
        const response = await client.searchEvents({
          calendarId: "team",
          start: "2026-10-02",
          endExclusive: "2026-10-03",
          timezone: "UTC",
          matchMode: MatchMode.START_WITHIN,
        });
        expect(response.events.map((event) => event.summary)).toEqual(["Team sync"]);
      } finally {
        client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits non-zero with a clear message on a bad config", () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-cli-"));
    try {
      writeFileSync(join(dir, "calq.yaml"), "calendars:\n  - id: work\n    source: work.ics\n    timezone: Mars/Olympus\n");
      const result = runCalq(["serve", "--data", dir, "--port", "0"]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('calendars[0] (work).timezone: "Mars/Olympus" is not an IANA zone name');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("asks for a dev token when the folder has no calq.yaml", () => {
    const result = runCalq(["serve", "--data", "test/fixtures", "--port", "0"], { CALQ_DEV_TOKEN: "" });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--dev-token");
  });

  it("explains its own usage on an unknown flag, not the other commands'", () => {
    const result = runCalq(["serve", "--dta", "data"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("usage: calq serve");
    expect(result.stderr).not.toContain("usage: calq search");
    expect(result.stderr).not.toContain("usage: calq check");
  });

  it.each(["serve", "search", "check"])("prints the usage of %s for --help, and exits 0", (command) => {
    const result = runCalq([command, "--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`usage: calq ${command}`);
    expect(result.stderr).toBe("");
  });

  it("names the commands, not every option, after an unknown command", () => {
    const result = runCalq(["serv", "--data", "data"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('calq: unknown command "serv"');
    expect(result.stderr).toContain("usage: calq serve|search|busy|slots|meet|check");
    expect(result.stderr).not.toContain("--data DIR");
  });
});

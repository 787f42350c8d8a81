/**
 * `calq busy` and `calq slots` as a person runs them, against a real server
 * on a real port: tables in the request's zone across New York's fall-back,
 * JSON on request, the tentative policy and working hours sent as typed,
 * and refusals and usage mistakes as `calq search` prints them. The
 * commands run in process (the spawned ones are smoke-tested in
 * smoke.e2e.spec.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUSY_USAGE, SLOTS_USAGE } from "../../src/cli/usage.js";
import { feed } from "../support/feeds.js";
import { runInProcess } from "../support/in-process.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;

const newYork = (wall: string) => `DTSTART;TZID=America/New_York:${wall}`;

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      team: feed(
        ["X-WR-TIMEZONE:America/New_York"],
        [newYork("20261029T090000"), "DURATION:PT1H", "SUMMARY:Planning"],
        // 01:15 EDT to 01:45 EST: 90 minutes, across the repeated hour.
        [newYork("20261101T011500"), "DTEND:20261101T064500Z", "SUMMARY:Maintenance"],
        [newYork("20261102T090000"), "DURATION:PT30M", "STATUS:TENTATIVE", "SUMMARY:Maybe a 1:1"],
        [newYork("20261102T100000"), "DURATION:PT1H", "SUMMARY:Review"],
      ),
      ana: feed(["X-WR-TIMEZONE:America/New_York"], [newYork("20261102T093000"), "DURATION:PT30M", "SUMMARY:Dentist"]),
    },
    config: {
      calendars: [
        { id: "team", source: "team.ics", readers: ["an"] },
        { id: "ana", source: "ana.ics", readers: ["an"] },
      ],
      principals: [{ id: "an", primary: "team", tokens: ["token-an"] }],
    },
  });
});

afterAll(() => served.close());

/** Runs `calq COMMAND ARGS` in process, with the server's address and An's token in the environment. */
function calq(command: "busy" | "slots", args: string[]) {
  return runInProcess([command, ...args], { CALQ_ADDRESS: served.address, CALQ_TOKEN: "token-an" });
}

const FALL_BACK_WEEK = ["--start", "2026-10-29", "--end-exclusive", "2026-11-03", "--timezone", "America/New_York"];
const MONDAY = ["--start", "2026-11-02", "--end-exclusive", "2026-11-03", "--timezone", "America/New_York"];

describe("calq busy", () => {
  it("prints each calendar's busy time and all of them combined, with the fall-back's offsets", async () => {
    const run = await calq("busy", ["--calendar", "primary", "--calendar", "ana", ...FALL_BACK_WEEK]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout.trimEnd().split("\n")).toEqual([
      "busy time of 2 calendar(s), times in America/New_York, ends excluded",
      "",
      "team: 4 busy interval(s); time not listed is free",
      "DAY             START         END (excl.)   KIND",
      "Thu 2026-10-29  09:00 -04:00  10:00         busy",
      "Sun 2026-11-01  01:15         01:45 -05:00  busy",
      "Mon 2026-11-02  09:00 -05:00  09:30         tentative",
      "                10:00         11:00         busy",
      "",
      "ana: 1 busy interval(s); time not listed is free",
      "DAY             START         END (excl.)  KIND",
      "Mon 2026-11-02  09:30 -05:00  10:00        busy",
      "",
      // The dentist and the review touch: one busy interval from 09:30 to 11:00.
      "all calendars combined: 4 busy interval(s); time not listed is free",
      "DAY             START         END (excl.)   KIND",
      "Thu 2026-10-29  09:00 -04:00  10:00         busy",
      "Sun 2026-11-01  01:15         01:45 -05:00  busy",
      "Mon 2026-11-02  09:00 -05:00  09:30         tentative",
      "                09:30         11:00         busy",
    ]);
  });

  it("prints the service's JSON with --json", async () => {
    const run = await calq("busy", ["--calendar", "ana", ...MONDAY, "--json"]);
    expect(run.status).toBe(0);
    const response = JSON.parse(run.stdout);
    expect(response.calendars.map((calendar: { calendarId: string }) => calendar.calendarId)).toEqual(["ana"]);
    expect(response.combined).toEqual([
      {
        startTime: "2026-11-02T14:30:00Z",
        endTime: "2026-11-02T15:00:00Z",
        kind: "BUSY_KIND_BUSY",
        startLocal: "2026-11-02T09:30:00-05:00",
        endLocal: "2026-11-02T10:00:00-05:00",
        startLocalDate: "2026-11-02",
        startLocalWeekday: "Monday",
        endLocalDate: "2026-11-02",
        endLocalWeekday: "Monday",
      },
    ]);
  });

  it("prints a refusal's reason and exits 1: a calendar the caller may not read refuses the whole request", async () => {
    const run = await calq("busy", ["--calendar", "team", "--calendar", "someone-else", ...MONDAY]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^calq: CALENDAR_NOT_ACCESSIBLE: /);
    expect(run.stdout).toBe("");
  });

  it("exits 2 with the busy usage alone when no calendar is named", async () => {
    const run = await calq("busy", MONDAY);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`calq: --calendar is required (repeat it for several calendars)\n${BUSY_USAGE}\n`);
  });
});

describe("calq slots", () => {
  const workingMonday = ["--calendar", "team", "--calendar", "ana", ...MONDAY, "--duration", "30", "--working-hours", "09:00-17:00"];

  it("counts tentative time as taken or free as --tentative says", async () => {
    const taken = await calq("slots", [...workingMonday, "--tentative", "busy", "--limit", "2"]);
    expect(taken.status).toBe(0);
    expect(taken.stdout.trimEnd().split("\n")).toEqual([
      "2 free slot(s), times in America/New_York, ends excluded",
      "DAY             START         END (excl.)",
      "Mon 2026-11-02  11:00 -05:00  11:30",
      "                11:30         12:00",
      "the first 2 only: later slots may be free too; raise --limit (up to 50) or start the window later",
    ]);
    const free = await calq("slots", [...workingMonday, "--tentative", "free", "--limit", "2"]);
    expect(free.stdout.trimEnd().split("\n").slice(2)).toEqual([
      "Mon 2026-11-02  09:00 -05:00  09:30",
      "                11:00         11:30",
      "the first 2 only: later slots may be free too; raise --limit (up to 50) or start the window later",
    ]);
  });

  it("sends --working-days and --step as typed: hourly slots on Sundays only, around the maintenance in the repeated hour", async () => {
    const run = await calq("slots", [
      "--calendar",
      "team",
      ...FALL_BACK_WEEK,
      "--duration",
      "60",
      "--step",
      "60",
      "--working-hours",
      "00:00-24:00",
      "--working-days",
      "7",
      "--tentative",
      "busy",
      "--limit",
      "2",
    ]);
    expect(run.status).toBe(0);
    // Both slots starting at 01:00 (EDT, then EST) overlap the maintenance, 01:15 EDT to 01:45 EST.
    expect(run.stdout.trimEnd().split("\n").slice(2)).toEqual([
      "Sun 2026-11-01  00:00 -04:00  01:00",
      "                02:00 -05:00  03:00",
      "the first 2 only: later slots may be free too; raise --limit (up to 50) or start the window later",
    ]);
  });

  it("prints the service's JSON with --json", async () => {
    const run = await calq("slots", [...workingMonday, "--tentative", "busy", "--limit", "1", "--json"]);
    expect(JSON.parse(run.stdout)).toEqual({
      slots: [
        {
          startTime: "2026-11-02T16:00:00Z",
          endTime: "2026-11-02T16:30:00Z",
          startLocal: "2026-11-02T11:00:00-05:00",
          endLocal: "2026-11-02T11:30:00-05:00",
          startLocalDate: "2026-11-02",
          startLocalWeekday: "Monday",
          endLocalDate: "2026-11-02",
          endLocalWeekday: "Monday",
        },
      ],
      timezone: "America/New_York",
      complete: true,
    });
  });

  it("exits 2 with the slots usage alone when --tentative is missing or misspelled, or a flag is malformed", async () => {
    const cases: [string[], string][] = [
      [workingMonday, "--tentative is required: busy or free"],
      [[...workingMonday, "--tentative", "maybe"], '--tentative must be busy or free, not "maybe"'],
      [
        [...workingMonday, "--tentative", "busy", "--working-hours", "9-5"],
        '--working-hours must be local FROM-TO in 24-hour time, as 09:00-17:00, not "9-5"',
      ],
      [
        [...workingMonday, "--tentative", "busy", "--working-days", "mon-fri"],
        '--working-days takes weekdays 1 (Monday) to 7 (Sunday) as 1-5 or 1,3,5, not "mon-fri"',
      ],
      [[...workingMonday, "--tentative", "busy", "--working-days", "1-5,3"], "--working-days names day 3 twice"],
      [[...workingMonday, "--tentative", "busy", "--duration", "half an hour"], "--duration half an hour is not a whole number"],
      [[...workingMonday, "--tentative", "busy", "--duration", "1e1"], "--duration 1e1 is not a whole number"],
      [[...workingMonday, "--tentative", "busy", "--duration", "0x1e"], "--duration 0x1e is not a whole number"],
      [[...workingMonday, "--tentative", "busy", "--duration", "3000000000"], "--duration 3000000000 is out of range"],
      [
        ["--calendar", "team", ...MONDAY, "--duration", "30", "--tentative", "busy", "--working-days", "1-5"],
        "--working-days goes with --working-hours",
      ],
    ];
    for (const [args, message] of cases) {
      const run = await calq("slots", args);
      expect(run.status).toBe(2);
      expect(run.stderr).toBe(`calq: ${message}\n${SLOTS_USAGE}\n`);
    }
  });

  it("prints the service's refusal of values it does not allow, and exits 1", async () => {
    const run = await calq("slots", [...workingMonday, "--tentative", "busy", "--duration", "3"]);
    expect(run.status).toBe(1);
    // The service's words, with the bounds the contract declares and the value sent.
    expect(run.stderr).toMatch(/^calq: INVALID_SLOT_QUERY: duration_minutes\b.*\b5 to 1440\b/);
    expect(run.stderr).toMatch(/\b3\b/);
  });
});

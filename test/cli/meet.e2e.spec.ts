/**
 * `calq meet` as a person runs it, against a real server on a real port:
 * the attendees and where their working hours come from, the meeting times
 * best first in the table style of `calq slots`, why nothing fits with the
 * alternatives, JSON on request, and refusals and usage mistakes as
 * `calq slots` prints them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MEET_USAGE } from "../../src/cli/usage.js";
import { feed } from "../support/feeds.js";
import { runInProcess } from "../support/in-process.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;

const hcm = (wall: string) => `DTSTART;TZID=Asia/Ho_Chi_Minh:${wall}`;

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      an: feed(["X-WR-TIMEZONE:Asia/Ho_Chi_Minh"], [hcm("20261006T140000"), "DURATION:PT1H", "SUMMARY:Design review"]),
      binh: feed(["X-WR-TIMEZONE:Europe/Berlin"], ["DTSTART;TZID=Europe/Berlin:20261006T110000", "DURATION:PT30M", "SUMMARY:Call"]),
      dung: feed(["X-WR-TIMEZONE:Asia/Ho_Chi_Minh"], [hcm("20261006T150000"), "DURATION:PT30M", "SUMMARY:Gym"]),
    },
    config: {
      calendars: [
        { id: "an", source: "an.ics", readers: ["an"] },
        { id: "binh", source: "binh.ics", readers: ["binh"], free_busy_readers: ["an"] },
        { id: "dung", source: "dung.ics", readers: ["an"] },
      ],
      principals: [
        {
          id: "an",
          primary: "an",
          timezone: "Asia/Ho_Chi_Minh",
          tokens: ["token-an"],
          working_hours: { start: "09:00", end_exclusive: "17:00" },
        },
        { id: "binh", primary: "binh", timezone: "Europe/Berlin", working_hours: { start: "09:00", end_exclusive: "17:00" } },
      ],
    },
  });
});

afterAll(() => served.close());

function calq(args: string[]) {
  return runInProcess(["meet", ...args], { CALQ_ADDRESS: served.address, CALQ_TOKEN: "token-an" });
}

const TUESDAY = ["--start", "2026-10-06", "--end-exclusive", "2026-10-07", "--timezone", "Asia/Ho_Chi_Minh"];

describe("calq meet", () => {
  it("prints the attendees, then the meeting times best first, with the optional ones free and who is not free", async () => {
    const run = await calq([
      "--required",
      "primary",
      "--required",
      "binh",
      "--optional",
      "dung",
      ...TUESDAY,
      "--duration",
      "30",
      "--tentative",
      "busy",
    ]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout.trimEnd().split("\n")).toEqual([
      "ATTENDEE  ATTENDANCE  ZONE              WORKING HOURS FROM",
      "an        required    Asia/Ho_Chi_Minh  settings",
      "binh      required    Europe/Berlin     settings",
      "dung      optional    Asia/Ho_Chi_Minh  none",
      "",
      "3 of 3 meeting time(s) that fit, best first, times in Asia/Ho_Chi_Minh, ends excluded",
      "DAY             START         END (excl.)  OPTIONAL FREE  NOT FREE",
      "Tue 2026-10-06  15:30 +07:00  16:00        1/1",
      "                16:30         17:00        1/1",
      // Binh (busy-only to An) is in a call at 16:00; Dung, optional, is at the gym at 15:00.
      "                15:00         15:30        0/1            dung busy",
    ]);
  });

  it("says why nothing fits, with the first fit after the window and the closest time in it", async () => {
    const run = await calq([
      "--required",
      "primary",
      "--required",
      "binh",
      "--start",
      "2026-10-06T14:00",
      "--end-exclusive",
      "2026-10-06T15:00",
      "--timezone",
      "Asia/Ho_Chi_Minh",
      "--duration",
      "30",
      "--tentative",
      "free",
    ]);
    expect(run.status).toBe(0);
    expect(run.stdout.trimEnd().split("\n").slice(4)).toEqual([
      "no meeting time fits: no common free time",
      "",
      "first fit after the window:",
      "DAY             START         END (excl.)  NOT FREE",
      "Tue 2026-10-06  15:00 +07:00  15:30",
      "",
      "closest in the window:",
      "DAY             START         END (excl.)  NOT FREE",
      "Tue 2026-10-06  14:00 +07:00  14:30        an busy",
    ]);
  });

  it("prints the response as JSON with --json", async () => {
    const run = await calq(["--required", "primary", ...TUESDAY, "--duration", "60", "--tentative", "busy", "--limit", "1", "--json"]);
    const response = JSON.parse(run.stdout);
    expect(response.candidates).toHaveLength(1);
    expect(response.candidates[0].startLocal).toBe("2026-10-06T09:00:00+07:00");
    expect(response.candidates[0].startLocalWeekday).toBe("Tuesday");
  });

  it("prints the service's refusal, and refuses usage mistakes before calling it", async () => {
    const refused = await calq(["--required", "primary", ...TUESDAY, "--duration", "2", "--tentative", "busy"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("calq: INVALID_MEETING_QUERY: duration_minutes 2 is out of range");
    const noTentative = await calq(["--required", "primary", ...TUESDAY, "--duration", "30"]);
    expect(noTentative.status).toBe(2);
    expect(noTentative.stderr).toContain("--tentative is required: busy or free");
    const noAttendee = await calq([...TUESDAY, "--duration", "30", "--tentative", "busy"]);
    expect(noAttendee.status).toBe(2);
    expect(noAttendee.stderr).toContain("--required is required");
    expect(MEET_USAGE).toContain("--min-optional PERCENT");
    expect(MEET_USAGE).toContain("0 to 100");
  });
});

/**
 * Times a model cannot misread, over gRPC: every occurrence, busy interval
 * and slot carries the local date and weekday beside its local time; an
 * all-day occurrence its last day, included, and the weekdays of its days;
 * GetCallerContext today, the weeks around it by the caller's week start,
 * and the next change of the caller's UTC offset (a 30-minute one on Lord
 * Howe Island).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMode, TentativePolicy } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;
let client: CalqGrpcClient;
const clock = { now: Date.UTC(2026, 8, 30, 1) }; // Wednesday 2026-09-30, 08:00 in Ho Chi Minh City

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      work: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent("UID:holiday", "DTSTART;VALUE=DATE:20261002", "SUMMARY:National holiday"),
        ...vevent("UID:retreat", "DTSTART;VALUE=DATE:20261002", "DTEND;VALUE=DATE:20261005", "SUMMARY:Retreat", "TRANSP:TRANSPARENT"),
        ...vevent("UID:late", "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T230000", "DURATION:PT2H", "SUMMARY:Late call"),
      ),
    },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an", "nyc", "howe"] }],
      principals: [
        { id: "an", primary: "work", timezone: "Asia/Ho_Chi_Minh", tokens: ["token-an"] },
        { id: "nyc", timezone: "America/New_York", tokens: ["token-nyc"], week_start: "SU" },
        { id: "howe", timezone: "Australia/Lord_Howe", tokens: ["token-howe"] },
        { id: "nowhere", tokens: ["token-nowhere"] },
      ],
    },
    now: () => clock.now,
  });
  client = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  client.close();
  await served.close();
});

describe("local days", () => {
  it("give every occurrence its local dates and weekdays, and an all-day one its last day, included", async () => {
    const response = await client.searchEvents({
      calendarId: "work",
      start: "2026-10-01",
      endExclusive: "2026-10-06",
      timezone: "America/New_York",
      matchMode: MatchMode.OVERLAP,
    });
    const shown = response.events.map((event) => [
      event.summary,
      event.startLocalDate,
      event.startLocalWeekday,
      event.endLocalDate,
      event.endLocalWeekday,
      event.startDate,
      event.startDateWeekday,
      event.lastDate,
      event.lastDateWeekday,
    ]);
    // In New York the holiday starts on Thursday afternoon; its own day is Friday 2026-10-02, in the calendar's zone.
    // (Both all-day events start at one instant: their order is their event_ids'.)
    expect(shown).toEqual([
      ["Retreat", "2026-10-01", "Thursday", "2026-10-04", "Sunday", "2026-10-02", "Friday", "2026-10-04", "Sunday"],
      ["National holiday", "2026-10-01", "Thursday", "2026-10-02", "Friday", "2026-10-02", "Friday", "2026-10-02", "Friday"],
      ["Late call", "2026-10-02", "Friday", "2026-10-02", "Friday", "", "", "", ""],
    ]);
    const local = await client.searchEvents({
      calendarId: "work",
      start: "2026-10-02",
      endExclusive: "2026-10-03",
      timezone: "Asia/Ho_Chi_Minh",
      matchMode: MatchMode.START_WITHIN,
    });
    const late = local.events.find((event) => event.summary === "Late call")!;
    expect([late.startLocalWeekday, late.endLocalDate, late.endLocalWeekday]).toEqual(["Friday", "2026-10-03", "Saturday"]);
  });

  it("give busy intervals and free slots their local dates and weekdays", async () => {
    const busy = await client.queryFreeBusy({
      calendarIds: ["work"],
      start: "2026-10-02T20:00",
      endExclusive: "2026-10-03T12:00",
      timezone: "Asia/Ho_Chi_Minh",
    });
    expect(
      busy.combined.map((interval) => [
        interval.startLocalDate,
        interval.startLocalWeekday,
        interval.endLocalDate,
        interval.endLocalWeekday,
      ]),
    ).toEqual([["2026-10-02", "Friday", "2026-10-03", "Saturday"]]);
    const slots = await client.findFreeSlots({
      calendarIds: ["work"],
      start: "2026-10-05",
      endExclusive: "2026-10-06",
      timezone: "Asia/Ho_Chi_Minh",
      durationMinutes: 60,
      tentative: TentativePolicy.BUSY,
      limit: 1,
    });
    expect([slots.slots[0].startLocalDate, slots.slots[0].startLocalWeekday]).toEqual(["2026-10-05", "Monday"]);
  });

  it("tell the caller today, this week and next by their week start, with no offset change in a zone without DST", async () => {
    const an = await client.getCallerContext();
    expect([an.today, an.todayWeekday, an.weekStartWeekday, an.thisWeekStart, an.nextWeekStart, an.weekAfterNextStart]).toEqual([
      "2026-09-30",
      "Wednesday",
      "Monday",
      "2026-09-28",
      "2026-10-05",
      "2026-10-12",
    ]);
    expect(an.nextOffsetChange).toBeUndefined();
  });

  it("name the next DST change with the wall clock before and after it, Sunday weeks in New York", async () => {
    clock.now = Date.UTC(2026, 9, 30, 13); // Friday 2026-10-30, 09:00 in New York
    try {
      const nyc = await client.getCallerContext("token-nyc");
      expect([nyc.today, nyc.todayWeekday, nyc.weekStartWeekday, nyc.thisWeekStart, nyc.nextWeekStart, nyc.weekAfterNextStart]).toEqual([
        "2026-10-30",
        "Friday",
        "Sunday",
        "2026-10-25",
        "2026-11-01",
        "2026-11-08",
      ]);
      const change = nyc.nextOffsetChange!;
      expect(new Date(Number(change.time!.seconds) * 1000).toISOString()).toBe("2026-11-01T06:00:00.000Z");
      expect([change.offsetBefore, change.offsetAfter, change.localBefore, change.localAfter]).toEqual([
        "-04:00",
        "-05:00",
        "2026-11-01T02:00:00-04:00",
        "2026-11-01T01:00:00-05:00",
      ]);
    } finally {
      clock.now = Date.UTC(2026, 8, 30, 1);
    }
  });

  it("name Lord Howe's 30-minute change, and leave the days empty for a caller with no zone", async () => {
    const howe = await client.getCallerContext("token-howe");
    expect([howe.nextOffsetChange?.offsetBefore, howe.nextOffsetChange?.offsetAfter, howe.nextOffsetChange?.localBefore]).toEqual([
      "+10:30",
      "+11:00",
      "2026-10-04T02:00:00+10:30",
    ]);
    const nowhere = await client.getCallerContext("token-nowhere");
    expect([nowhere.today, nowhere.thisWeekStart, nowhere.weekStartWeekday]).toEqual(["", "", "Monday"]);
    expect(nowhere.nextOffsetChange).toBeUndefined();
  });
});

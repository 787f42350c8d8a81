/**
 * Busy-only access over gRPC (docs/decisions.md, "Busy time only"): a free/busy
 * reader of a calendar sees its busy time through QueryFreeBusy,
 * FindFreeSlots and FindMeetingTimes, and nothing else. SearchEvents,
 * SearchEventsAcrossCalendars and GetEvent refuse it with the very bytes
 * they give for a calendar that does not exist, so whether it exists does
 * not leak; ListCalendars lists it, marked busy-only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMode, TentativePolicy } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, type GrpcFailure } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;
let an: CalqGrpcClient;
let stranger: CalqGrpcClient;

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      "an-work": ics("X-WR-TIMEZONE:Asia/Ho_Chi_Minh"),
      "binh-work": ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent("UID:board", "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T100000", "DURATION:PT1H", "SUMMARY:Board meeting about layoffs"),
      ),
    },
    config: {
      calendars: [
        { id: "an-work", source: "an-work.ics", readers: ["an"] },
        { id: "binh-work", source: "binh-work.ics", readers: ["binh"], free_busy_readers: ["an"] },
      ],
      principals: [
        { id: "an", primary: "an-work", tokens: ["token-an"] },
        { id: "binh", primary: "binh-work", tokens: ["token-binh"] },
        { id: "chi", tokens: ["token-chi"] },
      ],
    },
  });
  an = new CalqGrpcClient(served.address, "token-an");
  stranger = new CalqGrpcClient(served.address, "token-chi");
});

afterAll(async () => {
  an.close();
  stranger.close();
  await served.close();
});

const friday = { start: "2026-10-02", endExclusive: "2026-10-03", timezone: "Asia/Ho_Chi_Minh" };

/** What a refusal shows a caller: status, message and every detail, byte for byte. */
const bytes = (failure: GrpcFailure) => [failure.code, failure.message, failure.detailsBin?.toString("base64")];

describe("a free/busy reader", () => {
  it("sees the calendar's busy time, free slots and meeting times", async () => {
    const busy = await an.queryFreeBusy({ ...friday, calendarIds: ["binh-work"] });
    expect(busy.combined.map((interval) => [interval.startLocal, interval.endLocal])).toEqual([
      ["2026-10-02T10:00:00+07:00", "2026-10-02T11:00:00+07:00"],
    ]);
    const slots = await an.findFreeSlots({
      ...friday,
      calendarIds: ["primary", "binh-work"],
      durationMinutes: 60,
      tentative: TentativePolicy.BUSY,
      workingHoursStart: "09:00",
      workingHoursEnd: "12:00",
    });
    expect(slots.slots.map((slot) => slot.startLocal)).toEqual(["2026-10-02T09:00:00+07:00", "2026-10-02T11:00:00+07:00"]);
    const times = await an.findMeetingTimes({
      ...friday,
      requiredCalendarIds: ["primary", "binh-work"],
      durationMinutes: 60,
      stepMinutes: 60,
      tentative: TentativePolicy.BUSY,
      workingHoursStart: "09:00",
      workingHoursEnd: "12:00",
    });
    expect(times.candidates.map((time) => time.startLocal)).toEqual(["2026-10-02T09:00:00+07:00", "2026-10-02T11:00:00+07:00"]);
  });

  it("is refused the events by every search and GetEvent exactly as for a calendar that does not exist", async () => {
    const search = { ...friday, matchMode: MatchMode.OVERLAP };
    const pairs: [Promise<unknown>, Promise<unknown>][] = [
      [an.searchEvents({ ...search, calendarId: "binh-work" }), an.searchEvents({ ...search, calendarId: "no-such" })],
      [
        an.searchEventsAcrossCalendars({ ...search, calendarIds: ["an-work", "binh-work"] }),
        an.searchEventsAcrossCalendars({ ...search, calendarIds: ["an-work", "no-such"] }),
      ],
      [an.getEvent({ calendarId: "binh-work", eventId: "x" }), an.getEvent({ calendarId: "no-such", eventId: "x" })],
    ];
    for (const [busyOnly, missing] of pairs) {
      const refused = await failureOf(busyOnly);
      expect(refused.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
      expect(bytes(refused)).toEqual(bytes(await failureOf(missing)));
    }
  });

  it("finds the calendar listed, marked busy-only, beside the calendars it reads", async () => {
    const listed = await an.listCalendars();
    expect(listed.calendars.map((calendar) => [calendar.id, calendar.busyOnly])).toEqual([
      ["an-work", false],
      ["binh-work", true],
    ]);
    const owner = await an.listCalendars("token-binh");
    expect(owner.calendars.map((calendar) => [calendar.id, calendar.busyOnly])).toEqual([["binh-work", false]]);
  });
});

describe("a stranger", () => {
  it("sees neither the busy time nor the calendar, as for one that does not exist", async () => {
    const refused = await failureOf(stranger.queryFreeBusy({ ...friday, calendarIds: ["binh-work"] }));
    expect(refused.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
    expect(bytes(refused)).toEqual(bytes(await failureOf(stranger.queryFreeBusy({ ...friday, calendarIds: ["no-such"] }))));
    expect((await stranger.listCalendars()).calendars).toEqual([]);
  });
});

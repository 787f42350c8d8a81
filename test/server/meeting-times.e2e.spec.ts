/**
 * FindMeetingTimes over gRPC, on a real port: An in Ho Chi Minh City and
 * Binh in Berlin (working hours from their settings), Chi in New York
 * (working hours from the VAVAILABILITY in her feed) and Dung (none), each
 * calendar with real ICS text. The ranking, each attendee's standing in
 * their own zone, buffers, every reason nothing fits with the alternatives,
 * a week across Berlin's fall-back, and the refusals. Binh's calendar is
 * one An sees busy-only, as a free/busy reader.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Availability, type MeetingTime, NoFitReason, TentativePolicy, WorkingHoursSource } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;
let client: CalqGrpcClient;

const HCM = "Asia/Ho_Chi_Minh";

/** Chi works 08:00 to 12:00 in New York on weekdays, as her feed publishes it (RFC 7953). */
const CHI_AVAILABILITY = [
  "BEGIN:VAVAILABILITY",
  "UID:chi-hours@calq.test",
  "DTSTAMP:20260901T000000Z",
  "DTSTART;TZID=America/New_York:20260101T000000",
  "BEGIN:AVAILABLE",
  "UID:chi-weekdays@calq.test",
  "DTSTAMP:20260901T000000Z",
  "DTSTART;TZID=America/New_York:20260105T080000",
  "DTEND;TZID=America/New_York:20260105T120000",
  "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
  "END:AVAILABLE",
  "END:VAVAILABILITY",
];

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      "an-work": ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent("UID:review", "DTSTART;TZID=Asia/Ho_Chi_Minh:20261006T140000", "DURATION:PT1H", "SUMMARY:Design review"),
      ),
      "binh-work": ics(
        "X-WR-TIMEZONE:Europe/Berlin",
        ...vevent("UID:maybe", "DTSTART;TZID=Europe/Berlin:20261006T103000", "DURATION:PT30M", "STATUS:TENTATIVE", "SUMMARY:Maybe"),
        ...vevent("UID:call", "DTSTART;TZID=Europe/Berlin:20261006T110000", "DURATION:PT30M", "SUMMARY:Supplier call"),
      ),
      "chi-work": ics("X-WR-TIMEZONE:America/New_York", ...CHI_AVAILABILITY),
      dung: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent("UID:gym", "DTSTART;TZID=Asia/Ho_Chi_Minh:20261006T150000", "DURATION:PT30M", "SUMMARY:Gym"),
      ),
      secret: ics(...vevent("UID:s", "DTSTART:20261006T030000Z", "DURATION:PT1H", "SUMMARY:Secret")),
    },
    config: {
      calendars: [
        { id: "an-work", source: "an-work.ics", readers: ["an"] },
        { id: "binh-work", source: "binh-work.ics", readers: ["binh"], free_busy_readers: ["an"] },
        { id: "chi-work", source: "chi-work.ics", readers: ["chi", "an"] },
        { id: "dung", source: "dung.ics", readers: ["dung", "an"] },
        { id: "secret", source: "secret.ics", readers: ["binh"] },
      ],
      principals: [
        {
          id: "an",
          primary: "an-work",
          timezone: HCM,
          tokens: ["token-an"],
          working_hours: { start: "09:00", end_exclusive: "17:00" },
        },
        {
          id: "binh",
          primary: "binh-work",
          timezone: "Europe/Berlin",
          tokens: ["token-binh"],
          working_hours: { days: ["MO", "TU", "WE", "TH", "FR"], start: "09:00", end_exclusive: "17:00" },
        },
        { id: "chi", primary: "chi-work", timezone: "America/New_York", tokens: ["token-chi"] },
        { id: "dung", primary: "dung", tokens: ["token-dung"] },
      ],
    },
  });
  client = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  client.close();
  await served.close();
});

/** Tuesday 2026-10-06 in Ho Chi Minh City, 30 minutes, tentative time taken. */
const tuesday = {
  start: "2026-10-06",
  endExclusive: "2026-10-07",
  timezone: HCM,
  durationMinutes: 30,
  tentative: TentativePolicy.BUSY,
};

const starts = (times: readonly MeetingTime[]) => times.map((time) => time.startLocal);
const standing = (time: MeetingTime) => time.attendees.map((attendee) => `${attendee.calendarId} ${Availability[attendee.availability]}`);

describe("FindMeetingTimes", () => {
  it("ranks the times every required attendee can make: more optional attendees free first, then earlier", async () => {
    const response = await client.findMeetingTimes({
      ...tuesday,
      requiredCalendarIds: ["primary", "binh-work"],
      optionalCalendarIds: ["dung"],
    });
    // An and Binh both work 14:00-17:00 in Ho Chi Minh City (09:00-12:00 in Berlin); An's review fills 14:00-15:00,
    // Binh is maybe at 15:30 and busy at 16:00, Dung is at the gym at 15:00.
    expect(starts(response.candidates)).toEqual(["2026-10-06T16:30:00+07:00", "2026-10-06T15:00:00+07:00"]);
    expect(response.fitCount).toBe(2);
    expect(response.noFitReason).toBe(NoFitReason.UNSPECIFIED);
    const [best, second] = response.candidates;
    expect(best.optionalFree).toBe(1);
    expect(second.optionalFree).toBe(0);
    expect(standing(second)).toEqual(["an-work FREE", "binh-work FREE", "dung BUSY"]);
    expect(best.attendees.map((attendee) => attendee.startLocal)).toEqual([
      "2026-10-06T16:30:00+07:00",
      "2026-10-06T11:30:00+02:00",
      "2026-10-06T16:30:00+07:00",
    ]);
    expect([best.startLocalDate, best.startLocalWeekday, best.endLocalWeekday]).toEqual(["2026-10-06", "Tuesday", "Tuesday"]);
    expect(response.complete).toBe(true);
  });

  it("says where each attendee's working hours come from: settings, the feed's VAVAILABILITY, the request, or none", async () => {
    const response = await client.findMeetingTimes({
      ...tuesday,
      requiredCalendarIds: ["an-work", "dung"],
      optionalCalendarIds: ["binh-work", "chi-work"],
      workingHoursStart: "10:00",
      workingHoursEnd: "11:00",
    });
    expect(
      response.attendees.map((attendee) => [attendee.calendarId, attendee.required, attendee.timezone, attendee.workingHoursSource]),
    ).toEqual([
      ["an-work", true, HCM, WorkingHoursSource.SETTINGS],
      ["dung", true, HCM, WorkingHoursSource.REQUEST],
      ["binh-work", false, "Europe/Berlin", WorkingHoursSource.SETTINGS],
      ["chi-work", false, "America/New_York", WorkingHoursSource.FEED],
    ]);
    // Dung's hours are the request's, 10:00-11:00 in Ho Chi Minh City; Binh and Chi are not at work then.
    expect(starts(response.candidates)).toEqual(["2026-10-06T10:00:00+07:00", "2026-10-06T10:30:00+07:00"]);
    expect(standing(response.candidates[0])).toEqual([
      "an-work FREE",
      "dung FREE",
      "binh-work OUTSIDE_WORKING_HOURS",
      "chi-work OUTSIDE_WORKING_HOURS",
    ]);
    const without = await client.findMeetingTimes({ ...tuesday, requiredCalendarIds: ["dung"], limit: 1 });
    expect(without.attendees[0].workingHoursSource).toBe(WorkingHoursSource.NONE);
    expect(starts(without.candidates)).toEqual(["2026-10-06T00:00:00+07:00"]);
  });

  it("counts tentative time as free when asked, and keeps the buffers free around the meeting", async () => {
    const free = await client.findMeetingTimes({
      ...tuesday,
      tentative: TentativePolicy.FREE,
      requiredCalendarIds: ["an-work", "binh-work"],
      optionalCalendarIds: ["dung"],
    });
    expect(starts(free.candidates)).toEqual(["2026-10-06T15:30:00+07:00", "2026-10-06T16:30:00+07:00", "2026-10-06T15:00:00+07:00"]);
    expect(standing(free.candidates[0])).toEqual(["an-work FREE", "binh-work TENTATIVE", "dung FREE"]);
    const buffered = await client.findMeetingTimes({
      ...tuesday,
      requiredCalendarIds: ["an-work", "binh-work"],
      bufferAfterMinutes: 30,
    });
    // 15:00 would run into Binh's tentative 15:30 with its buffer; 16:30's buffer lies past Binh's hours, which buffers need not.
    expect(starts(buffered.candidates)).toEqual(["2026-10-06T16:30:00+07:00"]);
    const before = await client.findMeetingTimes({
      ...tuesday,
      requiredCalendarIds: ["an-work"],
      bufferBeforeMinutes: 15,
      start: "2026-10-06T14:00",
      endExclusive: "2026-10-06T16:00",
    });
    expect(starts(before.candidates)[0]).toBe("2026-10-06T15:30:00+07:00");
  });

  it("names why nothing fits when no required attendee's working hours meet, with the time missing the fewest", async () => {
    const response = await client.findMeetingTimes({ ...tuesday, requiredCalendarIds: ["an-work", "chi-work"] });
    expect(response.candidates).toEqual([]);
    expect(response.noFitReason).toBe(NoFitReason.OUTSIDE_WORKING_HOURS);
    // Chi works 19:00-23:00 in Ho Chi Minh City: never with An, within the window or the two weeks after it.
    expect(response.firstFitAfterWindow).toBeUndefined();
    expect(response.fewestMissing?.startLocal).toBe("2026-10-06T09:00:00+07:00");
    expect(response.fewestMissing?.unavailableRequired).toEqual(["chi-work"]);
    expect(standing(response.fewestMissing!)).toEqual(["an-work FREE", "chi-work OUTSIDE_WORKING_HOURS"]);
  });

  it("names a window without common free time, and gives the first fit after it", async () => {
    const response = await client.findMeetingTimes({
      ...tuesday,
      start: "2026-10-06T14:00",
      endExclusive: "2026-10-06T15:00",
      requiredCalendarIds: ["an-work", "binh-work"],
    });
    expect(response.noFitReason).toBe(NoFitReason.NO_COMMON_FREE_TIME);
    expect(response.firstFitAfterWindow?.startLocal).toBe("2026-10-06T15:00:00+07:00");
    expect(response.fewestMissing?.unavailableRequired).toEqual(["an-work"]);
  });

  it("names too few optional attendees when the required ones are free but the share is not met", async () => {
    const response = await client.findMeetingTimes({
      ...tuesday,
      start: "2026-10-06T14:00",
      endExclusive: "2026-10-06T16:00",
      requiredCalendarIds: ["an-work", "binh-work"],
      optionalCalendarIds: ["dung"],
      minOptionalPercent: 100,
    });
    expect(response.noFitReason).toBe(NoFitReason.TOO_FEW_OPTIONAL);
    expect(response.firstFitAfterWindow?.startLocal).toBe("2026-10-06T16:30:00+07:00");
    expect(response.firstFitAfterWindow?.optionalFree).toBe(1);
    expect(response.fewestMissing?.startLocal).toBe("2026-10-06T15:00:00+07:00");
  });

  it("names a window shorter than the meeting, and one with no start at a step", async () => {
    const short = await client.findMeetingTimes({
      ...tuesday,
      requiredCalendarIds: ["an-work"],
      start: "2026-10-06T10:00",
      endExclusive: "2026-10-06T10:20",
    });
    expect(short.noFitReason).toBe(NoFitReason.WINDOW_SHORTER_THAN_DURATION);
    expect(short.fewestMissing).toBeUndefined();
    const offStep = await client.findMeetingTimes({
      ...tuesday,
      requiredCalendarIds: ["an-work"],
      start: "2026-10-06T10:10",
      endExclusive: "2026-10-06T10:50",
    });
    expect(offStep.noFitReason).toBe(NoFitReason.NO_START_IN_WINDOW);
  });

  it("follows each attendee's zone across Berlin's fall-back: Binh's 09:00 is 14:00 in Ho Chi Minh City before it and 15:00 after", async () => {
    const response = await client.findMeetingTimes({
      ...tuesday,
      start: "2026-10-23",
      endExclusive: "2026-10-27",
      durationMinutes: 60,
      stepMinutes: 60,
      requiredCalendarIds: ["an-work", "binh-work"],
      limit: 10,
    });
    expect(starts(response.candidates)).toEqual([
      "2026-10-23T14:00:00+07:00",
      "2026-10-23T15:00:00+07:00",
      "2026-10-23T16:00:00+07:00",
      "2026-10-26T15:00:00+07:00",
      "2026-10-26T16:00:00+07:00",
    ]);
    expect(response.candidates.map((time) => time.attendees[1].startLocal)).toEqual([
      "2026-10-23T09:00:00+02:00",
      "2026-10-23T10:00:00+02:00",
      "2026-10-23T11:00:00+02:00",
      "2026-10-26T09:00:00+01:00",
      "2026-10-26T10:00:00+01:00",
    ]);
    expect(response.candidates.map((time) => time.startLocalWeekday)).toEqual(["Friday", "Friday", "Friday", "Monday", "Monday"]);
  });

  it("refuses what it cannot read, naming the field, and a calendar the caller may not see as one that does not exist", async () => {
    const tentative = await failureOf(
      client.findMeetingTimes({ ...tuesday, tentative: TentativePolicy.UNSPECIFIED, requiredCalendarIds: ["an-work"] }),
    );
    expect([tentative.errorInfo?.reason, tentative.badRequest?.fieldViolations[0]?.field]).toEqual(["INVALID_MEETING_QUERY", "tentative"]);
    const duration = await failureOf(client.findMeetingTimes({ ...tuesday, durationMinutes: 3, requiredCalendarIds: ["an-work"] }));
    expect([duration.errorInfo?.reason, duration.badRequest?.fieldViolations[0]?.field]).toEqual([
      "INVALID_MEETING_QUERY",
      "duration_minutes",
    ]);
    const none = await failureOf(client.findMeetingTimes({ ...tuesday, requiredCalendarIds: [], optionalCalendarIds: ["dung"] }));
    expect(none.errorInfo?.reason).toBe("INVALID_CALENDAR_IDS");
    const twice = await failureOf(
      client.findMeetingTimes({ ...tuesday, requiredCalendarIds: ["primary"], optionalCalendarIds: ["an-work"] }),
    );
    expect(twice.errorInfo?.reason).toBe("INVALID_CALENDAR_IDS");
    const hours = await failureOf(
      client.findMeetingTimes({ ...tuesday, requiredCalendarIds: ["dung"], workingHoursStart: "9am", workingHoursEnd: "17:00" }),
    );
    expect([hours.errorInfo?.reason, hours.badRequest?.fieldViolations[0]?.field]).toEqual([
      "INVALID_MEETING_QUERY",
      "working_hours_start",
    ]);
    const forbidden = await failureOf(client.findMeetingTimes({ ...tuesday, requiredCalendarIds: ["an-work", "secret"] }));
    const unknown = await failureOf(client.findMeetingTimes({ ...tuesday, requiredCalendarIds: ["an-work", "no-such"] }));
    expect(forbidden.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
    expect([forbidden.code, forbidden.message, forbidden.detailsBin]).toEqual([unknown.code, unknown.message, unknown.detailsBin]);
  });
});

/**
 * QueryFreeBusy over gRPC: each calendar's blocked time and the union of
 * all, by the written rules (transparent, zero-duration and cancelled
 * occurrences never block, tentative is its own kind, busy wins, touching
 * intervals merge), and the refusals of the ids.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BusyKind, TentativePolicy } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;
let client: CalqGrpcClient;

const at = (time: string, ...rest: string[]) => [`DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T${time}`, ...rest];

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      work: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent("UID:a", ...at("090000", "DURATION:PT1H", "SUMMARY:Review")),
        ...vevent("UID:b", ...at("100000", "DURATION:PT1H", "SUMMARY:Touching the review")),
        ...vevent("UID:c", ...at("113000", "DURATION:PT1H", "STATUS:TENTATIVE", "SUMMARY:Maybe")),
        ...vevent("UID:d", ...at("130000", "DURATION:PT1H", "TRANSP:TRANSPARENT", "SUMMARY:Free time block")),
        ...vevent("UID:e", ...at("140000", "SUMMARY:Reminder, no duration")),
        ...vevent("UID:f", ...at("150000", "DURATION:PT1H", "STATUS:CANCELLED", "SUMMARY:Cancelled")),
        ...vevent("UID:g", ...at("160000", "DURATION:PT30M", "STATUS:TENTATIVE", "SUMMARY:Tentative alone")),
      ),
      team: ics("X-WR-TIMEZONE:Asia/Ho_Chi_Minh", ...vevent("UID:t", ...at("120000", "DURATION:PT1H", "SUMMARY:Team lunch"))),
      secret: ics(...vevent("UID:s", "DTSTART:20261002T030000Z", "DURATION:PT1H", "SUMMARY:Secret")),
    },
    config: {
      calendars: [
        { id: "work", source: "work.ics", readers: ["an"] },
        { id: "team", source: "team.ics", readers: ["an"] },
        { id: "secret", source: "secret.ics", readers: ["binh"] },
      ],
      principals: [
        { id: "an", primary: "work", tokens: ["token-an"] },
        { id: "binh", tokens: ["token-binh"] },
      ],
    },
  });
  client = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  client.close();
  await served.close();
});

const friday = (calendarIds: string[]) => ({
  calendarIds,
  start: "2026-10-02T08:00",
  endExclusive: "2026-10-02T18:00",
  timezone: "Asia/Ho_Chi_Minh",
});

const shown = (intervals: { startLocal: string; endLocal: string; kind: BusyKind }[]) =>
  intervals.map((interval) => `${interval.startLocal.slice(11, 16)}-${interval.endLocal.slice(11, 16)} ${BusyKind[interval.kind]}`);

describe("QueryFreeBusy", () => {
  it("merges touching busy time, keeps tentative apart, and lets transparent, instant and cancelled events block nothing", async () => {
    const response = await client.queryFreeBusy(friday(["primary"]));
    expect(response.calendars.map((calendar) => calendar.calendarId)).toEqual(["work"]);
    expect(shown(response.calendars[0].busy)).toEqual(["09:00-11:00 BUSY", "11:30-12:30 TENTATIVE", "16:00-16:30 TENTATIVE"]);
    expect(response.calendars[0].complete).toBe(true);
  });

  it("combines calendars: busy wins over tentative, and touching intervals of a kind merge", async () => {
    const response = await client.queryFreeBusy(friday(["work", "team"]));
    expect(shown(response.calendars[1].busy)).toEqual(["12:00-13:00 BUSY"]);
    expect(shown(response.combined)).toEqual(["09:00-11:00 BUSY", "11:30-12:00 TENTATIVE", "12:00-13:00 BUSY", "16:00-16:30 TENTATIVE"]);
  });

  it("clips to the window, which is half-open", async () => {
    const response = await client.queryFreeBusy({ ...friday(["work"]), start: "2026-10-02T09:30", endExclusive: "2026-10-02T10:00" });
    expect(shown(response.combined)).toEqual(["09:30-10:00 BUSY"]);
  });

  it("refuses no ids, more than 50, or one calendar twice", async () => {
    for (const ids of [[], Array.from({ length: 51 }, (_, i) => `c${i}`), ["work", "work"], ["primary", "work"]]) {
      const failure = await failureOf(client.queryFreeBusy(friday(ids)));
      expect(failure.errorInfo?.reason, ids.join()).toBe("INVALID_CALENDAR_IDS");
    }
  });

  it("refuses the whole request when any calendar may not be read, as for one calendar", async () => {
    const failure = await failureOf(client.queryFreeBusy(friday(["work", "secret"])));
    expect(failure.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
    const unknown = await failureOf(client.queryFreeBusy(friday(["work", "no-such-calendar"])));
    expect(unknown.errorInfo).toEqual(failure.errorInfo);
  });
});

describe("FindFreeSlots", () => {
  const slots = (request: Parameters<CalqGrpcClient["findFreeSlots"]>[0]) =>
    client
      .findFreeSlots(request)
      .then((response) => response.slots.map((slot) => `${slot.startLocal.slice(11, 16)}-${slot.endLocal.slice(11, 16)}`));
  const day = { calendarIds: ["work", "team"], start: "2026-10-02T08:00", endExclusive: "2026-10-02T18:00", timezone: "Asia/Ho_Chi_Minh" };

  it("finds the first free hours around the busy time of every calendar, touching it but never inside it", async () => {
    expect(await slots({ ...day, durationMinutes: 60, stepMinutes: 30, tentative: TentativePolicy.BUSY, limit: 4 })).toEqual([
      "08:00-09:00",
      "13:00-14:00",
      "13:30-14:30",
      "14:00-15:00",
    ]);
  });

  it("counts tentative time as free only when told to", async () => {
    const free = await slots({ ...day, durationMinutes: 30, tentative: TentativePolicy.FREE, limit: 20 });
    const busy = await slots({ ...day, durationMinutes: 30, tentative: TentativePolicy.BUSY, limit: 20 });
    expect(free).toContain("11:00-11:30");
    expect(free).toContain("16:00-16:30");
    expect(busy).not.toContain("16:00-16:30");
    const failure = await failureOf(client.findFreeSlots({ ...day, durationMinutes: 30 }));
    expect(failure.errorInfo?.reason).toBe("INVALID_SLOT_QUERY");
    expect(failure.badRequest?.fieldViolations[0].field).toBe("tentative");
  });

  it("keeps slots inside working hours on working days", async () => {
    const weekend = { ...day, start: "2026-10-03T00:00", endExclusive: "2026-10-06T00:00" };
    const found = await client.findFreeSlots({
      ...weekend,
      durationMinutes: 60,
      stepMinutes: 60,
      tentative: TentativePolicy.BUSY,
      workingHoursStart: "09:00",
      workingHoursEnd: "11:00",
      limit: 5,
    });
    // Saturday 3 and Sunday 4 October are not working days by default; Monday 5 is.
    expect(found.slots.map((slot) => slot.startLocal)).toEqual(["2026-10-05T09:00:00+07:00", "2026-10-05T10:00:00+07:00"]);
  });

  it("refuses a bad duration, step, limit or working hours, naming the field", async () => {
    const base = { ...day, durationMinutes: 30, tentative: TentativePolicy.BUSY };
    const cases: [Record<string, unknown>, string][] = [
      [{ durationMinutes: 0 }, "duration_minutes"],
      [{ stepMinutes: 3 }, "step_minutes"],
      [{ limit: 51 }, "limit"],
      [{ workingHoursStart: "9:00", workingHoursEnd: "17:00" }, "working_hours_start"],
      [{ workingHoursStart: "17:00", workingHoursEnd: "09:00" }, "working_hours_end"],
      [{ workingHoursStart: "09:00", workingHoursEnd: "17:00", workingDays: [0] }, "working_days"],
    ];
    for (const [change, field] of cases) {
      const failure = await failureOf(client.findFreeSlots({ ...base, ...change } as Parameters<CalqGrpcClient["findFreeSlots"]>[0]));
      expect(failure.errorInfo?.reason, field).toBe("INVALID_SLOT_QUERY");
      expect(failure.badRequest?.fieldViolations[0].field).toBe(field);
    }
  });
});

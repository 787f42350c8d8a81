import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMode, WindowRelation } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, grpc } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const HCM = "Asia/Ho_Chi_Minh";
const MINUTE = 60_000;

function workCalendar(extra: string[] = []): string {
  return ics(
    "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
    ...vevent(
      "UID:review",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T083000",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T093000",
      "SUMMARY:Design review",
    ),
    ...vevent(
      "UID:checkin",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T080000",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T090000",
      "SUMMARY:Check-in ending at 09:00",
    ),
    ...vevent(
      "UID:lunch",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T120000",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T130000",
      "SUMMARY:Lunch starting at 12:00",
    ),
    ...vevent(
      "UID:workshop",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T113000",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T123000",
      "SUMMARY:Workshop 11:30-12:30",
    ),
    ...vevent("UID:reminder", "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T090000", "SUMMARY:Reminder at 09:00"),
    ...vevent("UID:holiday", "DTSTART;VALUE=DATE:20261002", "SUMMARY:Holiday"),
    ...vevent(
      "UID:standup",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20260907T091500",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20260907T093000",
      "RRULE:FREQ=DAILY",
      "SUMMARY:Daily stand-up",
    ),
    ...extra,
  );
}

const config = {
  calendars: [
    { id: "work", source: "work.ics", timezone: HCM, readers: ["an"] },
    { id: "binh-private", source: "binh-private.ics", readers: ["binh"] },
    { id: "never-loaded", source: "missing.ics", readers: ["an"] },
  ],
  principals: [
    { id: "an", primary: "work", timezone: HCM, tokens: ["token-an"] },
    { id: "binh", primary: "binh-private", tokens: ["token-binh"] },
    { id: "auditor", tokens: ["token-auditor"], capabilities: ["calendar.read.any"] },
  ],
};

let clock = Date.UTC(2026, 8, 30);
const logs: Record<string, unknown>[] = [];
let served: TestServer;
let client: CalqGrpcClient;

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      work: workCalendar(),
      "binh-private": ics(...vevent("UID:doctor", "DTSTART:20261002T030000Z", "DTEND:20261002T040000Z", "SUMMARY:Doctor")),
    },
    config,
    now: () => clock,
    log: (record) => logs.push(record),
  });
  client = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  client.close();
  await served.close();
});

const friday = (start: string, endExclusive: string, matchMode = MatchMode.OVERLAP) => ({
  calendarId: "primary",
  start,
  endExclusive,
  timezone: HCM,
  matchMode,
});

describe("SearchEvents over gRPC", () => {
  it("finds the seed's 08:30-09:30 meeting in the 09:00-12:00 window, crossing its start", async () => {
    const response = await client.searchEvents(friday("2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00"));
    const summaries = response.events.map((event) => event.summary);
    expect(summaries).toEqual(["Holiday", "Design review", "Reminder at 09:00", "Daily stand-up", "Workshop 11:30-12:30"]);
    const review = response.events[1];
    expect(review.windowRelation).toBe(WindowRelation.CROSSES_START);
    expect(review.startLocal).toBe("2026-10-02T08:30:00+07:00");
    expect(review.endLocal).toBe("2026-10-02T09:30:00+07:00");
    expect(Number(review.startTime!.seconds) * 1000).toBe(Date.UTC(2026, 9, 2, 1, 30));
    expect(review.eventTimezone).toBe(HCM);
    expect(response.events[0].windowRelation).toBe(WindowRelation.SPANS);
    expect(response.events[2].windowRelation).toBe(WindowRelation.INSTANT);
    expect(response.events[4].windowRelation).toBe(WindowRelation.CROSSES_END);
    expect(response.nextCursor).toBe("");
    expect(response.query?.calendarId).toBe("work");
    expect(response.query?.limit).toBe(20);
    expect(Number(response.query!.startTime!.seconds) * 1000).toBe(Date.UTC(2026, 9, 2, 2));
  });

  it("START_WITHIN leaves out what starts before the window", async () => {
    const response = await client.searchEvents(friday("2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00", MatchMode.START_WITHIN));
    expect(response.events.map((event) => event.summary)).toEqual(["Reminder at 09:00", "Daily stand-up", "Workshop 11:30-12:30"]);
  });

  it("gives an all-day event its dates, whatever the caller's zone", async () => {
    const response = await client.searchEvents({
      ...friday("2026-10-02T00:00:00-11:00", "2026-10-02T01:00:00-11:00"),
      timezone: "Pacific/Pago_Pago",
    });
    const holiday = response.events.find((event) => event.summary === "Holiday")!;
    expect(holiday.allDay).toBe(true);
    expect(holiday.startDate).toBe("2026-10-02");
    expect(holiday.endDateExclusive).toBe("2026-10-03");
    expect(holiday.startLocal).toBe("2026-10-01T06:00:00-11:00");
  });

  it("pages with cursors: the pages concatenated equal the unpaged result", async () => {
    const request = friday("2026-09-01", "2026-11-01");
    const whole = await client.searchEvents({ ...request, limit: 100 });
    expect(whole.nextCursor).toBe("");
    const paged: string[] = [];
    let cursor = "";
    let pages = 0;
    do {
      const page = await client.searchEvents({ ...request, limit: 7, cursor });
      expect(page.events.length).toBeLessThanOrEqual(7);
      expect(page.snapshotId).toBe(whole.snapshotId);
      paged.push(...page.events.map((event) => event.eventId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== "");
    expect(paged).toEqual(whole.events.map((event) => event.eventId));
    expect(new Set(paged).size).toBe(paged.length);
    expect(pages).toBe(Math.ceil(whole.events.length / 7));
  });

  it("refuses a tampered cursor", async () => {
    const request = { ...friday("2026-09-01", "2026-11-01"), limit: 3 };
    const first = await client.searchEvents(request);
    const [body, keyId, signature] = first.nextCursor.split(".");
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    payload.p -= 86_400_000;
    const forged = `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${keyId}.${signature}`;
    const failure = await failureOf(client.searchEvents({ ...request, cursor: forged }));
    expect(failure.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(failure.errorInfo?.reason).toBe("INVALID_CURSOR");
    expect((await failureOf(client.searchEvents({ ...request, cursor: `${first.nextCursor}x` }))).errorInfo?.reason).toBe("INVALID_CURSOR");
  });

  it("refuses a cursor replayed by another principal", async () => {
    const request = { ...friday("2026-09-01", "2026-11-01"), calendarId: "work", limit: 3 };
    const first = await client.searchEvents(request);
    const failure = await failureOf(client.searchEvents({ ...request, cursor: first.nextCursor }, "token-auditor"));
    expect(failure.errorInfo?.reason).toBe("INVALID_CURSOR");
  });

  it.each([
    ["calendar_id", { calendarId: "work" }],
    ["start", { start: "2026-09-02" }],
    ["end_exclusive", { endExclusive: "2026-10-31" }],
    ["timezone", { timezone: "Asia/Bangkok" }],
    ["match_mode", { matchMode: MatchMode.START_WITHIN }],
  ])("refuses a cursor sent with a changed %s", async (_field, change) => {
    const request = { ...friday("2026-09-01", "2026-11-01"), limit: 3 };
    const first = await client.searchEvents(request);
    const failure = await failureOf(client.searchEvents({ ...request, ...change, cursor: first.nextCursor }));
    expect(failure.errorInfo?.reason).toBe("INVALID_CURSOR");
  });

  it("continues a cursor with another page size (AIP-158): the pages still concatenate to the whole answer", async () => {
    const request = friday("2026-09-01", "2026-11-01");
    const whole = await client.searchEvents({ ...request, limit: 100 });
    expect(whole.events.length).toBeGreaterThan(6);
    const ids: string[] = [];
    let cursor = "";
    for (const limit of [1, 3, 2, 100]) {
      const page = await client.searchEvents({ ...request, limit, cursor });
      expect(page.events.length).toBeLessThanOrEqual(limit);
      ids.push(...page.events.map((event) => event.eventId));
      cursor = page.nextCursor;
      if (cursor === "") break;
    }
    expect(cursor).toBe("");
    expect(ids).toEqual(whole.events.map((event) => event.eventId));
  });

  it("keeps paging the old snapshot after the feed reloads, while new searches see the new data", async () => {
    const request = { ...friday("2026-10-02", "2026-10-03"), limit: 2 };
    const first = await client.searchEvents(request);
    served.writeCalendar(
      "work",
      workCalendar(
        vevent(
          "UID:added",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T070000",
          "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T071500",
          "SUMMARY:Added later",
        ),
      ),
    );
    expect(await served.server.store.reload("work")).toMatchObject({ outcome: "loaded" });
    const rest: string[] = [];
    let cursor = first.nextCursor;
    while (cursor !== "") {
      const page = await client.searchEvents({ ...request, cursor });
      expect(page.snapshotId).toBe(first.snapshotId);
      rest.push(...page.events.map((event) => event.summary));
      cursor = page.nextCursor;
    }
    expect(rest).not.toContain("Added later");
    const fresh = await client.searchEvents({ ...request, limit: 100 });
    expect(fresh.snapshotId).not.toBe(first.snapshotId);
    expect(fresh.events.map((event) => event.summary)).toContain("Added later");
  });

  it("serves the last good snapshot marked stale when a reload fails", async () => {
    const before = await client.searchEvents(friday("2026-10-02", "2026-10-03"));
    served.writeCalendar("work", "<html>upstream error</html>");
    expect(await served.server.store.reload("work")).toMatchObject({ outcome: "failed", failure: "not_icalendar" });
    try {
      const after = await client.searchEvents(friday("2026-10-02", "2026-10-03"));
      expect(after.stale).toBe(true);
      expect(after.snapshotId).toBe(before.snapshotId);
      expect(after.events.map((event) => event.eventId)).toEqual(before.events.map((event) => event.eventId));
      const listed = await client.listCalendars();
      expect(listed.calendars.find((calendar) => calendar.id === "work")?.stale).toBe(true);
    } finally {
      served.writeCalendar("work", workCalendar());
      await served.server.store.reload("work");
    }
    expect((await client.searchEvents(friday("2026-10-02", "2026-10-03"))).stale).toBe(false);
  });

  it("expires cursors after their lifetime: CURSOR_EXPIRED", async () => {
    const request = { ...friday("2026-09-01", "2026-11-01"), limit: 3 };
    const first = await client.searchEvents(request);
    clock += 16 * MINUTE;
    try {
      const failure = await failureOf(client.searchEvents({ ...request, cursor: first.nextCursor }));
      expect(failure.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(failure.errorInfo?.reason).toBe("CURSOR_EXPIRED");
    } finally {
      clock -= 16 * MINUTE;
    }
  });
});

describe("cursors across a restart", () => {
  it("a cursor issued before the server restarted is CURSOR_EXPIRED, not INVALID_CURSOR", async () => {
    const request = { ...friday("2026-09-01", "2026-11-01"), limit: 3 };
    const first = await client.searchEvents(request);
    const restarted = await startTestServer({ calendars: { work: workCalendar(), "binh-private": ics() }, config, now: () => clock });
    const restartedClient = new CalqGrpcClient(restarted.address, "token-an");
    try {
      const failure = await failureOf(restartedClient.searchEvents({ ...request, cursor: first.nextCursor }));
      expect(failure.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(failure.errorInfo?.reason).toBe("CURSOR_EXPIRED");
    } finally {
      restartedClient.close();
      await restarted.close();
    }
  });
});

describe("refusals over gRPC carry their code and ErrorInfo", () => {
  const base = friday("2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00");
  it.each([
    ["INVALID_INTERVAL", grpc.status.INVALID_ARGUMENT, { endExclusive: "2026-10-02T09:00:00+07:00" }, "end_exclusive"],
    ["INVALID_TIMESTAMP", grpc.status.INVALID_ARGUMENT, { start: "next friday" }, "start"],
    ["UNKNOWN_TIMEZONE", grpc.status.INVALID_ARGUMENT, { timezone: "+07:00" }, "timezone"],
    ["TIMEZONE_OFFSET_MISMATCH", grpc.status.INVALID_ARGUMENT, { start: "2026-10-02T09:00:00Z" }, "start"],
    ["INVALID_MATCH_MODE", grpc.status.INVALID_ARGUMENT, { matchMode: MatchMode.UNSPECIFIED }, "match_mode"],
    ["INVALID_LIMIT", grpc.status.INVALID_ARGUMENT, { limit: 101 }, "limit"],
    ["INVALID_LIMIT", grpc.status.INVALID_ARGUMENT, { limit: -1 }, "limit"],
    ["INVALID_CURSOR", grpc.status.INVALID_ARGUMENT, { cursor: "not-a-cursor" }, "cursor"],
    ["CALENDAR_NOT_ACCESSIBLE", grpc.status.PERMISSION_DENIED, { calendarId: "binh-private" }, undefined],
    ["PROVIDER_UNAVAILABLE", grpc.status.UNAVAILABLE, { calendarId: "never-loaded" }, undefined],
  ])("%s", async (reason, code, change, field) => {
    const failure = await failureOf(client.searchEvents({ ...base, ...change }));
    expect(failure.code).toBe(code);
    expect(failure.errorInfo?.reason).toBe(reason);
    expect(failure.errorInfo?.domain).toBe("calq");
    expect(failure.badRequest?.fieldViolations[0]?.field).toBe(field);
  });

  it("AMBIGUOUS_TIMEZONE names both candidate instants", async () => {
    const failure = await failureOf(
      client.searchEvents({ ...base, start: "2026-11-01T01:30:00", endExclusive: "2026-11-01T03:00:00", timezone: "America/New_York" }),
    );
    expect(failure.errorInfo?.reason).toBe("AMBIGUOUS_TIMEZONE");
    expect(failure.errorInfo?.metadata).toEqual({ earlier: "2026-11-01T01:30:00-04:00", later: "2026-11-01T01:30:00-05:00" });
  });

  it("NONEXISTENT_LOCAL_TIME for a wall time in the spring gap", async () => {
    const failure = await failureOf(
      client.searchEvents({ ...base, start: "2026-03-08T02:30:00", endExclusive: "2026-03-08T04:00:00", timezone: "America/New_York" }),
    );
    expect(failure.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(failure.errorInfo?.reason).toBe("NONEXISTENT_LOCAL_TIME");
  });

  it("INVALID_INTERVAL for a too-long window says the limit", async () => {
    const failure = await failureOf(client.searchEvents({ ...base, start: "2026-01-01", endExclusive: "2027-06-01" }));
    expect(failure.errorInfo?.reason).toBe("INVALID_INTERVAL");
    expect(failure.errorInfo?.metadata.max_window_days).toBe("366");
  });

  it("an unknown calendar and a forbidden one give byte-identical errors", async () => {
    const forbidden = await failureOf(client.searchEvents({ ...base, calendarId: "binh-private" }));
    const unknown = await failureOf(client.searchEvents({ ...base, calendarId: "no-such-calendar" }));
    expect(forbidden.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(unknown.code).toBe(forbidden.code);
    expect(unknown.message).toBe(forbidden.message);
    expect(unknown.detailsBin!.equals(forbidden.detailsBin!)).toBe(true);
    expect(forbidden.message).not.toContain("binh");
  });

  it("UNAUTHENTICATED without a token or with an unknown one", async () => {
    for (const token of [null, "wrong-token"]) {
      const failure = await failureOf(client.searchEvents(base, token));
      expect(failure.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(failure.errorInfo?.reason).toBe("UNAUTHENTICATED");
    }
    expect((await failureOf(client.listCalendars(null))).code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await failureOf(client.getCallerContext("wrong-token"))).code).toBe(grpc.status.UNAUTHENTICATED);
  });
});

describe("the operator's log", () => {
  it("reports each load and every feed diagnostic with its code, UID and line", async () => {
    served.writeCalendar("work", workCalendar(vevent("UID:backwards", "DTSTART:20261002T100000Z", "DTEND:20261002T090000Z")));
    try {
      await served.server.store.reload("work");
      expect(logs).toContainEqual(expect.objectContaining({ msg: "calendar loaded", calendar_id: "work", diagnostics: 1 }));
      expect(logs).toContainEqual(
        expect.objectContaining({ msg: "feed diagnostic", calendar_id: "work", code: "END_BEFORE_START", uid: "backwards", line: 53 }),
      );
    } finally {
      served.writeCalendar("work", workCalendar());
      await served.server.store.reload("work");
    }
  });
});

describe("who may read what", () => {
  it("lets calendar.read.any read another's calendar, and audit-logs it", async () => {
    const response = await client.searchEvents({ ...friday("2026-10-02", "2026-10-03"), calendarId: "binh-private" }, "token-auditor");
    expect(response.events.map((event) => event.summary)).toEqual(["Doctor"]);
    expect(logs).toContainEqual(
      expect.objectContaining({ kind: "audit", principal: "auditor", calendar_id: "binh-private", capability: "calendar.read.any" }),
    );
  });

  it("audit-logs the calendars a ListCalendars shows only through calendar.read.any", async () => {
    const listed = await client.listCalendars("token-auditor");
    expect(listed.calendars.map((calendar) => calendar.id)).toEqual(["binh-private", "never-loaded", "work"]);
    expect(logs).toContainEqual(
      expect.objectContaining({
        kind: "audit",
        principal: "auditor",
        method: "ListCalendars",
        calendar_ids: ["binh-private", "never-loaded", "work"],
        capability: "calendar.read.any",
      }),
    );
    const before = logs.length;
    await client.listCalendars();
    expect(logs.slice(before).filter((record) => record.kind === "audit")).toEqual([]);
  });

  it("lists only the calendars the caller may read", async () => {
    const an = await client.listCalendars();
    expect(an.calendars.map((calendar) => [calendar.id, calendar.primary, calendar.timezone])).toEqual([
      ["never-loaded", false, ""],
      ["work", true, HCM],
    ]);
    const binh = await client.listCalendars("token-binh");
    expect(binh.calendars.map((calendar) => calendar.id)).toEqual(["binh-private"]);
  });

  it("tells the caller who it is, its zone preference and the time", async () => {
    const an = await client.getCallerContext();
    expect(an.principalId).toBe("an");
    expect(an.timezone).toBe(HCM);
    expect(an.primaryCalendarId).toBe("work");
    expect(Number(an.currentTime!.seconds) * 1000).toBe(clock);
    const binh = await client.getCallerContext("token-binh");
    expect(binh.timezone).toBe("");
  });
});

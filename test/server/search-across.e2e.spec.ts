/**
 * SearchEventsAcrossCalendars over gRPC: several calendars merged in the
 * order (start, calendar_id, event_id), each result naming its calendar; one
 * cursor bound to the set (in any order) and to every calendar's snapshot,
 * whose pages may change their limit; and the refusals of the ids, exactly
 * as for one calendar.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EventOccurrence, MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;
let client: CalqGrpcClient;

const hcm = (day: string, time: string) => `DTSTART;TZID=Asia/Ho_Chi_Minh:202610${day}T${time}`;

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      work: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent("UID:standup", hcm("05", "090000"), "DURATION:PT15M", "RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "SUMMARY:Standup"),
        ...vevent("UID:review", hcm("06", "100000"), "DURATION:PT1H", "SUMMARY:Design review"),
        // The same UID as an event of "team": each calendar's copy is its own result.
        ...vevent("UID:offsite", hcm("07", "090000"), "DURATION:PT2H", "SUMMARY:Offsite"),
      ),
      team: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        // Starts exactly with Tuesday's standup: the calendar id breaks the tie, "team" before "work".
        ...vevent("UID:sync", hcm("06", "090000"), "DURATION:PT30M", "SUMMARY:Team sync"),
        ...vevent("UID:offsite", hcm("07", "090000"), "DURATION:PT2H", "SUMMARY:Offsite"),
        ...vevent("UID:lunch", hcm("08", "120000"), "DURATION:PT1H", "SUMMARY:Họp ăn trưa"),
      ),
      family: ics(
        "X-WR-TIMEZONE:America/New_York",
        ...vevent("UID:school", "DTSTART;VALUE=DATE:20261006", "DTEND;VALUE=DATE:20261007", "SUMMARY:School holiday"),
      ),
      secret: ics(...vevent("UID:s", "DTSTART:20261006T030000Z", "DURATION:PT1H", "SUMMARY:Secret")),
    },
    config: {
      calendars: [
        { id: "work", source: "work.ics", readers: ["an"] },
        { id: "team", source: "team.ics", readers: ["an"] },
        { id: "family", source: "family.ics", readers: ["an"] },
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

const week = (calendarIds: string[], more: { limit?: number; cursor?: string; textQuery?: string } = {}) => ({
  calendarIds,
  start: "2026-10-05",
  endExclusive: "2026-10-10",
  timezone: "Asia/Ho_Chi_Minh",
  matchMode: MatchMode.OVERLAP,
  ...more,
});

const shown = (events: readonly EventOccurrence[]) => events.map((event) => `${event.calendarId} ${event.eventId}`);
const titled = (events: readonly EventOccurrence[]) => events.map((event) => `${event.calendarId} ${event.summary}`);

/** Every page of a search across calendars, with the limit of each page from `limits` (the last repeats). */
async function allPages(ids: string[], limits: number[]) {
  const events: EventOccurrence[] = [];
  let cursor = "";
  for (let page = 0; page < 50; page++) {
    const response = await client.searchEventsAcrossCalendars(week(ids, { limit: limits[Math.min(page, limits.length - 1)], cursor }));
    events.push(...response.events);
    cursor = response.nextCursor;
    if (cursor === "") return events;
  }
  throw new Error("paging did not end");
}

describe("SearchEventsAcrossCalendars", () => {
  it("merges the calendars in (start, calendar_id, event_id) order: the sorted union of each calendar's own search", async () => {
    const merged = await client.searchEventsAcrossCalendars(week(["work", "family", "team"], { limit: 100 }));
    const union: EventOccurrence[] = [];
    for (const calendarId of ["work", "family", "team"]) {
      const own = await client.searchEvents({ ...week([]), calendarId, limit: 100 });
      union.push(...own.events);
    }
    const instant = (event: EventOccurrence) => Number(event.startTime!.seconds);
    const key = (event: EventOccurrence) => [instant(event), event.calendarId, event.eventId] as const;
    union.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      return x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
    });
    expect(shown(merged.events)).toEqual(shown(union));
    expect(merged.events.length).toBe(11);
    expect(merged.nextCursor).toBe("");
    // The all-day holiday covers its day in its own calendar's zone (New York), shown in the request's zone.
    expect(merged.events.find((event) => event.calendarId === "family")?.startLocal).toBe("2026-10-06T11:00:00+07:00");
  });

  it("breaks ties of start by calendar id, and returns an event two calendars share once for each", async () => {
    const { events } = await client.searchEventsAcrossCalendars(week(["work", "team"], { limit: 100 }));
    const at = (local: string) => events.filter((event) => event.startLocal === local);
    expect(titled(at("2026-10-06T09:00:00+07:00"))).toEqual(["team Team sync", "work Standup"]);
    // Within one calendar, by event_id: the standup and the offsite in whichever order their ids sort.
    const wednesday = at("2026-10-07T09:00:00+07:00");
    expect(titled(wednesday.slice(0, 1))).toEqual(["team Offsite"]);
    expect(titled(wednesday.slice(1)).sort()).toEqual(["work Offsite", "work Standup"]);
    expect(wednesday[1].eventId < wednesday[2].eventId).toBe(true);
  });

  it('names what it read: the calendars in id order with "primary" replaced, and each one\'s snapshot', async () => {
    const response = await client.searchEventsAcrossCalendars(week(["primary", "team"]));
    expect(response.query?.calendarIds).toEqual(["team", "work"]);
    expect(response.query?.calendarId).toBe("");
    expect(response.calendars.map((calendar) => calendar.calendarId)).toEqual(["team", "work"]);
    for (const calendar of response.calendars) {
      expect(calendar.snapshotId).not.toBe("");
      expect(calendar.dataAsOf).toBeDefined();
      expect(calendar.stale).toBe(false);
    }
  });

  it("pages to the unpaged answer whatever the limits, which may change from page to page", async () => {
    const ids = ["work", "team", "family"];
    const unpaged = shown(await allPages(ids, [100]));
    expect(shown(await allPages(ids, [1]))).toEqual(unpaged);
    expect(shown(await allPages(ids, [3, 1, 4, 1, 5]))).toEqual(unpaged);
  });

  it("binds the cursor to the set of calendars, not to the order they are named in", async () => {
    const first = await client.searchEventsAcrossCalendars(week(["work", "team"], { limit: 2 }));
    const reordered = await client.searchEventsAcrossCalendars(week(["team", "work"], { limit: 2, cursor: first.nextCursor }));
    const straight = await client.searchEventsAcrossCalendars(week(["work", "team"], { limit: 2, cursor: first.nextCursor }));
    expect(shown(reordered.events)).toEqual(shown(straight.events));
    expect(reordered.cursorSnapshot).not.toBe(0);

    for (const other of [["work"], ["work", "team", "family"], ["work", "family"]]) {
      const failure = await failureOf(client.searchEventsAcrossCalendars(week(other, { limit: 2, cursor: first.nextCursor })));
      expect(failure.errorInfo?.reason, other.join()).toBe("INVALID_CURSOR");
    }
    const otherWords = await failureOf(
      client.searchEventsAcrossCalendars(week(["work", "team"], { cursor: first.nextCursor, textQuery: "x" })),
    );
    expect(otherWords.errorInfo?.reason).toBe("INVALID_CURSOR");
  });

  it("never takes a cursor of a one-calendar search, nor gives one to it", async () => {
    const one = await client.searchEvents({ ...week([]), calendarId: "work", limit: 1 });
    const across = await client.searchEventsAcrossCalendars(week(["work"], { limit: 1 }));
    expect(shown(across.events)).toEqual(shown(one.events));
    const intoAcross = await failureOf(client.searchEventsAcrossCalendars(week(["work"], { cursor: one.nextCursor })));
    expect(intoAcross.errorInfo?.reason).toBe("INVALID_CURSOR");
    const intoOne = await failureOf(client.searchEvents({ ...week([]), calendarId: "work", cursor: across.nextCursor }));
    expect(intoOne.errorInfo?.reason).toBe("INVALID_CURSOR");
  });

  it("filters every calendar by the same words, diacritics aside", async () => {
    const { events } = await client.searchEventsAcrossCalendars(week(["work", "team", "family"], { textQuery: "hop" }));
    expect(titled(events)).toEqual(["team Họp ăn trưa"]);
  });

  it("refuses no ids, more than 50, and a calendar named twice, before reading any calendar", async () => {
    const many = Array.from({ length: 51 }, (_, i) => `c${i}`);
    for (const ids of [[], many, ["work", "work"], ["primary", "work"]]) {
      const failure = await failureOf(client.searchEventsAcrossCalendars(week(ids)));
      expect(failure.errorInfo?.reason, ids.slice(0, 3).join()).toBe("INVALID_CALENDAR_IDS");
      expect(failure.badRequest?.fieldViolations[0].field).toBe("calendar_ids");
    }
  });

  it("refuses the whole request when any calendar may not be read, byte for byte as an unknown one", async () => {
    const forbidden = await failureOf(client.searchEventsAcrossCalendars(week(["work", "secret"])));
    expect(forbidden.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
    const unknown = await failureOf(client.searchEventsAcrossCalendars(week(["work", "no-such-calendar"])));
    expect(unknown.errorInfo).toEqual(forbidden.errorInfo);
    expect(unknown.message).toBe(forbidden.message);
  });

  it("checks the arguments as a search of one calendar does", async () => {
    const mode = await failureOf(client.searchEventsAcrossCalendars({ ...week(["work"]), matchMode: MatchMode.UNSPECIFIED }));
    expect(mode.errorInfo?.reason).toBe("INVALID_MATCH_MODE");
    const limit = await failureOf(client.searchEventsAcrossCalendars(week(["work"], { limit: 101 })));
    expect(limit.errorInfo?.reason).toBe("INVALID_LIMIT");
    const window = await failureOf(client.searchEventsAcrossCalendars({ ...week(["work"]), endExclusive: "2026-10-05" }));
    expect(window.errorInfo?.reason).toBe("INVALID_INTERVAL");
  });
});

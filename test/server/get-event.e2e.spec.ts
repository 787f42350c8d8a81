/**
 * GetEvent over gRPC: one occurrence by the event_id a search gave, with
 * the description, organizer, attendees and their answers, links (URL,
 * conference, description), categories and the recurrence in words; an
 * occurrence far beyond the indexed years of a series; CLASS:PRIVATE for a
 * caller reading through calendar.read.any; and the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Classification, LinkSource, MatchMode, Participation } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;
let an: CalqGrpcClient;
let auditor: CalqGrpcClient;

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      work: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent(
          "UID:planning",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T100000",
          "DURATION:PT1H",
          "SUMMARY:Sprint planning",
          "LOCATION:Phòng 3.2 https://teams.example/l/room",
          "DESCRIPTION:Agenda: backlog.\\nJoin: https://zoom.example/j/123?pwd=x.",
          'ORGANIZER;CN="An Nguyen":mailto:an@example.com',
          "ATTENDEE;CN=Binh;PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:binh@example.com",
          "ATTENDEE;PARTSTAT=DECLINED:mailto:chi@example.com",
          "ATTENDEE:mailto:dung@example.com",
          "URL:https://tracker.example/sprint/42",
          "X-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij",
          "CATEGORIES:Work,Planning",
          "CATEGORIES:Work",
        ),
        ...vevent(
          "UID:standup",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261005T091500",
          "DURATION:PT15M",
          "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR",
          "SUMMARY:Stand-up",
        ),
        ...vevent(
          "UID:doctor",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T150000",
          "DURATION:PT1H",
          "CLASS:PRIVATE",
          "SUMMARY:Khám răng",
          "LOCATION:Nha khoa Sài Gòn",
          "DESCRIPTION:Bring the x-rays",
        ),
      ),
    },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [
        { id: "an", primary: "work", tokens: ["token-an"] },
        { id: "auditor", tokens: ["token-auditor"], capabilities: ["calendar.read.any"] },
      ],
    },
  });
  an = new CalqGrpcClient(served.address, "token-an");
  auditor = new CalqGrpcClient(served.address, "token-auditor");
});

afterAll(async () => {
  an.close();
  auditor.close();
  await served.close();
});

/** The event_ids of a search of `calendar` on `day` (Ho Chi Minh), by summary. */
async function idsOn(client: CalqGrpcClient, start: string, endExclusive: string) {
  const response = await client.searchEvents({
    calendarId: "work",
    start,
    endExclusive,
    timezone: "Asia/Ho_Chi_Minh",
    matchMode: MatchMode.START_WITHIN,
    limit: 100,
  });
  return response.events;
}

describe("GetEvent", () => {
  it("returns the occurrence a search found, with its description, organizer, attendees, links and categories", async () => {
    const [planning] = (await idsOn(an, "2026-10-02", "2026-10-03")).filter((event) => event.summary === "Sprint planning");
    const response = await an.getEvent({ calendarId: "primary", eventId: planning.eventId, timezone: "America/New_York" });
    expect(response.event?.eventId).toBe(planning.eventId);
    expect(response.event?.calendarId).toBe("work");
    expect(response.event?.startLocal).toBe("2026-10-01T23:00:00-04:00");
    expect(response.event?.windowRelation).toBe(0);
    expect(response.description).toBe("Agenda: backlog.\nJoin: https://zoom.example/j/123?pwd=x.");
    expect(response.organizer).toMatchObject({ name: "An Nguyen", address: "an@example.com" });
    expect(
      response.attendees.map((attendee) => [attendee.person?.name, attendee.person?.address, Participation[attendee.participation]]),
    ).toEqual([
      ["Binh", "binh@example.com", "ACCEPTED"],
      ["", "chi@example.com", "DECLINED"],
      ["", "dung@example.com", "UNSPECIFIED"],
    ]);
    expect(response.attendees[0].role).toBe("REQ-PARTICIPANT");
    expect(response.attendeeCount).toBe(3);
    expect(response.links.map((link) => [LinkSource[link.source], link.url])).toEqual([
      ["URL", "https://tracker.example/sprint/42"],
      ["CONFERENCE", "https://meet.google.com/abc-defg-hij"],
      ["DESCRIPTION", "https://zoom.example/j/123?pwd=x"],
      ["LOCATION", "https://teams.example/l/room"],
    ]);
    expect(response.categories).toEqual(["Work", "Planning"]);
    expect(response.classification).toBe(Classification.PUBLIC);
    expect(response.recurrenceRules).toEqual([]);
    expect(response.recurrenceText).toBe("");
    expect(response.calendarTimezone).toBe("Asia/Ho_Chi_Minh");
    expect(response.snapshotId).not.toBe("");
  });

  it("says how a series recurs, in words and as written, and finds an occurrence decades past the indexed years", async () => {
    const [near] = await idsOn(an, "2026-10-05", "2026-10-06");
    const response = await an.getEvent({ calendarId: "work", eventId: near.eventId });
    expect(response.recurrenceRules).toEqual(["FREQ=WEEKLY;BYDAY=MO,WE,FR"]);
    expect(response.recurrenceText).toBe("every week on Monday, Wednesday, Friday");
    expect(response.event?.startLocal).toBe("2026-10-05T09:15:00+07:00");

    const [far] = await idsOn(an, "2060-03-01", "2060-03-02");
    expect(far.summary).toBe("Stand-up");
    const distant = await an.getEvent({ calendarId: "work", eventId: far.eventId });
    expect(distant.event?.startLocal).toBe("2060-03-01T09:15:00+07:00");
    expect(distant.event?.recurrenceId).toBe(far.recurrenceId);
  });

  it("shows a PRIVATE event whole to the calendar's reader, and only its time to a caller reading through calendar.read.any", async () => {
    const [doctor] = (await idsOn(an, "2026-10-02", "2026-10-03")).filter((event) => event.summary === "Khám răng");
    const own = await an.getEvent({ calendarId: "work", eventId: doctor.eventId });
    expect(own.detailsWithheld).toBe(false);
    expect(own.classification).toBe(Classification.PRIVATE);
    expect(own.description).toBe("Bring the x-rays");

    const other = await auditor.getEvent({ calendarId: "work", eventId: doctor.eventId });
    expect(other.detailsWithheld).toBe(true);
    expect(other.event).toMatchObject({
      summary: "",
      location: "",
      uid: "",
      detailsWithheld: true,
      startLocal: "2026-10-02T15:00:00+07:00",
    });
    expect([other.description, other.organizer, other.attendees, other.links, other.categories]).toEqual(["", undefined, [], [], []]);

    // Searches show the auditor the same: the time, never the text, and words never find it.
    const listed = (await idsOn(auditor, "2026-10-02", "2026-10-03")).find((event) => event.eventId === doctor.eventId);
    expect(listed).toMatchObject({ summary: "", location: "", detailsWithheld: true });
    const byWords = (client: CalqGrpcClient) =>
      client.searchEvents({
        calendarId: "work",
        start: "2026-10-02",
        endExclusive: "2026-10-03",
        timezone: "Asia/Ho_Chi_Minh",
        matchMode: MatchMode.OVERLAP,
        textQuery: "kham rang",
      });
    expect((await byWords(auditor)).events).toEqual([]);
    const acrossByWords = await auditor.searchEventsAcrossCalendars({
      calendarIds: ["work"],
      start: "2026-10-02",
      endExclusive: "2026-10-03",
      timezone: "Asia/Ho_Chi_Minh",
      matchMode: MatchMode.OVERLAP,
      textQuery: "kham rang",
    });
    expect(acrossByWords.events).toEqual([]);
    expect((await byWords(an)).events.map((event) => event.summary)).toEqual(["Khám răng"]);
  });

  it("refuses an event_id the calendar does not hold, and one that was never an event_id, with EVENT_NOT_FOUND", async () => {
    const [near] = await idsOn(an, "2026-10-05", "2026-10-06");
    const offSlot = `${near.eventId.slice(0, 17)}20261006T021500Z`;
    for (const eventId of [offSlot, "not-an-event-id", "", `${near.eventId.slice(0, 16)}`]) {
      const failure = await failureOf(an.getEvent({ calendarId: "work", eventId }));
      expect(failure.errorInfo?.reason, eventId).toBe("EVENT_NOT_FOUND");
    }
  });

  it("refuses a calendar the caller may not read as searches do, and an unknown zone", async () => {
    const [near] = await idsOn(an, "2026-10-05", "2026-10-06");
    const unknown = await failureOf(an.getEvent({ calendarId: "nope", eventId: near.eventId }));
    expect(unknown.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
    const zone = await failureOf(an.getEvent({ calendarId: "work", eventId: near.eventId, timezone: "ICT" }));
    expect(zone.errorInfo?.reason).toBe("UNKNOWN_TIMEZONE");
  });
});

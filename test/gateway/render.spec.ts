/**
 * The text beside each tool's structured result, rendered from responses
 * built with gen/'s message types, so a field renamed in the proto fails
 * these tests instead of rendering nothing.
 */
import { create, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import {
  BusyKind,
  EventOccurrenceSchema,
  EventStatus,
  FindFreeSlotsResponseSchema,
  GetCallerContextResponseSchema,
  GetEventResponseSchema,
  LinkSource,
  ListCalendarsResponseSchema,
  MatchMode,
  PartialReason,
  Participation,
  QueryFreeBusyResponseSchema,
  SearchEventsAcrossCalendarsResponseSchema,
  SearchEventsResponseSchema,
  WindowRelation,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { renderResult } from "../../src/gateway/render.js";
import { buildToolCatalog, type ToolName } from "../../src/gateway/tool-schemas.js";

const { tools } = buildToolCatalog();

/** The text `name` shows for `response`, built from `init` with the generated type `schema`. */
function rendered<Desc extends DescMessage>(
  name: ToolName,
  schema: Desc,
  init: MessageInitShape<Desc>,
  args: Record<string, unknown> = {},
) {
  return renderResult(tools.find((tool) => tool.name === name)!, args, create(schema, init));
}

const nightShift = create(EventOccurrenceSchema, {
  eventId: "nGx0zLr2fVQk5pWe",
  calendarId: "new-york",
  summary: "Night shift",
  startLocal: "2026-10-31T22:00:00-04:00",
  endLocal: "2026-11-01T06:00:00-05:00",
  windowRelation: WindowRelation.SPANS,
  status: EventStatus.TENTATIVE,
});

const fallBackWindow = { start: "2026-11-01T00:00:00-04:00", end_exclusive: "2026-11-01T03:00:00-05:00" };

function renderPage(events: (typeof nightShift)[], nextCursor = "", partial = false) {
  return rendered(
    "search_calendar_events",
    SearchEventsResponseSchema,
    { events, nextCursor, partial, query: { calendarId: "new-york", timezone: "America/New_York", matchMode: MatchMode.OVERLAP } },
    fallBackWindow,
  );
}

describe("the text beside a search result", () => {
  it("shows an occurrence across midnight and a DST change with both dates and both offsets", () => {
    expect(renderPage([nightShift])).toBe(
      [
        "Calendar new-york, window [2026-11-01T00:00:00-04:00, 2026-11-01T03:00:00-05:00) in America/New_York, mode overlap: 1 occurrence(s) on this page.",
        "- Sat 2026-10-31 22:00-Sun 2026-11-01 06:00 -04:00/-05:00 Night shift (tentative) [spans] id nGx0zLr2fVQk5pWe",
        "No more pages.",
      ].join("\n"),
    );
  });

  it("shows a one-day all-day event by its date alone, and says what an empty answer means", () => {
    const holiday = create(EventOccurrenceSchema, {
      ...nightShift,
      summary: "Holiday",
      allDay: true,
      startDate: "2026-11-01",
      endDateExclusive: "2026-11-02",
      status: EventStatus.CONFIRMED,
    });
    expect(renderPage([holiday])).toContain("- all day Sun 2026-11-01 Holiday [spans]");
    expect(renderPage([])).toContain("Nothing in this calendar matches this window in this mode. No more pages.");
  });

  it("says that a partial page is not everything, even when it is empty", () => {
    const text = renderPage([], "abc.def", true);
    expect(text).toContain("The search stopped before it filled this page");
    expect(text).toContain('cursor "abc.def"');
    expect(text).not.toContain("Nothing in this calendar matches");
    expect(renderPage([nightShift])).not.toContain("stopped before");
  });

  it("says how to get the next page", () => {
    expect(renderPage([nightShift], "abc.def")).toContain(
      'More pages: call search_calendar_events again with the same arguments and cursor "abc.def".',
    );
  });

  it("hides a withheld event's title and shows no relation for an occurrence outside any window", () => {
    const withheld = create(EventOccurrenceSchema, { ...nightShift, detailsWithheld: true, windowRelation: WindowRelation.UNSPECIFIED });
    expect(renderPage([withheld])).toContain("-04:00/-05:00 (private) (tentative) id nGx0zLr2fVQk5pWe");
  });
});

describe("the text beside a search across calendars", () => {
  it("leads each occurrence with its calendar and names the stale calendars", () => {
    const text = rendered(
      "search_across_calendars",
      SearchEventsAcrossCalendarsResponseSchema,
      {
        events: [nightShift],
        query: { calendarIds: ["new-york", "work"], timezone: "America/New_York", matchMode: MatchMode.START_WITHIN },
        calendars: [{ calendarId: "new-york", stale: true }, { calendarId: "work" }],
      },
      fallBackWindow,
    );
    expect(text).toContain("Calendars new-york, work, window [2026-11-01T00:00:00-04:00, 2026-11-01T03:00:00-05:00) in America/New_York");
    expect(text).toContain("mode start_within: 1 occurrence(s) on this page, in start order.");
    expect(text).toContain("- new-york: Sat 2026-10-31 22:00-Sun 2026-11-01 06:00");
    expect(text).toContain("The last reload of new-york failed");
  });
});

describe("the text beside get_event", () => {
  it("names the organizer, each attendee's answer, the links and how the event recurs", () => {
    const text = rendered("get_event", GetEventResponseSchema, {
      event: nightShift,
      organizer: { name: "An", address: "an@calq.demo" },
      attendees: [
        { person: { name: "Binh", address: "binh@calq.demo" }, participation: Participation.ACCEPTED },
        { person: { address: "chi@calq.demo" }, participation: Participation.TENTATIVE },
      ],
      attendeeCount: 3,
      links: [{ url: "https://meet.example/night", source: LinkSource.CONFERENCE }],
      recurrenceRules: ["FREQ=WEEKLY;BYDAY=SA"],
      recurrenceText: "every week on Saturday",
      description: "Bring a torch.",
      descriptionTruncated: true,
    });
    expect(text.split("\n")).toEqual([
      "new-york: Sat 2026-10-31 22:00-Sun 2026-11-01 06:00 -04:00/-05:00 Night shift (tentative) [spans] id nGx0zLr2fVQk5pWe",
      "Repeats every week on Saturday (FREQ=WEEKLY;BYDAY=SA).",
      "Organizer: An <an@calq.demo>",
      "Attendees: Binh <binh@calq.demo> (accepted), chi@calq.demo (tentative) and 1 more",
      "Link (conference): https://meet.example/night",
      "Description (cut):",
      "Bring a torch.",
    ]);
  });
});

describe("the text beside free time", () => {
  it("lists busy time together, tentative marked, then each calendar's count and state, and where what is known ends", () => {
    const text = rendered("query_free_busy", QueryFreeBusyResponseSchema, {
      timezone: "Asia/Ho_Chi_Minh",
      combined: [
        { startLocal: "2026-10-02T09:00:00+07:00", endLocal: "2026-10-02T10:00:00+07:00", kind: BusyKind.BUSY },
        { startLocal: "2026-10-02T11:00:00+07:00", endLocal: "2026-10-02T11:30:00+07:00", kind: BusyKind.TENTATIVE },
      ],
      calendars: [{ calendarId: "work", busy: [{}, {}], stale: true, complete: false }],
      completeUntil: timestampFromDate(new Date("2026-10-02T05:00:00Z")),
      partialReason: PartialReason.ANSWER_SIZE,
    });
    expect(text).toContain("- 2026-10-02T11:00:00+07:00 to 2026-10-02T11:30:00+07:00 (end excluded), tentative");
    expect(text).toContain("work: 2 busy interval(s) (stale: its last reload failed)");
    expect(text).toContain(
      "Busy time is known only before 2026-10-02T12:00:00+07:00 (the most one answer holds); nothing is known after it: call again with start at that time for the rest.",
    );
  });

  it("lists free slots by their local times, and says where the search stopped when it did", () => {
    const text = rendered("find_free_slots", FindFreeSlotsResponseSchema, {
      timezone: "America/New_York",
      slots: [{ startLocal: "2026-11-01T01:30:00-04:00", endLocal: "2026-11-01T01:00:00-05:00" }],
      complete: false,
      completeUntil: timestampFromDate(new Date("2026-11-01T07:00:00Z")),
      partialReason: PartialReason.DEADLINE,
    });
    expect(text).toBe(
      [
        "Free slots in America/New_York, each end excluded:",
        "- 2026-11-01T01:30:00-04:00 to 2026-11-01T01:00:00-05:00",
        "Slots were looked for only before 2026-11-01T02:00:00-05:00 (the call's deadline); every slot above is free. For later slots, call again with start at that time.",
      ].join("\n"),
    );
  });
});

describe("the text beside the caller's calendars and context", () => {
  it("lists each calendar with its zone and marks", () => {
    const text = rendered("list_calendars", ListCalendarsResponseSchema, {
      calendars: [{ id: "work", displayName: "Work", timezone: "Asia/Ho_Chi_Minh", primary: true, stale: true }],
    });
    expect(text).toBe('- work "Work" (Asia/Ho_Chi_Minh, primary, stale)');
  });

  it("gives the local time now in the recorded zone, or says none is recorded and what to do", () => {
    const currentTime = timestampFromDate(new Date("2026-09-30T01:00:00Z"));
    const recorded = rendered("get_user_context", GetCallerContextResponseSchema, {
      principalId: "an",
      timezone: "Asia/Ho_Chi_Minh",
      currentTime,
      primaryCalendarId: "work",
    });
    expect(recorded.split("\n")).toEqual([
      "Current time: 2026-09-30T01:00:00Z.",
      "Recorded time zone: Asia/Ho_Chi_Minh (local time now Wed 2026-09-30 08:00 +07:00).",
      "Caller: an; primary calendar: work.",
    ]);
    const none = rendered("get_user_context", GetCallerContextResponseSchema, { principalId: "binh", currentTime });
    expect(none).toContain("Recorded time zone: none recorded. The caller's recorded IANA time-zone preference");
    expect(none).toContain("primary calendar: none.");
  });

  it("refuses a response of another method's type", () => {
    expect(() => rendered("list_calendars", GetCallerContextResponseSchema, {})).toThrow(
      "list_calendars was answered with calq.v1.GetCallerContextResponse, not calq.v1.ListCalendarsResponse",
    );
  });
});

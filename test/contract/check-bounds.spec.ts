/**
 * The check of a request against the bounds its fields declare: the same
 * refusals (reason, field, facts) the server gave before the bounds moved
 * into the contract, defaults in place of the zeros that stand for them, and
 * lengths counted as JSON Schema counts them.
 */
import { create, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  FindFreeSlotsRequestSchema,
  QueryFreeBusyRequestSchema,
  SearchEventsAcrossCalendarsRequestSchema,
  SearchEventsRequestSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqError } from "../../src/calq-error.js";
import { checkBounds } from "../../src/contract/index.js";

/** The CalqError `checkBounds` throws for `init`, as plain facts. */
function refusal<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>) {
  try {
    checkBounds(schema, create(schema, init));
  } catch (error) {
    if (!(error instanceof CalqError)) throw error;
    return { reason: error.reason, field: error.field, message: error.message, metadata: error.metadata };
  }
  throw new Error("accepted");
}

const slots = { calendarIds: ["work"], durationMinutes: 30 };

describe("a search's limit", () => {
  it("is refused past 100 and below 0 with INVALID_LIMIT, naming the field, the bounds and the default", () => {
    for (const limit of [101, -1]) {
      expect(refusal(SearchEventsRequestSchema, { limit })).toEqual({
        reason: "INVALID_LIMIT",
        field: "limit",
        message: `limit ${limit} is out of range: send 1 to 100, or 0 for the default 20`,
        metadata: { min_limit: "1", max_limit: "100", default_limit: "20" },
      });
    }
    expect(refusal(SearchEventsAcrossCalendarsRequestSchema, { calendarIds: ["work"], limit: 101 }).reason).toBe("INVALID_LIMIT");
  });

  it("takes 0 as the declared default, in a copy, leaving the request as sent", () => {
    const request = create(SearchEventsRequestSchema, { calendarId: "work", limit: 0 });
    const checked = checkBounds(SearchEventsRequestSchema, request);
    expect(checked.limit).toBe(20);
    expect(checked.calendarId).toBe("work");
    expect(request.limit).toBe(0);
  });

  it("returns the request itself when no zero stands for a default", () => {
    const request = create(SearchEventsRequestSchema, { limit: 1 });
    expect(checkBounds(SearchEventsRequestSchema, request)).toBe(request);
    expect(checkBounds(SearchEventsRequestSchema, create(SearchEventsRequestSchema, { limit: 100 })).limit).toBe(100);
  });
});

describe("calendar ids", () => {
  it("are counted, 1 to 50, with INVALID_CALENDAR_IDS", () => {
    const many = Array.from({ length: 51 }, (_, i) => `c${i}`);
    expect(refusal(QueryFreeBusyRequestSchema, { calendarIds: many })).toEqual({
      reason: "INVALID_CALENDAR_IDS",
      field: "calendar_ids",
      message: "send 1 to 50 calendar ids, not 51",
      metadata: {},
    });
    expect(refusal(FindFreeSlotsRequestSchema, { calendarIds: [] }).message).toBe("send 1 to 50 calendar ids, not 0");
    expect(() => checkBounds(QueryFreeBusyRequestSchema, create(QueryFreeBusyRequestSchema, { calendarIds: many.slice(1) }))).not.toThrow();
  });

  it("are checked first, in field-number order, before a bad limit", () => {
    expect(refusal(SearchEventsAcrossCalendarsRequestSchema, { calendarIds: [], limit: 101 }).reason).toBe("INVALID_CALENDAR_IDS");
  });
});

describe("a slot request", () => {
  it("refuses a duration outside 5 to 1440 minutes with INVALID_SLOT_QUERY and its bounds", () => {
    expect(refusal(FindFreeSlotsRequestSchema, { calendarIds: ["work"], durationMinutes: 4 })).toEqual({
      reason: "INVALID_SLOT_QUERY",
      field: "duration_minutes",
      message: "duration_minutes 4 is out of range: send 5 to 1440",
      metadata: { min_duration_minutes: "5", max_duration_minutes: "1440" },
    });
    expect(refusal(FindFreeSlotsRequestSchema, { calendarIds: ["work"], durationMinutes: 1441 }).field).toBe("duration_minutes");
  });

  it("refuses a step of 1 to 4 minutes, and takes 0 as the default 30", () => {
    for (const stepMinutes of [1, 4, 1441]) {
      expect(refusal(FindFreeSlotsRequestSchema, { ...slots, stepMinutes })).toMatchObject({
        reason: "INVALID_SLOT_QUERY",
        field: "step_minutes",
        message: `step_minutes ${stepMinutes} is out of range: send 5 to 1440, or 0 for the default 30`,
      });
    }
    const checked = checkBounds(FindFreeSlotsRequestSchema, create(FindFreeSlotsRequestSchema, slots));
    expect([checked.stepMinutes, checked.limit]).toEqual([30, 10]);
  });

  it("refuses more than 50 slots", () => {
    expect(refusal(FindFreeSlotsRequestSchema, { ...slots, limit: 51 })).toMatchObject({ reason: "INVALID_SLOT_QUERY", field: "limit" });
  });

  it("counts working days before it looks at each, and takes each only from 1 to 7", () => {
    expect(refusal(FindFreeSlotsRequestSchema, { ...slots, workingDays: [0, 1, 2, 3, 4, 5, 6, 7] }).message).toBe(
      "send at most 7 working days, not 8",
    );
    expect(refusal(FindFreeSlotsRequestSchema, { ...slots, workingDays: [1, 8] })).toMatchObject({
      reason: "INVALID_SLOT_QUERY",
      field: "working_days",
      message: "working_days item 8 is out of range: send 1 to 7",
    });
  });
});

describe("a text query", () => {
  it("is refused past 200 characters with INVALID_TEXT_QUERY", () => {
    expect(refusal(SearchEventsRequestSchema, { textQuery: "x".repeat(201) })).toEqual({
      reason: "INVALID_TEXT_QUERY",
      field: "text_query",
      message: "text_query is longer than 200 characters",
      metadata: {},
    });
  });

  it("counts characters as Unicode code points, as a tool schema's maxLength does, not UTF-16 units", () => {
    const bold = "\u{1D431}"; // MATHEMATICAL BOLD SMALL X: one code point, two UTF-16 units
    const request = create(SearchEventsRequestSchema, { textQuery: bold.repeat(200) });
    expect(request.textQuery.length).toBe(400);
    expect(checkBounds(SearchEventsRequestSchema, request).textQuery).toBe(request.textQuery);
    expect(refusal(SearchEventsRequestSchema, { textQuery: bold.repeat(201) }).reason).toBe("INVALID_TEXT_QUERY");
  });
});

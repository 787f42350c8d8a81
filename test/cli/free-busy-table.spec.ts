/**
 * The tables of `calq busy` and `calq slots`, from responses as the service
 * sends them: local times in the request's zone with the day and the offset
 * shown where they change, so the week New York falls back reads right.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BusyKind, FindFreeSlotsResponseSchema, QueryFreeBusyResponseSchema } from "../../gen/calq/v1/calendar_service_pb.js";
import { renderFreeBusy, renderFreeSlots } from "../../src/cli/free-busy-table.js";
import { localTime, parseLocal } from "../../src/cli/local-time.js";

const NEW_YORK = "America/New_York";

/** A busy interval between two local times of the request's zone. */
const busy = (startLocal: string, endLocal: string, kind = BusyKind.BUSY) => ({ startLocal, endLocal, kind });

const calendar = (calendarId: string, intervals: ReturnType<typeof busy>[], facts: { stale?: boolean; complete?: boolean } = {}) => ({
  calendarId,
  busy: intervals,
  stale: facts.stale ?? false,
  complete: facts.complete ?? true,
});

const lines = (text: string) => text.trimEnd().split("\n");

describe("calq busy's tables", () => {
  it("shows a New York week across the fall-back with each day once and the offset only where it changes", () => {
    const work = calendar("work", [
      busy("2026-10-29T09:00:00-04:00", "2026-10-29T10:00:00-04:00"),
      busy("2026-10-29T14:00:00-04:00", "2026-10-29T15:30:00-04:00"),
      // 01:15 EDT to 01:45 EST: 90 minutes, across the repeated hour.
      busy("2026-11-01T01:15:00-04:00", "2026-11-01T01:45:00-05:00"),
      busy("2026-11-02T09:00:00-05:00", "2026-11-02T10:00:00-05:00"),
      // Overnight: the end is on another day.
      busy("2026-11-03T23:00:00-05:00", "2026-11-04T01:00:00-05:00"),
    ]);
    const text = renderFreeBusy(create(QueryFreeBusyResponseSchema, { timezone: NEW_YORK, calendars: [work], combined: work.busy }));
    expect(lines(text)).toEqual([
      "busy time of 1 calendar(s), times in America/New_York, ends excluded",
      "",
      "work: 5 busy interval(s); time not listed is free",
      "DAY             START         END (excl.)           KIND",
      "Thu 2026-10-29  09:00 -04:00  10:00                 busy",
      "                14:00         15:30                 busy",
      "Sun 2026-11-01  01:15         01:45 -05:00          busy",
      "Mon 2026-11-02  09:00 -05:00  10:00                 busy",
      "Tue 2026-11-03  23:00         Wed 2026-11-04 01:00  busy",
    ]);
  });

  it("tells tentative from busy time, and adds every calendar combined when several are asked", () => {
    const response = create(QueryFreeBusyResponseSchema, {
      timezone: "Asia/Ho_Chi_Minh",
      calendars: [
        calendar("work", [
          busy("2026-10-02T09:00:00+07:00", "2026-10-02T11:00:00+07:00"),
          busy("2026-10-02T11:30:00+07:00", "2026-10-02T12:30:00+07:00", BusyKind.TENTATIVE),
        ]),
        calendar("team", [busy("2026-10-02T12:00:00+07:00", "2026-10-02T13:00:00+07:00")]),
      ],
      combined: [
        busy("2026-10-02T09:00:00+07:00", "2026-10-02T11:00:00+07:00"),
        busy("2026-10-02T11:30:00+07:00", "2026-10-02T12:00:00+07:00", BusyKind.TENTATIVE),
        busy("2026-10-02T12:00:00+07:00", "2026-10-02T13:00:00+07:00"),
      ],
    });
    expect(lines(renderFreeBusy(response))).toEqual([
      "busy time of 2 calendar(s), times in Asia/Ho_Chi_Minh, ends excluded",
      "",
      "work: 2 busy interval(s); time not listed is free",
      "DAY             START         END (excl.)  KIND",
      "Fri 2026-10-02  09:00 +07:00  11:00        busy",
      "                11:30         12:30        tentative",
      "",
      "team: 1 busy interval(s); time not listed is free",
      "DAY             START         END (excl.)  KIND",
      "Fri 2026-10-02  12:00 +07:00  13:00        busy",
      "",
      "all calendars combined: 3 busy interval(s); time not listed is free",
      "DAY             START         END (excl.)  KIND",
      "Fri 2026-10-02  09:00 +07:00  11:00        busy",
      "                11:30         12:00        tentative",
      "                12:00         13:00        busy",
    ]);
  });

  it("says a calendar is free for the whole window, with no table, and notes stale and incomplete calendars", () => {
    const one = create(QueryFreeBusyResponseSchema, { timezone: NEW_YORK, calendars: [calendar("work", [])] });
    expect(lines(renderFreeBusy(one))).toEqual([
      "busy time of 1 calendar(s), times in America/New_York, ends excluded",
      "",
      "work: free for the whole window",
    ]);
    const noted = create(QueryFreeBusyResponseSchema, {
      timezone: NEW_YORK,
      calendars: [calendar("work", [], { stale: true }), calendar("big", [], { complete: false })],
    });
    expect(lines(renderFreeBusy(noted)).slice(2)).toEqual([
      "work: free for the whole window (stale: the last reload failed, showing the last good data)",
      "",
      "big: free for the whole window (incomplete: the server read only part of this calendar; more time may be busy)",
      "",
      "all calendars combined: free for the whole window (incomplete: see above)",
    ]);
  });
});

describe("calq slots's table", () => {
  it("shows each slot's weekday, and both slots that start at 01:00 on the night New York falls back", () => {
    const response = create(FindFreeSlotsResponseSchema, {
      timezone: NEW_YORK,
      complete: true,
      slots: [
        { startLocal: "2026-10-31T23:30:00-04:00", endLocal: "2026-11-01T00:30:00-04:00" },
        { startLocal: "2026-11-01T01:00:00-04:00", endLocal: "2026-11-01T01:00:00-05:00" },
        { startLocal: "2026-11-01T01:00:00-05:00", endLocal: "2026-11-01T02:00:00-05:00" },
        { startLocal: "2026-11-02T09:00:00-05:00", endLocal: "2026-11-02T10:00:00-05:00" },
      ],
    });
    expect(lines(renderFreeSlots(response, 10))).toEqual([
      "4 free slot(s), times in America/New_York, ends excluded",
      "DAY             START         END (excl.)",
      "Sat 2026-10-31  23:30 -04:00  Sun 2026-11-01 00:30",
      "Sun 2026-11-01  01:00         01:00 -05:00",
      "                01:00 -05:00  02:00",
      "Mon 2026-11-02  09:00         10:00",
    ]);
  });

  it("says when no slot fits, and warns when a calendar was read only in part", () => {
    expect(renderFreeSlots(create(FindFreeSlotsResponseSchema, { timezone: NEW_YORK, complete: true }), 10)).toBe(
      "no free slot in America/New_York fits the window (and the working hours, if given)\n",
    );
    const partial = create(FindFreeSlotsResponseSchema, {
      timezone: NEW_YORK,
      complete: false,
      slots: [{ startLocal: "2026-11-02T09:00:00-05:00", endLocal: "2026-11-02T09:30:00-05:00" }],
    });
    expect(lines(renderFreeSlots(partial, 10))[0]).toBe(
      "1 free slot(s), times in America/New_York, ends excluded (incomplete: a calendar was read only in part; a slot shown may not be free in it)",
    );
  });
});

describe("calq slots at its limit", () => {
  it("says that later slots may follow when it shows as many as were asked for, and not before", () => {
    const two = create(FindFreeSlotsResponseSchema, {
      timezone: NEW_YORK,
      complete: true,
      slots: [
        { startLocal: "2026-11-02T09:00:00-05:00", endLocal: "2026-11-02T09:30:00-05:00" },
        { startLocal: "2026-11-02T09:30:00-05:00", endLocal: "2026-11-02T10:00:00-05:00" },
      ],
    });
    expect(lines(renderFreeSlots(two, 2)).at(-1)).toBe(
      "the first 2 only: later slots may be free too; raise --limit (up to 50) or start the window later",
    );
    expect(lines(renderFreeSlots(two, 3)).at(-1)).toBe("                09:30         10:00");
  });
});

describe("local times as the service sends them", () => {
  it("keeps seconds only when there are some, and passes anything unreadable through as sent", () => {
    expect(parseLocal("2026-11-01T01:15:30.000-05:00")).toEqual({ date: "2026-11-01", weekday: "Sun", time: "01:15:30", offset: "-05:00" });
    expect(localTime("2026-11-01T01:15:00Z")).toBe("2026-11-01 01:15 Z");
    expect(localTime("next Friday")).toBe("next Friday");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NotICalendarError, parseCalendar, parseDuration } from "../../src/ics/parse-calendar.js";
import { localToInstant } from "../../src/time/zone-rules.js";
import { ics, plusThreeZone, summerTimeZone, vevent } from "../support/feeds.js";

function only(text: string) {
  const parsed = parseCalendar(text);
  expect(parsed.events).toHaveLength(1);
  return parsed.events[0];
}

describe("reading feed text", () => {
  it("reads folded lines, escapes, CRLF and a byte-order mark", () => {
    const text =
      "\ufeff" +
      ics(
        ...vevent(
          "UID:folded@example.com",
          "DTSTART:20261002T020000Z",
          "SUMMARY:Quarterly planning\\, with a very long title that a producer folds",
          " across two lines",
        ),
      );
    const event = only(text);
    expect(event.summary).toBe("Quarterly planning, with a very long title that a producer foldsacross two lines");
    expect(event.uid).toBe("folded@example.com");
  });

  it("reads LF-only text the same as CRLF", () => {
    const crlf = ics(...vevent("UID:x", "DTSTART:20261002T020000Z", "SUMMARY:Same"));
    expect(only(crlf.replace(/\r\n/g, "\n"))).toEqual(only(crlf));
  });

  it("refuses text that is not iCalendar at all", () => {
    expect(() => parseCalendar("<!doctype html><html><body>Sign in</body></html>")).toThrow(NotICalendarError);
    expect(() => parseCalendar("")).toThrow(NotICalendarError);
  });

  it("reads the feed's X-WR-TIMEZONE as its declared zone", () => {
    expect(parseCalendar(ics("X-WR-TIMEZONE:Europe/Berlin")).declaredZone?.name).toBe("Europe/Berlin");
  });

  it("reports an X-WR-TIMEZONE it does not know", () => {
    const parsed = parseCalendar(ics("X-WR-TIMEZONE:Atlantis/Capital"));
    expect(parsed.declaredZone).toBeUndefined();
    expect(parsed.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["UNKNOWN_CALENDAR_ZONE"]);
  });
});

describe("zones of DATE-TIME values", () => {
  it("maps Outlook's Windows zone names to IANA zones", () => {
    const berlin = only(ics(...vevent("UID:w", "DTSTART;TZID=W. Europe Standard Time:20261002T090000"))).start;
    const bangkok = only(ics(...vevent("UID:s", "DTSTART;TZID=SE Asia Standard Time:20261002T090000"))).start;
    expect(berlin.kind === "date-time" && berlin.zone?.name).toBe("Europe/Berlin");
    expect(bangkok.kind === "date-time" && bangkok.zone?.name).toBe("Asia/Bangkok");
  });

  it("uses the feed's own VTIMEZONE when the TZID is neither IANA nor Windows", () => {
    const text = ics(
      ...summerTimeZone("Custom Office Time"),
      ...vevent("UID:c", "DTSTART;TZID=Custom Office Time:20260715T090000"),
      ...vevent("UID:d", "DTSTART;TZID=Custom Office Time:20261215T090000"),
    );
    const [summer, winter] = parseCalendar(text).events.map((event) => event.start);
    if (summer.kind !== "date-time" || winter.kind !== "date-time") throw new Error("expected date-times");
    expect(summer.zone?.name).toBe("Custom Office Time");
    expect(localToInstant(summer.zone!, summer.local)).toBe(Date.UTC(2026, 6, 15, 7));
    expect(localToInstant(winter.zone!, winter.local)).toBe(Date.UTC(2026, 11, 15, 8));
  });

  it("reads an event whose TZID names no zone as floating, with one UNKNOWN_TZID warning per TZID (docs/imperfect-feeds.md)", () => {
    const parsed = parseCalendar(
      ics(
        ...vevent("UID:lost", "DTSTART;TZID=Nowhere Standard Time:20261002T090000"),
        ...vevent("UID:also", "DTSTART;TZID=Nowhere Standard Time:20261003T090000"),
        ...vevent("UID:kept", "DTSTART:20261002T020000Z"),
      ),
    );
    expect(parsed.events.map((event) => [event.uid, event.start])).toEqual([
      ["lost", { kind: "date-time", local: Date.UTC(2026, 9, 2, 9), zone: undefined }],
      ["also", { kind: "date-time", local: Date.UTC(2026, 9, 3, 9), zone: undefined }],
      ["kept", { kind: "date-time", local: Date.UTC(2026, 9, 2, 2), zone: expect.objectContaining({ name: "UTC" }) }],
    ]);
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ code: "UNKNOWN_TZID", severity: "warning", uid: "lost", line: 4 })]);
  });

  it("keeps floating times floating, for the calendar's zone to place", () => {
    const start = only(ics(...vevent("UID:f", "DTSTART:20261002T090000"))).start;
    expect(start).toEqual({ kind: "date-time", local: Date.UTC(2026, 9, 2, 9), zone: undefined });
  });
});

describe("date-time values", () => {
  it("reads every DTSTART digit by digit as the calendar does: a real day and time, second 60 as the next second", () => {
    const pad = (value: number, width: number) => String(value).padStart(width, "0");
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 61 }),
        fc.boolean(),
        (year, month, day, hour, minute, second, utc) => {
          const value = `${pad(year, 4)}${pad(month, 2)}${pad(day, 2)}T${pad(hour, 2)}${pad(minute, 2)}${pad(second, 2)}${utc ? "Z" : ""}`;
          const events = parseCalendar(ics(...vevent("UID:t", `DTSTART:${value}`))).events;
          const date = new Date(0);
          date.setUTCFullYear(year, month - 1, day);
          const real = month >= 1 && month <= 12 && date.getUTCDate() === day && hour <= 23 && minute <= 59 && second <= 60;
          date.setUTCHours(hour, minute, second);
          if (!real) return events.length === 0;
          return (
            events.length === 1 &&
            events[0].start.kind === "date-time" &&
            events[0].start.local === date.getTime() &&
            (events[0].start.zone !== undefined) === utc
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("components that cannot be read", () => {
  it("leaves out only an unreadable line, keeping its component and naming it by UID and BEGIN line", () => {
    const text = ics(
      ...vevent("UID:before", "DTSTART:20261002T020000Z"),
      ...vevent("UID:broken", "DTSTART:20261002T020000Z", "THIS LINE HAS NO COLON"),
      ...vevent("UID:after", "DTSTART:20261003T020000Z"),
    );
    const parsed = parseCalendar(text);
    expect(parsed.events.map((event) => [event.uid, event.line])).toEqual([
      ["before", 4],
      ["broken", 9],
      ["after", 15],
    ]);
    expect(parsed.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.severity, diagnostic.uid, diagnostic.line])).toEqual([
      ["UNREADABLE_LINE", "warning", "broken", 9],
    ]);
  });

  it("types components in batches, yet a line ical.js refuses costs only itself in a feed of many", () => {
    // ical.js types 64 components per call; a refused batch is typed one component at a time.
    const events = Array.from({ length: 150 }, (_, i) =>
      vevent(`UID:e${i}`, `DTSTART:20261002T${String(i % 24).padStart(2, "0")}0000Z`, ...(i === 100 ? ["X-A;VALUE=RECUR:FREQ=NOPE"] : [])),
    );
    const parsed = parseCalendar(ics(...events.flat()));
    expect(parsed.events.map((event) => event.uid)).toEqual(events.map((_, i) => `e${i}`));
    expect(parsed.events[100].start).toEqual({ kind: "date-time", local: Date.UTC(2026, 9, 2, 4), zone: expect.anything() });
    expect(parsed.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.uid, diagnostic.line])).toEqual([
      ["UNREADABLE_LINE", "e100", 4 + 100 * 5],
    ]);
  });

  it("leaves out a line that reads as END but names no component, which ical.js would close the event at", () => {
    const parsed = parseCalendar(
      ics(
        ...vevent("UID:e0", "DTSTART:20261002T090000Z", "SUMMARY:Review", "End: 5pm", "LOCATION:Room 4"),
        ...vevent("UID:e1", "DTSTART:20261002T100000Z"),
        ...vevent("UID:e2", "DTSTART:20261002T110000Z"),
      ),
    );
    expect(parsed.events.map((event) => [event.uid, event.location])).toEqual([
      ["e0", "Room 4"],
      ["e1", ""],
      ["e2", ""],
    ]);
    expect(parsed.diagnostics).toEqual([
      expect.objectContaining({
        code: "UNREADABLE_LINE",
        uid: "e0",
        message: expect.stringContaining("reads as END but names no component"),
      }),
    ]);
  });

  it("reads a feed whose VTIMEZONE holds such a line", () => {
    const parsed = parseCalendar(
      ics(
        ...plusThreeZone("Plus Three", ["End: of list"]),
        ...plusThreeZone("Plus Three B"),
        ...plusThreeZone("Plus Three C"),
        ...vevent("UID:z", "DTSTART;TZID=Plus Three:20261002T090000"),
      ),
    );
    expect(parsed.events.map((event) => event.uid)).toEqual(["z"]);
    expect(parsed.events[0].start).toMatchObject({ kind: "date-time", local: Date.UTC(2026, 9, 2, 9) });
    expect(parsed.events[0].start.kind === "date-time" && parsed.events[0].start.zone?.offsetAt(Date.UTC(2026, 9, 2))).toBe(3 * 3_600_000);
  });

  it("reads an event's TZID by a VTIMEZONE that comes after it, found by the scan or only by the lexer", () => {
    // More events before it than one batch types, so the first batch is read before the VTIMEZONE is lexed.
    const early = Array.from({ length: 70 }, (_, i) => vevent(`UID:early-${i}`, "DTSTART;TZID=Office Time:20261002T090000")).flat();
    const later = (begin: string[]) =>
      ics(...early, ...plusThreeZone("Office Time", [], begin), ...vevent("UID:late", "DTSTART;TZID=Office Time:20261002T100000"));
    // The second BEGIN:VTIMEZONE is folded: only the lexer, unfolding it, sees it.
    for (const text of [later(["BEGIN:VTIMEZONE"]), later(["BEGIN:VTIME", " ZONE"])]) {
      const parsed = parseCalendar(text);
      expect(parsed.events.map((event) => event.uid)).toEqual([...Array.from({ length: 70 }, (_, i) => `early-${i}`), "late"]);
      for (const event of parsed.events) {
        expect(event.start.kind === "date-time" && event.start.zone?.offsetAt(Date.UTC(2026, 9, 2))).toBe(3 * 3_600_000);
      }
      expect(parsed.diagnostics).toEqual([]);
    }
  });

  it("types an event holding a VCARD in a call of its own: ical.js reads every later line of a call by vCard's rules", () => {
    const events = Array.from({ length: 70 }, (_, i) =>
      vevent(
        `UID:v${i}`,
        `DTSTART:20261002T${String(i % 24).padStart(2, "0")}0000Z`,
        ...(i === 0 ? ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "BEGIN:VCARD", "FN:Ann", "END:VCARD", "END:VALARM"] : []),
      ),
    );
    const parsed = parseCalendar(ics(...events.flat()));
    expect(parsed.events.map((event) => event.uid)).toEqual(events.map((_, i) => `v${i}`));
    expect(parsed.events[1].start).toEqual({ kind: "date-time", local: Date.UTC(2026, 9, 2, 1), zone: expect.anything() });
    expect(parsed.diagnostics).toEqual([]);
  });

  it("keeps every later line number true when a stray component precedes them", () => {
    const text = ics(
      "BEGIN:VTODO",
      "UID:todo",
      "X-BROKEN",
      "END:VTODO",
      ...vevent("UID:after", "DTSTART:20261003T020000Z", "DTEND:20261003T010000Z"),
    );
    const parsed = parseCalendar(text);
    expect(parsed.events.map((event) => [event.uid, event.line])).toEqual([["after", 8]]);
  });

  it("drops an RRULE that says INTERVAL=0 rather than reading it as 1; the event keeps its DTSTART", () => {
    const parsed = parseCalendar(
      ics(
        ...vevent("UID:zero", "DTSTART:20261002T020000Z", "RRULE:FREQ=DAILY;", " INTERVAL=0;COUNT=3"),
        ...vevent("UID:ten", "DTSTART:20261002T020000Z", "RRULE:FREQ=DAILY;INTERVAL=10;COUNT=3"),
      ),
    );
    expect(parsed.events.map((event) => [event.uid, event.rrules.length])).toEqual([
      ["zero", 0],
      ["ten", 1],
    ]);
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ code: "UNREADABLE_RRULE", uid: "zero", line: 4 })]);
  });

  it("drops an RRULE ical.js cannot read without failing the rest of the feed", () => {
    const parsed = parseCalendar(
      ics(
        "X-WR-TIMEZONE:Europe/Berlin",
        ...vevent("UID:fortnight", "DTSTART:20261002T020000Z", "RRULE:FREQ=FORTNIGHTLY;BYDAY=MO", "RRULE:FREQ=WEEKLY;COUNT=2"),
        ...vevent("UID:fine", "DTSTART:20261002T020000Z"),
      ),
    );
    expect(parsed.events.map((event) => [event.uid, event.rrules.length])).toEqual([
      ["fortnight", 1],
      ["fine", 0],
    ]);
    expect(parsed.declaredZone?.name).toBe("Europe/Berlin");
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ code: "UNREADABLE_RRULE", uid: "fortnight", line: 5 })]);
  });

  it("leaves out an event whose EXRULE cannot be read: dropping an exclusion would add dates", () => {
    const parsed = parseCalendar(
      ics(...vevent("UID:ex", "DTSTART:20261002T020000Z", "RRULE:FREQ=DAILY;COUNT=5", "EXRULE:FREQ=DAILY;INTERVAL=0")),
    );
    expect(parsed.events).toEqual([]);
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ code: "UNREADABLE_RRULE", uid: "ex", line: 4 })]);
  });

  it("leaves out an event with an impossible date", () => {
    const parsed = parseCalendar(ics(...vevent("UID:feb30", "DTSTART:20260230T090000Z")));
    expect(parsed.events).toEqual([]);
    expect(parsed.diagnostics[0]).toMatchObject({ code: "UNREADABLE_COMPONENT", uid: "feb30" });
  });

  it("leaves out an event without DTSTART", () => {
    const parsed = parseCalendar(ics(...vevent("UID:nostart", "SUMMARY:When?")));
    expect(parsed.events).toEqual([]);
    expect(parsed.diagnostics[0]).toMatchObject({ code: "MISSING_DTSTART", uid: "nostart" });
  });

  it("derives a stable UID for an event without one, and says so", () => {
    const text = ics(...vevent("DTSTART:20261002T020000Z", "SUMMARY:Anonymous"));
    const first = parseCalendar(text);
    expect(first.events[0].uid).toMatch(/^calq-derived-/);
    expect(parseCalendar(text).events[0].uid).toBe(first.events[0].uid);
    expect(first.diagnostics[0].code).toBe("MISSING_UID");
  });
});

describe("durations", () => {
  it("splits nominal days and weeks from exact hours and below", () => {
    expect(parseDuration("P1D")).toEqual({ days: 1, exactMs: 0 });
    expect(parseDuration("PT24H")).toEqual({ days: 0, exactMs: 86_400_000 });
    expect(parseDuration("P1W2DT3H4M5S")).toEqual({ days: 9, exactMs: (3 * 3600 + 4 * 60 + 5) * 1000 });
    expect(parseDuration("-PT15M")).toEqual({ days: -0, exactMs: -900_000 });
  });

  it.each(["P", "PT", "1D", "P1H", "PT1D", "P1.5D"])("refuses %j", (text) => {
    expect(() => parseDuration(text)).toThrow();
  });
});

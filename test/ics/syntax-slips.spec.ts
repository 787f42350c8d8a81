/**
 * Small slips of syntax and value that Google, Thunderbird and ical.js read,
 * read by calq too, each with a warning that names the reading, never in
 * silence (docs/imperfect-feeds.md, the table's LENIENT_SYNTAX and duration
 * rows). The feeds are real ICS text, each slip alone.
 */
import { describe, expect, it } from "vitest";
import { checkComplete } from "../../src/feeds/feed-read.js";
import { closesCalendar } from "../../src/ics/feed-lexer.js";
import { isRfcDuration, lenientDuration, withoutEmptyParameters } from "../../src/ics/lenient-values.js";
import { isICalendar } from "../../src/ics/parse-calendar.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import { searchAll, snapshotOf, vevent } from "../support/feeds.js";

const READ_AT = Date.UTC(2026, 10, 29);
const OCTOBER = { start: Date.UTC(2026, 9, 1), endExclusive: Date.UTC(2026, 10, 1) };

/** A calendar of one event at 09:00 Berlin time on 5 October, written between `before` and `after`. */
function calendar(before: string, after = "END:VCALENDAR\r\n"): string {
  return [
    `${before}BEGIN:VCALENDAR`,
    "VERSION:2.0",
    "PRODID:-//calq//test//EN",
    "X-WR-TIMEZONE:Europe/Berlin",
    ...vevent("UID:slip@calq.test", "DTSTART;TZID=Europe/Berlin:20261005T090000", "DURATION:PT1H", "SUMMARY:Slip"),
    after,
  ].join("\r\n");
}

function starts(snapshot: Snapshot): string[] {
  return searchAll(snapshot, OCTOBER, "overlap").map((occurrence) => new Date(occurrence.start).toISOString());
}

function slips(snapshot: Snapshot): { code: string; line?: number }[] {
  return snapshot.diagnostics.map(({ code, line }) => (line === undefined ? { code } : { code, line }));
}

describe("whitespace before BEGIN:VCALENDAR", () => {
  it.each([
    ["blank lines", "\r\n\r\n", 3],
    ["a line of spaces", "   \r\n", 2],
    ["spaces before BEGIN:VCALENDAR itself", "  ", 1],
    ["a tab, then a blank line, then an indented BEGIN:VCALENDAR", "\t\r\n\r\n ", 3],
  ])("%s: ignored, with a LENIENT_SYNTAX warning on the BEGIN:VCALENDAR line", (_, before, line) => {
    const text = calendar(before);
    expect(isICalendar(text)).toBe(true);
    expect(() => checkComplete(text)).not.toThrow();
    const snapshot = snapshotOf(text, READ_AT);
    expect(starts(snapshot)).toEqual(["2026-10-05T07:00:00.000Z"]);
    expect(slips(snapshot)).toEqual([{ code: "LENIENT_SYNTAX", line }]);
  });

  it("none: no warning", () => {
    expect(slips(snapshotOf(calendar(""), READ_AT))).toEqual([]);
  });
});

describe("a misspelled END:VCALENDAR", () => {
  it.each(["END:VCALENDER", "END:VCALENDAR1", "end:vcalandar", "END:CALENDAR"])(
    "%s as the feed's last line closes the calendar, with a LENIENT_SYNTAX warning",
    (written) => {
      const text = calendar("", `${written}\r\n\r\n`);
      expect(closesCalendar(text)).toBe(true);
      expect(() => checkComplete(text)).not.toThrow();
      const snapshot = snapshotOf(text, READ_AT);
      expect(starts(snapshot)).toEqual(["2026-10-05T07:00:00.000Z"]);
      expect(slips(snapshot)).toEqual([{ code: "LENIENT_SYNTAX", line: 12 }]);
    },
  );

  it("that is not the last line is no END:VCALENDAR: the feed is cut short", () => {
    const text = calendar("", "END:VCALENDER\r\nX-CACHE:kept\r\n");
    expect(closesCalendar(text)).toBe(false);
    expect(() => checkComplete(text)).toThrow(/END:VCALENDAR/);
  });

  it("that is not the last line is read as the line it is, and what follows it too", () => {
    const text = calendar(
      "",
      ["END:VCALENDER", "", ...vevent("UID:after@calq.test", "DTSTART:20261006T090000Z", "SUMMARY:After"), "END:VCALENDAR", ""].join(
        "\r\n",
      ),
    );
    const snapshot = snapshotOf(text, READ_AT);
    expect(starts(snapshot)).toEqual(["2026-10-05T07:00:00.000Z", "2026-10-06T09:00:00.000Z"]);
    expect(slips(snapshot)).toEqual([]);
  });

  it.each(["END:VEVENT", "END:VTIMEZONE", "END:STANDARD"])("is not %s, a component's own END", (written) => {
    expect(closesCalendar(calendar("", `${written}\r\n`))).toBe(false);
  });
});

describe("an empty parameter", () => {
  it.each([
    ["DTSTART;;VALUE=DATE:20261005", "DTSTART;VALUE=DATE:20261005"],
    ["DTSTART;TZID=Europe/Berlin;:20261005T090000", "DTSTART;TZID=Europe/Berlin:20261005T090000"],
    ['DTSTART;;TZID="Berlin; Germany":20261005T090000', 'DTSTART;TZID="Berlin; Germany":20261005T090000'],
  ])("in %s is left out", (written, read) => {
    expect(withoutEmptyParameters(written)).toBe(read);
  });

  it("is read with a LENIENT_SYNTAX warning, and the event keeps its DTSTART", () => {
    const text = calendar("").replace("DTSTART;TZID", "DTSTART;;TZID");
    const snapshot = snapshotOf(text, READ_AT);
    expect(starts(snapshot)).toEqual(["2026-10-05T07:00:00.000Z"]);
    expect(slips(snapshot)).toEqual([{ code: "LENIENT_SYNTAX", line: 5 }]);
  });

  it("leaves a line without one as it is", () => {
    expect(withoutEmptyParameters("DTSTART;VALUE=DATE:20261005")).toBeUndefined();
  });
});

describe("durations", () => {
  it.each([
    ["PT1W", "P1W"],
    ["P1W2D", "P9D"],
    ["P1W2DT3H", "P9DT3H"],
    ["PT1D", "P1D"],
    ["P1H", "PT1H"],
    ["P1D2H", "P1DT2H"],
    ["pt90m", "PT90M"],
    ["-pt15m", "-PT15M"],
    ["P1DT", "P1D"],
  ])("%s is read as %s", (written, read) => {
    expect(isRfcDuration(written)).toBe(false);
    expect(lenientDuration(written)).toBe(read);
    expect(isRfcDuration(read)).toBe(true);
  });

  it.each(["P30M", "P1Y", "PT1.5H", "P", "PT", "P1H1H", "PT1M1H", "PT1HT1M", "1H", "P-1D"])("%s has no one reading", (written) => {
    expect(lenientDuration(written)).toBeUndefined();
  });

  it.each(["P1W", "P2D", "PT1H30M", "PT1H1S", "-P1DT12H", "+PT0S"])("%s, as RFC 5545 writes it, needs no reading", (written) => {
    expect(isRfcDuration(written)).toBe(true);
  });

  it("a week after the T, across the end of summer time, is seven nominal days", () => {
    const text = calendar("").replace("DTSTART;TZID=Europe/Berlin:20261005T090000", "DTSTART;TZID=Europe/Berlin:20261022T090000");
    const snapshot = snapshotOf(text.replace("DURATION:PT1H", "DURATION:PT1W"), READ_AT);
    const [week] = searchAll(snapshot, OCTOBER, "overlap");
    // 09:00 CEST on the 22nd to 09:00 CET on the 29th: 169 hours.
    expect([new Date(week.start).toISOString(), new Date(week.end).toISOString()]).toEqual([
      "2026-10-22T07:00:00.000Z",
      "2026-10-29T08:00:00.000Z",
    ]);
    expect(slips(snapshot)).toEqual([{ code: "LENIENT_VALUE", line: 5 }]);
  });
});

describe("a date with a Z (Google's RDATE:20131210Z)", () => {
  it("is read as that date, in an all-day series, with one LENIENT_VALUE warning", () => {
    const text = calendar("")
      .replace("DTSTART;TZID=Europe/Berlin:20261005T090000", "DTSTART;VALUE=DATE:20261005")
      .replace("DURATION:PT1H", "RDATE:20261009Z,20261012Z");
    const snapshot = snapshotOf(text, READ_AT);
    expect(starts(snapshot)).toEqual(["2026-10-04T22:00:00.000Z", "2026-10-08T22:00:00.000Z", "2026-10-11T22:00:00.000Z"]);
    expect(slips(snapshot)).toEqual([
      { code: "LENIENT_VALUE", line: 5 },
      { code: "LENIENT_VALUE", line: 5 },
    ]);
  });
});

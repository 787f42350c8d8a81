/**
 * Resources of a CalDAV collection as one feed text: each resource's
 * VCALENDAR is split into its zones and components, and the combination is
 * one VCALENDAR, in href order, every zone once, which calq's own parser
 * reads back whole.
 */
import { describe, expect, it } from "vitest";
import { combineResources, ResourceTextError, splitResource } from "../../src/feeds/caldav-calendar-text.js";
import { parseCalendar } from "../../src/ics/parse-calendar.js";

const berlin = [
  "BEGIN:VTIMEZONE",
  "TZID:Europe/Berlin",
  "BEGIN:STANDARD",
  "DTSTART:19701025T030000",
  "TZOFFSETFROM:+0200",
  "TZOFFSETTO:+0100",
  "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
  "END:STANDARD",
  "BEGIN:DAYLIGHT",
  "DTSTART:19700329T020000",
  "TZOFFSETFROM:+0100",
  "TZOFFSETTO:+0200",
  "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
  "END:DAYLIGHT",
  "END:VTIMEZONE",
];

function resource(uid: string, summary: string, extra: readonly string[] = []): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//producer//EN",
    "METHOD:PUBLISH",
    ...berlin,
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20260101T000000Z",
    "DTSTART;TZID=Europe/Berlin:20260105T090000",
    "DURATION:PT1H",
    `SUMMARY:${summary}`,
    "END:VEVENT",
    ...extra,
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

describe("a resource's text", () => {
  it("splits into its zones (with their TZID) and its other components", () => {
    const overridden = ["BEGIN:VEVENT", "UID:a@calq.test", "RECURRENCE-ID:20260112T080000Z", "DTSTART:20260112T100000Z", "END:VEVENT"];
    const parts = splitResource(resource("a@calq.test", "standup", overridden));
    expect(parts.zones.map((zone) => zone.tzid)).toEqual(["Europe/Berlin"]);
    expect(parts.zones[0]).toMatchObject({ lines: berlin.length, text: `${berlin.join("\r\n")}\r\n` });
    expect(parts.body.lines).toBe(7 + overridden.length);
    expect(parts.body.text.endsWith(`${overridden.join("\r\n")}\r\n`)).toBe(true);
  });

  it("keeps folded lines as the producer folded them, and reads a BEGIN folded across lines", () => {
    const text = "BEGIN:VCALENDAR\nBEGIN:VEV\n ENT\nUID:a\nSUMMARY:a long\n  summary\nEND:VEVENT\nEND:VCALENDAR\n";
    expect(splitResource(text).body).toEqual({
      text: "BEGIN:VEV\r\n ENT\r\nUID:a\r\nSUMMARY:a long\r\n  summary\r\nEND:VEVENT\r\n",
      lines: 6,
    });
  });

  it.each([
    ["an HTML page", "<!doctype html><title>Sign in</title>"],
    ["text cut before END:VCALENDAR", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nEND:VEVENT\r\n"],
    ["a component that does not end", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nEND:VCALENDAR\r\n"],
    ["an END that closes nothing", "BEGIN:VCALENDAR\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"],
    ["text after END:VCALENDAR", "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"],
    ["nothing", ""],
  ])("is refused as %s", (_case, text) => {
    expect(() => splitResource(text)).toThrow(ResourceTextError);
  });
});

describe("the combined calendar", () => {
  const resources = new Map([
    ["/cal/b.ics", splitResource(resource("b@calq.test", "second"))],
    ["/cal/a.ics", splitResource(resource("a@calq.test", "first"))],
  ]);

  it("is one VCALENDAR with each zone once, then the components in href order, whatever order it was given", () => {
    const combined = combineResources(resources);
    expect(combineResources([...resources].reverse()).text).toBe(combined.text);
    expect(combined.text.match(/BEGIN:VCALENDAR/g)).toHaveLength(1);
    expect(combined.text.match(/BEGIN:VTIMEZONE/g)).toHaveLength(1);
    expect(combined.text).not.toContain("METHOD:PUBLISH");
    expect(combined.text.indexOf("SUMMARY:first")).toBeLessThan(combined.text.indexOf("SUMMARY:second"));
    expect(combined.text.split("\r\n").at(-1)).toBe("");
  });

  it("reads back with calq's parser into every event, and traces each event's line to its href", () => {
    const combined = combineResources(resources);
    const parsed = parseCalendar(combined.text);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.events.map((event) => [event.summary, combined.hrefAt(event.line)])).toEqual([
      ["first", "/cal/a.ics"],
      ["second", "/cal/b.ics"],
    ]);
    expect(combined.hrefAt(1)).toBeUndefined();
    expect(combined.hrefAt(10_000)).toBeUndefined();
  });

  it("of no resources is an empty VCALENDAR", () => {
    expect(combineResources([]).text).toBe("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calq//CalDAV collection//EN\r\nEND:VCALENDAR\r\n");
  });
});

/**
 * Feeds bounded in size as well as time (docs/imperfect-feeds.md, "Bounds"):
 * each cap of src/ics/feed-bounds.ts cuts or refuses what passes it, says so
 * in a diagnostic that names it, keeps the rest of the feed, and is cut in
 * the feed lexer, so what it leaves out is never handed to ical.js. The feeds
 * are real ICS text, repeated past each cap; how fast a flood is read is
 * measured in bench/hostile.ts, not here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DiagnosticLog, diagnostic } from "../../src/ics/diagnostic.js";
import * as bounds from "../../src/ics/feed-bounds.js";
import {
  MAX_COMPONENT_DEPTH,
  MAX_DIAGNOSTICS_PER_CODE,
  MAX_EXDATES_PER_EVENT,
  MAX_PROPERTIES_PER_COMPONENT,
  MAX_RDATES_PER_EVENT,
  MAX_TIMEZONE_TRANSITIONS,
} from "../../src/ics/feed-bounds.js";
import { type LexedComponent, lexFeed } from "../../src/ics/feed-lexer.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import { ics, searchAll, snapshotOf, vevent } from "../support/feeds.js";

const READ_AT = Date.UTC(2026, 10, 29);

/** "YYYYMMDDTHHMMSS" of an instant (UTC fields). */
function compact(at: number): string {
  return new Date(at).toISOString().slice(0, 19).replace(/[-:]/g, "");
}

/** `count` instants an hour apart from 2026-10-01T00:00Z, as RDATE or EXDATE values. */
function hourly(count: number, from = Date.UTC(2026, 9, 1)): string[] {
  return Array.from({ length: count }, (_, i) => `${compact(from + i * 3_600_000)}Z`);
}

/** An ordinary event the caps never touch, to show the rest of the feed is served. */
const NEIGHBOUR = vevent("UID:neighbour@calq.test", "DTSTART:20261005T090000Z", "DTEND:20261005T100000Z", "SUMMARY:Neighbour");

/** The components the lexer hands on for `text`, and the codes it reported. */
function lexed(text: string): { components: LexedComponent[]; codes: string[] } {
  const log = new DiagnosticLog();
  const components: LexedComponent[] = [];
  const lexer = lexFeed(text, log);
  for (let next = lexer.next(); next.done !== true; next = lexer.next()) components.push(next.value);
  return { components, codes: log.list().map((each) => each.code) };
}

function summaries(snapshot: Snapshot, window = { start: Date.UTC(2026, 0, 1), endExclusive: Date.UTC(2028, 0, 1) }): string[] {
  return [...new Set(searchAll(snapshot, window, "overlap").map((occurrence) => occurrence.details.summary))];
}

function codes(snapshot: Snapshot): string[] {
  return snapshot.diagnostics.map((found) => found.code).filter((code) => code !== "NO_CALENDAR_ZONE");
}

describe("RDATE values per event", () => {
  const over = MAX_RDATES_PER_EVENT + 500;
  const text = ics(
    ...vevent(
      "UID:flood@calq.test",
      "DTSTART:20261001T000000Z",
      "SUMMARY:Flood",
      // Half on lines of their own, half in one list, so the cap falls inside a list.
      ...hourly(MAX_RDATES_PER_EVENT / 2).map((value) => `RDATE:${value}`),
      `RDATE:${hourly(over - MAX_RDATES_PER_EVENT / 2, Date.UTC(2026, 9, 1) + (MAX_RDATES_PER_EVENT / 2) * 3_600_000).join(",")}`,
    ),
    ...NEIGHBOUR,
  );

  it("past the cap, keep the first ones in feed order, leave out the rest with RDATES_CAPPED, and serve the event and its neighbours", () => {
    const snapshot = snapshotOf(text, READ_AT);
    const flood = searchAll(snapshot, { start: Date.UTC(2026, 0, 1), endExclusive: Date.UTC(2028, 6, 1) }, "overlap").filter(
      (occurrence) => occurrence.details.summary === "Flood",
    );
    // DTSTART and the first MAX_RDATES_PER_EVENT values (the first of which is DTSTART's own instant).
    expect(flood).toHaveLength(MAX_RDATES_PER_EVENT);
    expect(new Date(flood.at(-1)!.start).toISOString()).toBe(
      new Date(Date.UTC(2026, 9, 1) + (MAX_RDATES_PER_EVENT - 1) * 3_600_000).toISOString(),
    );
    expect(codes(snapshot)).toEqual(["RDATES_CAPPED"]);
    expect(snapshot.diagnostics.find((found) => found.code === "RDATES_CAPPED")).toMatchObject({
      severity: "error",
      uid: "flood@calq.test",
      message: expect.stringContaining(String(MAX_RDATES_PER_EVENT)),
    });
    expect(summaries(snapshot)).toContain("Neighbour");
  });

  it("are cut before ical.js sees them: the lexer hands on no more than the cap", () => {
    const { components } = lexed(text);
    const values = components[0].lines
      .filter((line) => line.text.startsWith("RDATE"))
      .reduce((sum, line) => sum + line.text.slice(line.text.indexOf(":") + 1).split(",").length, 0);
    expect(values).toBe(MAX_RDATES_PER_EVENT);
  });
});

describe("EXDATE values per event", () => {
  it("past the cap, leave the event out with EXDATES_CAPPED rather than serve dates it excludes; its neighbours are served", () => {
    const text = ics(
      ...vevent(
        "UID:exclusions@calq.test",
        "DTSTART:20261001T000000Z",
        "RRULE:FREQ=HOURLY",
        "SUMMARY:Excluded hours",
        `EXDATE:${hourly(MAX_EXDATES_PER_EVENT + 1).join(",")}`,
      ),
      ...NEIGHBOUR,
    );
    const snapshot = snapshotOf(text, READ_AT);
    expect(summaries(snapshot)).toEqual(["Neighbour"]);
    expect(snapshot.diagnostics.find((found) => found.code === "EXDATES_CAPPED")).toMatchObject({
      severity: "error",
      uid: "exclusions@calq.test",
    });
    expect(lexed(text).components.map((component) => component.lines.length)).toEqual([NEIGHBOUR.length - 2]);
  });

  it("at the cap, keep every exclusion", () => {
    const text = ics(
      ...vevent(
        "UID:exclusions@calq.test",
        "DTSTART:20261001T000000Z",
        "RRULE:FREQ=HOURLY;COUNT=10001",
        "SUMMARY:Excluded hours",
        `EXDATE:${hourly(MAX_EXDATES_PER_EVENT).join(",")}`,
      ),
    );
    const snapshot = snapshotOf(text, READ_AT);
    const left = searchAll(snapshot, { start: Date.UTC(2026, 0, 1), endExclusive: Date.UTC(2028, 0, 1) }, "overlap");
    expect(left.map((occurrence) => new Date(occurrence.start).toISOString())).toEqual([
      new Date(Date.UTC(2026, 9, 1) + MAX_EXDATES_PER_EVENT * 3_600_000).toISOString(),
    ]);
    expect(codes(snapshot)).toEqual([]);
  });
});

describe("transitions per VTIMEZONE", () => {
  /** A zone of a feed's own: +01:00 in winter, +02:00 in summer, one observance per change from 1900 on. */
  function flooded(changes: number): string[] {
    const lines = ["BEGIN:VTIMEZONE", "TZID:Flooded_Zone"];
    for (let i = 0; i < changes; i++) {
      const summer = i % 2 === 1;
      const kind = summer ? "DAYLIGHT" : "STANDARD";
      const at = Date.UTC(1900 + Math.floor(i / 2), summer ? 2 : 9, 25, summer ? 2 : 3);
      lines.push(
        `BEGIN:${kind}`,
        `DTSTART:${compact(at)}`,
        `TZOFFSETFROM:${summer ? "+0100" : "+0200"}`,
        `TZOFFSETTO:${summer ? "+0200" : "+0100"}`,
        `END:${kind}`,
      );
    }
    return [...lines, "END:VTIMEZONE"];
  }
  const event = vevent("UID:in-zone@calq.test", "DTSTART;TZID=Flooded_Zone:20260110T100000", "DURATION:PT1H", "SUMMARY:In the zone");

  it("past the cap, the VTIMEZONE is not used: its TZID is read as if it were absent, with TIMEZONE_TRANSITIONS_CAPPED naming it", () => {
    const snapshot = snapshotOf(ics("X-WR-TIMEZONE:Asia/Ho_Chi_Minh", ...flooded(MAX_TIMEZONE_TRANSITIONS + 1), ...event), READ_AT);
    // Floating, in the calendar's zone (+07:00).
    expect(searchAll(snapshot, { start: Date.UTC(2026, 0, 1), endExclusive: Date.UTC(2026, 1, 1) }, "overlap").map((o) => o.start)).toEqual(
      [Date.UTC(2026, 0, 10, 3)],
    );
    expect(codes(snapshot)).toEqual(["TIMEZONE_TRANSITIONS_CAPPED", "UNKNOWN_TZID"]);
    expect(snapshot.diagnostics[0]).toMatchObject({ severity: "warning", message: expect.stringContaining("Flooded_Zone") });
  });

  it("at the cap, the VTIMEZONE is read", () => {
    const snapshot = snapshotOf(ics(...flooded(MAX_TIMEZONE_TRANSITIONS), ...event), READ_AT);
    // 10:00 at +01:00 (the winter observance of the last listed year is in force).
    expect(searchAll(snapshot, { start: Date.UTC(2026, 0, 1), endExclusive: Date.UTC(2026, 1, 1) }, "overlap").map((o) => o.start)).toEqual(
      [Date.UTC(2026, 0, 10, 9)],
    );
    expect(codes(snapshot)).toEqual([]);
  });

  it("count a rule's COUNT too: a VTIMEZONE whose COUNT would pass the cap is not used", () => {
    const zone = [
      "BEGIN:VTIMEZONE",
      "TZID:Counted_Zone",
      "BEGIN:STANDARD",
      "DTSTART:19701025T030000",
      "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
      "TZOFFSETFROM:+0200",
      "TZOFFSETTO:+0100",
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:19700329T020000",
      `RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;COUNT=${MAX_TIMEZONE_TRANSITIONS + 1}`,
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0200",
      "END:DAYLIGHT",
      "END:VTIMEZONE",
    ];
    const snapshot = snapshotOf(
      ics("X-WR-TIMEZONE:UTC", ...zone, ...vevent("UID:c@calq.test", "DTSTART;TZID=Counted_Zone:20260710T100000", "SUMMARY:Counted")),
      READ_AT,
    );
    expect(codes(snapshot)).toEqual(["TIMEZONE_TRANSITIONS_CAPPED", "UNKNOWN_TZID"]);
  });
});

describe("nesting depth", () => {
  it("a component nested past the cap is left out with everything in it; the event it stands in is served", () => {
    const depth = MAX_COMPONENT_DEPTH + 5;
    // VCALENDAR and VEVENT, then VALARMs each inside the last.
    const alarms = depth - 2;
    const text = ics(
      ...vevent(
        "UID:deep@calq.test",
        "DTSTART:20261006T090000Z",
        "SUMMARY:Deep alarms",
        ...Array.from({ length: alarms }, () => ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M"]).flat(),
        ...Array.from({ length: alarms }, () => "END:VALARM"),
      ),
      ...NEIGHBOUR,
    );
    const snapshot = snapshotOf(text, READ_AT);
    expect(summaries(snapshot)).toEqual(["Neighbour", "Deep alarms"]);
    expect(codes(snapshot)).toEqual(["NESTING_CAPPED"]);
    const kept = lexed(text).components[0].lines.filter((line) => line.text === "BEGIN:VALARM");
    expect(kept).toHaveLength(MAX_COMPONENT_DEPTH - 2);
  });
});

describe("properties per component", () => {
  it("a VEVENT with more properties than the cap is left out with PROPERTIES_CAPPED; its neighbours are served", () => {
    const text = ics(
      ...vevent(
        "UID:crowded@calq.test",
        "DTSTART:20261007T090000Z",
        "SUMMARY:Crowded",
        ...Array.from({ length: MAX_PROPERTIES_PER_COMPONENT }, (_, i) => `ATTENDEE:mailto:guest-${i}@calq.test`),
      ),
      ...NEIGHBOUR,
    );
    const snapshot = snapshotOf(text, READ_AT);
    expect(summaries(snapshot)).toEqual(["Neighbour"]);
    expect(snapshot.diagnostics.find((found) => found.code === "PROPERTIES_CAPPED")).toMatchObject({
      severity: "error",
      uid: "crowded@calq.test",
    });
  });

  it("the VCALENDAR's own properties past the cap are ignored, with PROPERTIES_CAPPED", () => {
    const text = ics(
      ...Array.from({ length: MAX_PROPERTIES_PER_COMPONENT }, (_, i) => `X-NOTE:${i}`),
      "X-WR-TIMEZONE:Europe/Berlin",
      ...NEIGHBOUR,
    );
    const snapshot = snapshotOf(text, READ_AT);
    // VERSION and PRODID come first: X-WR-TIMEZONE is past the cap, so the calendar has no zone.
    expect(snapshot.zoneSource).toBe("default");
    expect(codes(snapshot)).toEqual(["PROPERTIES_CAPPED"]);
    expect(summaries(snapshot)).toEqual(["Neighbour"]);
  });
});

describe("diagnostics per code", () => {
  it("past the cap, one more diagnostic of the code says how many were not listed", () => {
    const many = MAX_DIAGNOSTICS_PER_CODE + 25;
    const text = ics(
      ...Array.from({ length: many }, (_, i) => vevent(`UID:nostart-${i}@calq.test`, "SUMMARY:No start")).flat(),
      ...NEIGHBOUR,
    );
    const snapshot = snapshotOf(text, READ_AT);
    const missing = snapshot.diagnostics.filter((found) => found.code === "MISSING_DTSTART");
    expect(missing).toHaveLength(MAX_DIAGNOSTICS_PER_CODE + 1);
    expect(missing.at(-1)).toMatchObject({ severity: "error", message: expect.stringContaining("25 more MISSING_DTSTART") });
    expect(summaries(snapshot)).toEqual(["Neighbour"]);
  });

  it("a DiagnosticLog under the cap lists every diagnostic, in report order", () => {
    const log = new DiagnosticLog();
    log.push(diagnostic("UNKNOWN_TZID", "a"), diagnostic("LENIENT_VALUE", "b"), diagnostic("UNKNOWN_TZID", "c"));
    expect(log.list().map((found) => found.message)).toEqual(["a", "b", "c"]);
  });

  it("100,000 nested BEGIN:VEVENT lines give a bounded list: the cap per code and a count", () => {
    const text = ics(Array(100_000).fill("BEGIN:VEVENT").join("\r\n"), Array(100_000).fill("END:VEVENT").join("\r\n"));
    const snapshot = snapshotOf(text, READ_AT);
    expect(snapshot.eventCount).toBe(0);
    expect(snapshot.diagnostics.length).toBeLessThanOrEqual(2 * (MAX_DIAGNOSTICS_PER_CODE + 1) + 1);
  });
});

describe("each cap", () => {
  const caps = Object.entries(bounds) as [string, number][];
  const docs = readFileSync(join(import.meta.dirname, "../../docs/imperfect-feeds.md"), "utf8");
  const descriptions = readFileSync(join(import.meta.dirname, "../../src/ics/diagnostic.ts"), "utf8");

  const statedIn = (text: string, name: string, written: string) =>
    text.split("\n").some((line) => line.includes(name) && line.includes(written));

  it.each(caps)("%s is stated, with its value, in docs/imperfect-feeds.md and in the diagnostic codes' descriptions", (name, value) => {
    const written = value.toLocaleString("en-US");
    expect(statedIn(docs, name, written)).toBe(true);
    expect(statedIn(descriptions, name, written)).toBe(true);
  });
});

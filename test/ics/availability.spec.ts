/**
 * VAVAILABILITY (RFC 7953) as a feed writes it: what calq reads into a
 * snapshot (weekly and daily AVAILABLE periods, the range and PRIORITY of
 * each VAVAILABILITY), that a snapshot carries it from an ingest worker,
 * and what it leaves out, with a diagnostic, rather than half-read.
 */
import { describe, expect, it } from "vitest";
import { buildSnapshot } from "../../src/ingest/snapshot.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { ics, vevent } from "../support/feeds.js";
import { workerBuild } from "../support/worker-build.js";

const readAt = Date.UTC(2026, 9, 1);

function snapshotOf(...lines: string[]) {
  return buildSnapshot(ics("X-WR-TIMEZONE:America/New_York", ...lines), { calendarId: "chi", limits: defaultLimits(readAt), readAt });
}

function vavailability(header: readonly string[], ...available: (readonly string[])[]): string[] {
  return [
    "BEGIN:VAVAILABILITY",
    "UID:hours@calq.test",
    "DTSTAMP:20260901T000000Z",
    ...header,
    ...available.flatMap((lines, i) => [
      "BEGIN:AVAILABLE",
      `UID:slot-${i}@calq.test`,
      "DTSTAMP:20260901T000000Z",
      ...lines,
      "END:AVAILABLE",
    ]),
    "END:VAVAILABILITY",
  ];
}

const WEEKDAYS_8_TO_12 = [
  "DTSTART;TZID=America/New_York:20260105T080000",
  "DTEND;TZID=America/New_York:20260105T120000",
  "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
];

describe("VAVAILABILITY", () => {
  it("reads weekly AVAILABLE periods in their zone, and the range and priority of their VAVAILABILITY", () => {
    const snapshot = snapshotOf(
      ...vevent("UID:e", "DTSTART:20261002T150000Z", "DURATION:PT1H", "SUMMARY:Standup"),
      ...vavailability(["DTSTART;TZID=America/New_York:20260101T000000", "PRIORITY:5"], WEEKDAYS_8_TO_12),
    );
    expect(snapshot.eventCount).toBe(1);
    expect(snapshot.availability).toEqual([
      {
        start: Date.UTC(2026, 0, 1, 5),
        priority: 5,
        available: [
          { zone: "America/New_York", startLocal: Date.UTC(2026, 0, 5, 8), wallMs: 4 * 3_600_000, exactMs: 0, weekdays: [1, 2, 3, 4, 5] },
        ],
      },
    ]);
    expect(snapshot.diagnostics.filter((diagnostic) => diagnostic.code === "UNSUPPORTED_VALUE")).toEqual([]);
  });

  it("reads a daily period with a DURATION and a UTC UNTIL, and a VAVAILABILITY without range or PRIORITY as lowest and for ever", () => {
    const snapshot = snapshotOf(
      ...vavailability([], ["DTSTART;TZID=Europe/Berlin:20261001T220000", "DURATION:PT9H", "RRULE:FREQ=DAILY;UNTIL=20261031T205959Z"]),
    );
    expect(snapshot.availability).toEqual([
      {
        priority: 10,
        available: [
          {
            zone: "Europe/Berlin",
            startLocal: Date.UTC(2026, 9, 1, 22),
            wallMs: 0,
            exactMs: 9 * 3_600_000,
            weekdays: [1, 2, 3, 4, 5, 6, 7],
            // 20:59:59Z on 2026-10-31 is 21:59:59 in Berlin, after the fall-back.
            untilLocal: Date.UTC(2026, 9, 31, 21, 59, 59),
          },
        ],
      },
    ]);
  });

  it("leaves out, with a diagnostic naming its line, a VAVAILABILITY it cannot read exactly", () => {
    const monthly = snapshotOf(
      ...vavailability(
        ["DTSTART;TZID=America/New_York:20260101T000000"],
        ["DTSTART;TZID=America/New_York:20260105T080000", "DTEND;TZID=America/New_York:20260105T120000", "RRULE:FREQ=MONTHLY"],
      ),
    );
    expect(monthly.availability).toEqual([]);
    const diagnostic = monthly.diagnostics.find((candidate) => candidate.code === "UNSUPPORTED_VALUE");
    expect(diagnostic?.message).toContain("FREQ=MONTHLY");
    // Its BEGIN line, after the calendar's four.
    expect(diagnostic?.line).toBe(5);
    const floating = snapshotOf(...vavailability(["DTSTART:20260101T000000"], WEEKDAYS_8_TO_12));
    expect(floating.availability).toEqual([]);
    expect(floating.diagnostics.some((candidate) => candidate.message.includes("floating"))).toBe(true);
  });

  it("travels with the snapshot from an ingest worker, whole or rebuilt from the one before", () => {
    const events = Array.from({ length: 200 }, (_, i) =>
      vevent(`UID:e${i}`, `DTSTART:202610${String(2 + (i % 20)).padStart(2, "0")}T150000Z`, `SUMMARY:e${i}`),
    );
    const text = (title: string) =>
      ics(
        "X-WR-TIMEZONE:America/New_York",
        ...vavailability(["DTSTART;TZID=America/New_York:20260101T000000"], WEEKDAYS_8_TO_12),
        ...events.flat().map((line) => (line === "SUMMARY:e7" ? `SUMMARY:${title}` : line)),
      );
    const built = workerBuild(text("e7"), { readAt });
    expect(built.availability).toEqual(
      snapshotOf(...vavailability(["DTSTART;TZID=America/New_York:20260101T000000"], WEEKDAYS_8_TO_12)).availability,
    );
    const rebuilt = workerBuild(text("moved"), { readAt, previous: built });
    expect(rebuilt.build?.kind).toBe("incremental");
    expect(rebuilt.availability).toEqual(built.availability);
    const without = workerBuild(ics("X-WR-TIMEZONE:America/New_York", ...vevent("UID:e", "DTSTART:20261002T150000Z", "SUMMARY:x")), {
      readAt,
    });
    expect(without.availability).toBeUndefined();
  });
});

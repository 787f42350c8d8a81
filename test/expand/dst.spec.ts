import { describe, expect, it } from "vitest";
import type { Occurrence } from "../../src/expand/occurrence.js";
import { type MatchMode, type Window, windowRelation } from "../../src/search/match.js";
import { formatDate, formatInZone } from "../../src/time/civil.js";
import { instantToLocal } from "../../src/time/zone-rules.js";
import { ianaZone } from "../../src/time/zones.js";
import { anchors, feed, searchAll, snapshotOf } from "../support/feeds.js";

// DST gaps and folds, nominal and exact durations, all-day days in far zones, zero-duration events and the
// calendar's zone, each through real feed text, buildSnapshot and searchPage.

const HOUR = 3_600_000;

function utc(text: string): number {
  const instant = Date.parse(text);
  if (Number.isNaN(instant)) throw new Error(`bad instant ${text}`);
  return instant;
}

function window(start: string, endExclusive: string): Window {
  return { start: utc(start), endExclusive: utc(endExclusive) };
}

/** Each occurrence as its start in the zone (RFC 3339 with offset) and in UTC. */
function startsIn(occurrences: readonly Occurrence[], zoneName: string): [string, string][] {
  const zone = ianaZone(zoneName)!;
  return occurrences.map((occurrence) => [formatInZone(occurrence.start, zone), new Date(occurrence.start).toISOString()]);
}

function hoursOf(occurrence: Occurrence): number {
  return (occurrence.end - occurrence.start) / HOUR;
}

describe("a series keeps the wall-clock time of DTSTART across DST (RFC 5545 §3.3.5)", () => {
  for (const anchor of anchors) {
    describe(anchor.name, () => {
      it("New York, daily 02:30: on 2026-03-08 the slot falls in the spring gap and moves forward by it, to 03:30 EDT", () => {
        const text = feed(
          ["X-WR-TIMEZONE:America/New_York"],
          ["DTSTART;TZID=America/New_York:20200101T023000", "DURATION:PT30M", "RRULE:FREQ=DAILY", "SUMMARY:night job"],
        );
        const found = searchAll(snapshotOf(text, anchor.readAt), window("2026-03-06T00:00:00Z", "2026-03-11T00:00:00Z"), "startWithin");
        expect(startsIn(found, "America/New_York")).toEqual([
          ["2026-03-06T02:30:00-05:00", "2026-03-06T07:30:00.000Z"],
          ["2026-03-07T02:30:00-05:00", "2026-03-07T07:30:00.000Z"],
          ["2026-03-08T03:30:00-04:00", "2026-03-08T07:30:00.000Z"],
          ["2026-03-09T02:30:00-04:00", "2026-03-09T06:30:00.000Z"],
          ["2026-03-10T02:30:00-04:00", "2026-03-10T06:30:00.000Z"],
        ]);
        expect(found.map(hoursOf)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5]);
      });

      it("New York, daily 01:30: on 2026-11-01 the slot falls in the fall fold and takes the first (EDT) instant only", () => {
        const text = feed(
          ["X-WR-TIMEZONE:America/New_York"],
          ["DTSTART;TZID=America/New_York:20200101T013000", "DURATION:PT30M", "RRULE:FREQ=DAILY", "SUMMARY:night job"],
        );
        const snapshot = snapshotOf(text, anchor.readAt);
        const found = searchAll(snapshot, window("2026-10-30T00:00:00Z", "2026-11-04T00:00:00Z"), "startWithin");
        expect(startsIn(found, "America/New_York")).toEqual([
          ["2026-10-30T01:30:00-04:00", "2026-10-30T05:30:00.000Z"],
          ["2026-10-31T01:30:00-04:00", "2026-10-31T05:30:00.000Z"],
          ["2026-11-01T01:30:00-04:00", "2026-11-01T05:30:00.000Z"],
          ["2026-11-02T01:30:00-05:00", "2026-11-02T06:30:00.000Z"],
          ["2026-11-03T01:30:00-05:00", "2026-11-03T06:30:00.000Z"],
        ]);
        // The second 01:30 (EST) of 2026-11-01 is not a slot.
        expect(searchAll(snapshot, window("2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"), "startWithin")).toEqual([]);
      });

      it("Sydney, daily 02:30: on 2026-10-04 the slot falls in the spring gap (02:00 to 03:00) and moves to 03:30 AEDT", () => {
        const text = feed(
          ["X-WR-TIMEZONE:Australia/Sydney"],
          ["DTSTART;TZID=Australia/Sydney:20200101T023000", "DURATION:PT30M", "RRULE:FREQ=DAILY", "SUMMARY:night job"],
        );
        const found = searchAll(snapshotOf(text, anchor.readAt), window("2026-10-01T14:00:00Z", "2026-10-06T14:00:00Z"), "startWithin");
        expect(startsIn(found, "Australia/Sydney")).toEqual([
          ["2026-10-02T02:30:00+10:00", "2026-10-01T16:30:00.000Z"],
          ["2026-10-03T02:30:00+10:00", "2026-10-02T16:30:00.000Z"],
          ["2026-10-04T03:30:00+11:00", "2026-10-03T16:30:00.000Z"],
          ["2026-10-05T02:30:00+11:00", "2026-10-04T15:30:00.000Z"],
          ["2026-10-06T02:30:00+11:00", "2026-10-05T15:30:00.000Z"],
        ]);
      });

      it("Sydney, daily 02:30: on 2026-04-05 the slot falls in the fall fold (03:00 back to 02:00) and takes the first (AEDT) instant only", () => {
        const text = feed(
          ["X-WR-TIMEZONE:Australia/Sydney"],
          ["DTSTART;TZID=Australia/Sydney:20200101T023000", "DURATION:PT30M", "RRULE:FREQ=DAILY", "SUMMARY:night job"],
        );
        const snapshot = snapshotOf(text, anchor.readAt);
        const found = searchAll(snapshot, window("2026-04-02T13:00:00Z", "2026-04-07T13:00:00Z"), "startWithin");
        expect(startsIn(found, "Australia/Sydney")).toEqual([
          ["2026-04-03T02:30:00+11:00", "2026-04-02T15:30:00.000Z"],
          ["2026-04-04T02:30:00+11:00", "2026-04-03T15:30:00.000Z"],
          ["2026-04-05T02:30:00+11:00", "2026-04-04T15:30:00.000Z"],
          ["2026-04-06T02:30:00+10:00", "2026-04-05T16:30:00.000Z"],
          ["2026-04-07T02:30:00+10:00", "2026-04-06T16:30:00.000Z"],
        ]);
        // The second 02:30 (AEST) of 2026-04-05 is not a slot.
        expect(searchAll(snapshot, window("2026-04-04T16:00:00Z", "2026-04-04T17:00:00Z"), "startWithin")).toEqual([]);
      });

      it("a weekly 09:00 series is at 09:00 local on both sides of each change, so its UTC instant moves by an hour", () => {
        const text = feed(
          ["X-WR-TIMEZONE:America/New_York"],
          ["DTSTART;TZID=America/New_York:20200106T090000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;BYDAY=MO"],
        );
        const snapshot = snapshotOf(text, anchor.readAt);
        const spring = searchAll(snapshot, window("2026-03-01T00:00:00Z", "2026-03-17T00:00:00Z"), "overlap");
        expect(startsIn(spring, "America/New_York")).toEqual([
          ["2026-03-02T09:00:00-05:00", "2026-03-02T14:00:00.000Z"],
          ["2026-03-09T09:00:00-04:00", "2026-03-09T13:00:00.000Z"],
          ["2026-03-16T09:00:00-04:00", "2026-03-16T13:00:00.000Z"],
        ]);
        const fall = searchAll(snapshot, window("2026-10-25T00:00:00Z", "2026-11-10T00:00:00Z"), "overlap");
        expect(startsIn(fall, "America/New_York")).toEqual([
          ["2026-10-26T09:00:00-04:00", "2026-10-26T13:00:00.000Z"],
          ["2026-11-02T09:00:00-05:00", "2026-11-02T14:00:00.000Z"],
          ["2026-11-09T09:00:00-05:00", "2026-11-09T14:00:00.000Z"],
        ]);
      });
    });
  }
});

describe("durations across DST (EventOccurrence)", () => {
  for (const anchor of anchors) {
    describe(anchor.name, () => {
      it("DURATION:P1D is one wall-clock day: 23 hours over the spring change, 25 hours over the fall change", () => {
        const text = feed(
          ["X-WR-TIMEZONE:America/New_York"],
          ["UID:spring@calq.test", "DTSTART;TZID=America/New_York:20260306T120000", "DURATION:P1D", "RRULE:FREQ=DAILY;COUNT=3"],
          ["UID:fall@calq.test", "DTSTART;TZID=America/New_York:20261030T120000", "DURATION:P1D", "RRULE:FREQ=DAILY;COUNT=3"],
        );
        const snapshot = snapshotOf(text, anchor.readAt);
        const zone = ianaZone("America/New_York")!;
        const spring = searchAll(snapshot, window("2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z"), "startWithin");
        expect(spring.map(hoursOf)).toEqual([24, 23, 24]);
        expect(spring.map((occurrence) => formatInZone(occurrence.end, zone))).toEqual([
          "2026-03-07T12:00:00-05:00",
          "2026-03-08T12:00:00-04:00",
          "2026-03-09T12:00:00-04:00",
        ]);
        const fall = searchAll(snapshot, window("2026-10-25T00:00:00Z", "2026-11-05T00:00:00Z"), "startWithin");
        expect(fall.map(hoursOf)).toEqual([24, 25, 24]);
        expect(fall.map((occurrence) => formatInZone(occurrence.end, zone))).toEqual([
          "2026-10-31T12:00:00-04:00",
          "2026-11-01T12:00:00-05:00",
          "2026-11-02T12:00:00-05:00",
        ]);
      });

      it("DURATION:P1W is seven wall-clock days (167 hours across the spring change)", () => {
        const text = feed(
          ["X-WR-TIMEZONE:America/New_York"],
          ["DTSTART;TZID=America/New_York:20260302T120000", "DURATION:P1W", "RRULE:FREQ=WEEKLY;COUNT=2"],
        );
        const found = searchAll(snapshotOf(text, anchor.readAt), window("2026-03-01T00:00:00Z", "2026-03-31T00:00:00Z"), "startWithin");
        expect(found.map(hoursOf)).toEqual([167, 168]);
      });

      it("DURATION:PT24H is exactly 24 hours, so across the spring change it ends at 13:00 EDT", () => {
        const text = feed(
          ["X-WR-TIMEZONE:America/New_York"],
          ["DTSTART;TZID=America/New_York:20260306T120000", "DURATION:PT24H", "RRULE:FREQ=DAILY;COUNT=3"],
        );
        const found = searchAll(snapshotOf(text, anchor.readAt), window("2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z"), "startWithin");
        expect(found.map(hoursOf)).toEqual([24, 24, 24]);
        expect(formatInZone(found[1].end, ianaZone("America/New_York")!)).toBe("2026-03-08T13:00:00-04:00");
      });

      it("a DTEND gives every occurrence the same exact duration, even one that crosses a change", () => {
        const text = feed(
          ["X-WR-TIMEZONE:America/New_York"],
          [
            "UID:spring@calq.test",
            "DTSTART;TZID=America/New_York:20260306T220000",
            "DTEND;TZID=America/New_York:20260307T030000",
            "RRULE:FREQ=DAILY;COUNT=3",
          ],
          [
            "UID:fall@calq.test",
            "DTSTART;TZID=America/New_York:20261030T220000",
            "DTEND;TZID=America/New_York:20261031T030000",
            "RRULE:FREQ=DAILY;COUNT=3",
          ],
        );
        const snapshot = snapshotOf(text, anchor.readAt);
        const zone = ianaZone("America/New_York")!;
        const spring = searchAll(snapshot, window("2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z"), "startWithin");
        expect(spring.map(hoursOf)).toEqual([5, 5, 5]);
        expect(formatInZone(spring[1].end, zone)).toBe("2026-03-08T04:00:00-04:00");
        const fall = searchAll(snapshot, window("2026-10-25T00:00:00Z", "2026-11-05T00:00:00Z"), "startWithin");
        expect(fall.map(hoursOf)).toEqual([5, 5, 5]);
        expect(formatInZone(fall[1].end, zone)).toBe("2026-11-01T02:00:00-05:00");
      });
    });
  }
});

describe("the fold example of the contract (SearchEventsRequest)", () => {
  const readAt = anchors[0].readAt;
  const foldWindow = window("2026-11-01T06:30:00Z", "2026-11-01T06:40:00Z");

  for (const [written, end] of [
    ["with DTEND in UTC", "DTEND:20261101T064500Z"],
    ["with DURATION:PT90M", "DURATION:PT90M"],
  ] as const) {
    it(`an event from 01:15 EDT to 01:45 EST on 2026-11-01 in New York lasts 90 minutes (${written})`, () => {
      const text = feed(["X-WR-TIMEZONE:America/New_York"], ["DTSTART;TZID=America/New_York:20261101T011500", end]);
      const [found] = searchAll(snapshotOf(text, readAt), window("2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z"), "overlap");
      expect(new Date(found.start).toISOString()).toBe("2026-11-01T05:15:00.000Z");
      expect(new Date(found.end).toISOString()).toBe("2026-11-01T06:45:00.000Z");
      expect(hoursOf(found)).toBe(1.5);
    });

    it(`it overlaps the window 01:30 to 01:40 EST (06:30Z to 06:40Z) and spans it, but does not start within it (${written})`, () => {
      const text = feed(["X-WR-TIMEZONE:America/New_York"], ["DTSTART;TZID=America/New_York:20261101T011500", end]);
      const snapshot = snapshotOf(text, readAt);
      const found = searchAll(snapshot, foldWindow, "overlap");
      expect(found).toHaveLength(1);
      expect(windowRelation(found[0], foldWindow)).toBe("spans");
      expect(searchAll(snapshot, foldWindow, "startWithin")).toEqual([]);
      expect(searchAll(snapshot, window("2026-11-01T06:45:00Z", "2026-11-01T07:00:00Z"), "overlap")).toEqual([]);
    });
  }
});

describe("all-day events are days of the calendar's zone (EventOccurrence)", () => {
  const hoChiMinhDay = feed(["X-WR-TIMEZONE:Asia/Ho_Chi_Minh"], ["DTSTART;VALUE=DATE:20261002", "SUMMARY:Quoc Khanh rehearsal"]);

  it("an all-day event on 2026-10-02 in Ho Chi Minh City is [2026-10-01T17:00Z, 2026-10-02T17:00Z) and keeps its dates", () => {
    const snapshot = snapshotOf(hoChiMinhDay, anchors[0].readAt);
    const [found] = searchAll(snapshot, window("2026-09-01T00:00:00Z", "2026-11-01T00:00:00Z"), "overlap");
    expect(new Date(found.start).toISOString()).toBe("2026-10-01T17:00:00.000Z");
    expect(new Date(found.end).toISOString()).toBe("2026-10-02T17:00:00.000Z");
    expect(found.details.allDay).toBe(true);
    expect(found.details.eventTimezone).toBe("");
    expect(formatDate(instantToLocal(snapshot.zone, found.start))).toBe("2026-10-02");
    expect(formatDate(instantToLocal(snapshot.zone, found.end))).toBe("2026-10-03");
  });

  // Caller days as instants: Pacific/Kiritimati is UTC+14, Pacific/Pago_Pago is UTC-11, neither has DST.
  const callerDays = [
    { caller: "Kiritimati (+14)", day: "2026-09-30", start: "2026-09-29T10:00:00Z", overlap: false, startWithin: false },
    { caller: "Kiritimati (+14)", day: "2026-10-01", start: "2026-09-30T10:00:00Z", overlap: false, startWithin: false },
    { caller: "Kiritimati (+14)", day: "2026-10-02", start: "2026-10-01T10:00:00Z", overlap: true, startWithin: true },
    { caller: "Kiritimati (+14)", day: "2026-10-03", start: "2026-10-02T10:00:00Z", overlap: true, startWithin: false },
    { caller: "Kiritimati (+14)", day: "2026-10-04", start: "2026-10-03T10:00:00Z", overlap: false, startWithin: false },
    { caller: "Pago Pago (-11)", day: "2026-09-30", start: "2026-09-30T11:00:00Z", overlap: false, startWithin: false },
    { caller: "Pago Pago (-11)", day: "2026-10-01", start: "2026-10-01T11:00:00Z", overlap: true, startWithin: true },
    { caller: "Pago Pago (-11)", day: "2026-10-02", start: "2026-10-02T11:00:00Z", overlap: true, startWithin: false },
    { caller: "Pago Pago (-11)", day: "2026-10-03", start: "2026-10-03T11:00:00Z", overlap: false, startWithin: false },
  ];
  for (const { caller, day, start, overlap, startWithin } of callerDays) {
    it(`a caller in ${caller} searching their ${day} ${overlap ? "finds" : "does not find"} it by overlap, ${startWithin ? "and does" : "and does not"} by start`, () => {
      const snapshot = snapshotOf(hoChiMinhDay, anchors[0].readAt);
      const callerDay: Window = { start: utc(start), endExclusive: utc(start) + 24 * HOUR };
      const byOverlap = searchAll(snapshot, callerDay, "overlap");
      expect(byOverlap).toHaveLength(overlap ? 1 : 0);
      expect(searchAll(snapshot, callerDay, "startWithin")).toHaveLength(startWithin ? 1 : 0);
      for (const found of byOverlap) {
        expect(found.details.allDay).toBe(true);
        expect(formatDate(instantToLocal(snapshot.zone, found.start))).toBe("2026-10-02");
        expect(formatDate(instantToLocal(snapshot.zone, found.end))).toBe("2026-10-03");
      }
    });
  }

  it("a DTEND;VALUE=DATE ends at the start of that day: 2026-10-02 to 2026-10-05 is three days", () => {
    const text = feed(["X-WR-TIMEZONE:Asia/Ho_Chi_Minh"], ["DTSTART;VALUE=DATE:20261002", "DTEND;VALUE=DATE:20261005", "SUMMARY:retreat"]);
    const [found] = searchAll(snapshotOf(text, anchors[0].readAt), window("2026-09-01T00:00:00Z", "2026-11-01T00:00:00Z"), "overlap");
    expect(new Date(found.start).toISOString()).toBe("2026-10-01T17:00:00.000Z");
    expect(new Date(found.end).toISOString()).toBe("2026-10-04T17:00:00.000Z");
  });

  it("the configured zone, not X-WR-TIMEZONE, decides which instants an all-day day covers", () => {
    const snapshot = snapshotOf(hoChiMinhDay, anchors[0].readAt, "Europe/Paris");
    const [found] = searchAll(snapshot, window("2026-09-01T00:00:00Z", "2026-11-01T00:00:00Z"), "overlap");
    expect(new Date(found.start).toISOString()).toBe("2026-10-01T22:00:00.000Z");
    expect(new Date(found.end).toISOString()).toBe("2026-10-02T22:00:00.000Z");
  });

  it("a day that starts at 01:00 because DST begins at midnight (Santiago, 2026-09-06) starts then and lasts 23 hours", () => {
    const text = feed(["X-WR-TIMEZONE:America/Santiago"], ["DTSTART;VALUE=DATE:20260906", "SUMMARY:Sunday"]);
    const [found] = searchAll(snapshotOf(text, anchors[0].readAt), window("2026-09-01T00:00:00Z", "2026-09-10T00:00:00Z"), "overlap");
    expect(formatInZone(found.start, ianaZone("America/Santiago")!)).toBe("2026-09-06T01:00:00-03:00");
    expect(new Date(found.start).toISOString()).toBe("2026-09-06T04:00:00.000Z");
    expect(formatInZone(found.end, ianaZone("America/Santiago")!)).toBe("2026-09-07T00:00:00-03:00");
    expect(hoursOf(found)).toBe(23);
  });

  it("an all-day event does not overlap the next day of its own zone when its day started late (Santiago, 2026-09-06)", () => {
    const text = feed(["X-WR-TIMEZONE:America/Santiago"], ["DTSTART;VALUE=DATE:20260906", "SUMMARY:Sunday"]);
    const nextDay = window("2026-09-07T03:00:00Z", "2026-09-08T03:00:00Z");
    expect(searchAll(snapshotOf(text, anchors[0].readAt), nextDay, "overlap")).toEqual([]);
  });

  for (const anchor of anchors) {
    it(`a daily all-day series over the spring change has a 23-hour day on 2026-03-08 (${anchor.name})`, () => {
      const text = feed(["X-WR-TIMEZONE:America/New_York"], ["DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=DAILY"]);
      const found = searchAll(snapshotOf(text, anchor.readAt), window("2026-03-07T12:00:00Z", "2026-03-09T12:00:00Z"), "startWithin");
      expect(found.map((occurrence) => [new Date(occurrence.start).toISOString(), hoursOf(occurrence)])).toEqual([
        ["2026-03-08T05:00:00.000Z", 23],
        ["2026-03-09T04:00:00.000Z", 24],
      ]);
      expect(found.every((occurrence) => occurrence.details.allDay)).toBe(true);
    });
  }
});

describe("zero-duration events are instants (EventOccurrence, RFC 4791 §9.9)", () => {
  const instants = feed(
    ["X-WR-TIMEZONE:UTC"],
    ["UID:dtstart-only@calq.test", "DTSTART:20261002T090000Z", "SUMMARY:deadline"],
    ["UID:dtend-equals-dtstart@calq.test", "DTSTART:20261002T090000Z", "DTEND:20261002T090000Z", "SUMMARY:reminder"],
    ["UID:daily-instant@calq.test", "DTSTART:20200101T090000Z", "RRULE:FREQ=DAILY", "SUMMARY:daily check"],
  );
  const modes: MatchMode[] = ["overlap", "startWithin"];

  for (const anchor of anchors) {
    for (const mode of modes) {
      it(`instants exactly at the window start match in ${mode} mode (${anchor.name})`, () => {
        const atStart = window("2026-10-02T09:00:00Z", "2026-10-02T10:00:00Z");
        const found = searchAll(snapshotOf(instants, anchor.readAt), atStart, mode);
        expect(found.map((occurrence) => occurrence.details.uid).sort()).toEqual([
          "daily-instant@calq.test",
          "dtend-equals-dtstart@calq.test",
          "dtstart-only@calq.test",
        ]);
        for (const occurrence of found) {
          expect(occurrence.end).toBe(occurrence.start);
          expect(windowRelation(occurrence, atStart)).toBe("instant");
        }
      });

      it(`instants exactly at the window end do not match in ${mode} mode (${anchor.name})`, () => {
        const endingAt = window("2026-10-02T08:00:00Z", "2026-10-02T09:00:00Z");
        expect(searchAll(snapshotOf(instants, anchor.readAt), endingAt, mode)).toEqual([]);
      });
    }
  }
});

describe("floating times are read in the calendar's zone (EventOccurrence)", () => {
  const readAt = anchors[0].readAt;
  const around = window("2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z");

  it("with X-WR-TIMEZONE:Asia/Ho_Chi_Minh, a floating 09:00 is 02:00Z", () => {
    const text = feed(["X-WR-TIMEZONE:Asia/Ho_Chi_Minh"], ["DTSTART:20261002T090000", "DURATION:PT1H"]);
    const snapshot = snapshotOf(text, readAt);
    expect(snapshot.zoneSource).toBe("feed");
    const [found] = searchAll(snapshot, around, "overlap");
    expect(new Date(found.start).toISOString()).toBe("2026-10-02T02:00:00.000Z");
    expect(found.details.eventTimezone).toBe("");
    expect(snapshot.diagnostics).toEqual([]);
  });

  it("the configured zone wins over X-WR-TIMEZONE: Europe/Berlin reads a floating 09:00 as 07:00Z (CEST)", () => {
    const text = feed(["X-WR-TIMEZONE:Asia/Ho_Chi_Minh"], ["DTSTART:20261002T090000", "DURATION:PT1H"]);
    const snapshot = snapshotOf(text, readAt, "Europe/Berlin");
    expect(snapshot.zoneSource).toBe("config");
    expect(snapshot.zone.name).toBe("Europe/Berlin");
    const [found] = searchAll(snapshot, around, "overlap");
    expect(new Date(found.start).toISOString()).toBe("2026-10-02T07:00:00.000Z");
  });

  it("a TZID on DTSTART wins over the calendar's zone", () => {
    const text = feed(["X-WR-TIMEZONE:America/New_York"], ["DTSTART;TZID=Asia/Tokyo:20261002T090000", "DURATION:PT1H"]);
    const [found] = searchAll(snapshotOf(text, readAt), around, "overlap");
    expect(new Date(found.start).toISOString()).toBe("2026-10-02T00:00:00.000Z");
    expect(found.details.eventTimezone).toBe("Asia/Tokyo");
  });

  it("a floating daily 09:00 series keeps 09:00 in the calendar's zone across the fall change", () => {
    const text = feed([], ["DTSTART:20261030T090000", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=4"]);
    const found = searchAll(
      snapshotOf(text, readAt, "America/New_York"),
      window("2026-10-25T00:00:00Z", "2026-11-05T00:00:00Z"),
      "overlap",
    );
    expect(found.map((occurrence) => new Date(occurrence.start).toISOString())).toEqual([
      "2026-10-30T13:00:00.000Z",
      "2026-10-31T13:00:00.000Z",
      "2026-11-01T14:00:00.000Z",
      "2026-11-02T14:00:00.000Z",
    ]);
  });

  it("with no zone at all, floating times and all-day days are read in UTC and NO_CALENDAR_ZONE is reported", () => {
    const text = feed(
      [],
      ["UID:floating@calq.test", "DTSTART:20261002T090000", "DURATION:PT1H"],
      ["UID:all-day@calq.test", "DTSTART;VALUE=DATE:20261002"],
    );
    const snapshot = snapshotOf(text, readAt);
    expect(snapshot.zoneSource).toBe("default");
    expect(snapshot.zone.name).toBe("UTC");
    expect(snapshot.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["NO_CALENDAR_ZONE"]);
    const found = searchAll(snapshot, around, "overlap");
    expect(found.map((occurrence) => [occurrence.details.uid, new Date(occurrence.start).toISOString()])).toEqual([
      ["all-day@calq.test", "2026-10-02T00:00:00.000Z"],
      ["floating@calq.test", "2026-10-02T09:00:00.000Z"],
    ]);
  });

  it("an X-WR-TIMEZONE that is not a zone is reported and ignored, and UTC is used", () => {
    const text = feed(["X-WR-TIMEZONE:Mars/Olympus_Mons"], ["DTSTART:20261002T090000", "DURATION:PT1H"]);
    const snapshot = snapshotOf(text, readAt);
    expect(snapshot.zoneSource).toBe("default");
    expect(snapshot.diagnostics.map((diagnostic) => diagnostic.code).sort()).toEqual(["NO_CALENDAR_ZONE", "UNKNOWN_CALENDAR_ZONE"]);
    const [found] = searchAll(snapshot, around, "overlap");
    expect(new Date(found.start).toISOString()).toBe("2026-10-02T09:00:00.000Z");
  });
});

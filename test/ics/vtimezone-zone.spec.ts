/**
 * Zones a feed defines in its own VTIMEZONE, read by calq (docs/imperfect-feeds.md,
 * "Zones a feed defines"): every observance's DTSTART, every RDATE value and
 * every instance of a yearly rule is a change. Each zone here is written after a
 * real zone and compared with it, the IANA zone, at wall times on every day of
 * decades: 10:00 on both sides of each change, and the night hours that fall
 * in its gaps and folds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCalendar } from "../../src/ics/parse-calendar.js";
import { civil } from "../../src/time/civil.js";
import { DAY_MS } from "../../src/time/units.js";
import { resolveLocal, type ZoneRules } from "../../src/time/zone-rules.js";
import { ianaZone } from "../../src/time/zones.js";
import { ics, vevent } from "../support/feeds.js";

const IMPERFECT = join(import.meta.dirname, "../fixtures/imperfect");

/** The zone the first event of `text` is read in. */
function zoneOfFirstEvent(text: string): ZoneRules {
  const [event] = parseCalendar(text).events;
  if (event.start.kind !== "date-time" || event.start.zone === undefined) throw new Error("the first event has no zone");
  return event.start.zone;
}

/** A feed of one VTIMEZONE (its TZID Test_Zone) and one event in it. */
function zoneOf(...observances: string[]): ZoneRules {
  return zoneOfFirstEvent(
    ics(
      "BEGIN:VTIMEZONE",
      "TZID:Test_Zone",
      ...observances,
      "END:VTIMEZONE",
      ...vevent("UID:e@calq.test", "DTSTART;TZID=Test_Zone:20260101T100000"),
    ),
  );
}

/** Days (as local midnights) from `from` up to `to`, exclusive. */
function* days(from: number, to: number): Generator<number> {
  for (let day = from; day < to; day += DAY_MS) yield day;
}

/** The days whose wall times at `hours` resolve differently in the two zones, as "date hour" strings (none when they agree). */
function disagreements(zone: ZoneRules, model: ZoneRules, from: number, to: number, hours: readonly number[]): string[] {
  const differ: string[] = [];
  for (const day of days(from, to)) {
    for (const hour of hours) {
      const local = day + hour * 3_600_000;
      if (JSON.stringify(resolveLocal(zone, local)) !== JSON.stringify(resolveLocal(model, local))) {
        differ.push(`${new Date(day).toISOString().slice(0, 10)} ${hour}h`);
      }
    }
  }
  return differ;
}

const EUROPE = { standard: ["TZOFFSETFROM:+0200", "TZOFFSETTO:+0100"], daylight: ["TZOFFSETFROM:+0100", "TZOFFSETTO:+0200"] };
const AMERICA = { standard: ["TZOFFSETFROM:-0400", "TZOFFSETTO:-0500"], daylight: ["TZOFFSETFROM:-0500", "TZOFFSETTO:-0400"] };

describe("a VTIMEZONE that lists its changes with RDATE", () => {
  it("reads as the zone it was written from, at 10:00 and in the night hours, every day of the years it lists (khal's pattern)", () => {
    const zone = zoneOfFirstEvent(readFileSync(join(IMPERFECT, "rdate-vtimezone.ics"), "utf8"));
    // From the STANDARD's DTSTART (2014-10-26) to the last listed change (2030-10-27) and a day past it.
    const differ = disagreements(zone, ianaZone("Europe/Berlin")!, civil(2014, 10, 26), civil(2030, 10, 28), [10, 1.5, 2.5]);
    expect(differ).toEqual([]);
  });

  it("reads an RDATE that is a date at its observance's DTSTART time, and one with a Z as that instant", () => {
    const zone = zoneOf(
      "BEGIN:STANDARD",
      "DTSTART:20251026T030000",
      "RDATE;VALUE=DATE:20261025",
      ...EUROPE.standard,
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:20260329T020000",
      // 01:00 UTC is 02:00 at +01:00.
      "RDATE:20270328T010000Z",
      ...EUROPE.daylight,
      "END:DAYLIGHT",
    );
    expect(disagreements(zone, ianaZone("Europe/Berlin")!, civil(2025, 10, 26), civil(2027, 10, 1), [10, 2.5])).toEqual([]);
  });

  it("before its first change, keeps that change's TZOFFSETFROM", () => {
    const zone = zoneOf("BEGIN:STANDARD", "DTSTART:20141026T030000", "RDATE:20151025T030000", ...EUROPE.standard, "END:STANDARD");
    expect(zone.offsetAt(Date.UTC(2014, 9, 26, 0, 59, 59))).toBe(2 * 3_600_000);
    expect(zone.offsetAt(Date.UTC(2014, 9, 26, 1))).toBe(3_600_000);
    expect(zone.offsetAt(Date.UTC(1950, 0, 1))).toBe(2 * 3_600_000);
  });
});

describe("a VTIMEZONE with yearly rules", () => {
  it("reads each observance from its own DTSTART up to its UNTIL, as the zone it was written from, for fifty years", () => {
    const zone = zoneOfFirstEvent(readFileSync(join(IMPERFECT, "rrule-vtimezone.ics"), "utf8"));
    const differ = disagreements(zone, ianaZone("America/New_York")!, civil(1990, 1, 1), civil(2040, 1, 1), [10, 1.5, 2.5]);
    expect(differ).toEqual([]);
  });

  it("reads Outlook's rules from DTSTART in 1601 (the last Sunday of March and of October), far ahead too", () => {
    const zone = zoneOf(
      "BEGIN:STANDARD",
      "DTSTART:16011028T030000",
      "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
      ...EUROPE.standard,
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:16010325T020000",
      "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
      ...EUROPE.daylight,
      "END:DAYLIGHT",
    );
    const berlin = ianaZone("Europe/Berlin")!;
    expect(disagreements(zone, berlin, civil(1996, 1, 1), civil(2040, 1, 1), [10, 2.5])).toEqual([]);
    expect(disagreements(zone, berlin, civil(2190, 1, 1), civil(2200, 1, 1), [10])).toEqual([]);
  });

  it("reads BYDAY=SU with BYMONTHDAY=8..14 as the second Sunday, as BYDAY=2SU", () => {
    const observances = (spring: string) => [
      "BEGIN:DAYLIGHT",
      "DTSTART:20070311T020000",
      spring,
      ...AMERICA.daylight,
      "END:DAYLIGHT",
      "BEGIN:STANDARD",
      "DTSTART:20071104T020000",
      "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=SU;BYMONTHDAY=1,2,3,4,5,6,7",
      ...AMERICA.standard,
      "END:STANDARD",
    ];
    const byMonthDay = zoneOf(...observances("RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=SU;BYMONTHDAY=8,9,10,11,12,13,14"));
    const byOrdinal = zoneOf(...observances("RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU"));
    expect(disagreements(byMonthDay, byOrdinal, civil(2008, 1, 1), civil(2030, 1, 1), [10, 2.5])).toEqual([]);
    expect(disagreements(byMonthDay, ianaZone("America/New_York")!, civil(2008, 1, 1), civil(2030, 1, 1), [10, 1.5])).toEqual([]);
  });

  it("ends a rule with COUNT after that many changes, DTSTART the first", () => {
    const zone = zoneOf(
      "BEGIN:STANDARD",
      "DTSTART:20191027T030000",
      "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
      ...EUROPE.standard,
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:20200329T020000",
      "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;COUNT=3",
      ...EUROPE.daylight,
      "END:DAYLIGHT",
    );
    const summer = (year: number) => zone.offsetAt(Date.UTC(year, 6, 1)) / 3_600_000;
    expect([2020, 2021, 2022, 2023, 2024].map(summer)).toEqual([2, 2, 2, 1, 1]);
  });
});

describe("the other forms of a yearly rule", () => {
  /** The zone's offset, in hours, at noon UTC of each date. */
  const hoursOn = (zone: ZoneRules, ...dates: [number, number, number][]) =>
    dates.map(([year, month, day]) => zone.offsetAt(Date.UTC(year, month - 1, day, 12)) / 3_600_000);

  it("without BY parts recurs on DTSTART's date; BYMONTHDAY=-1 is the month's last day", () => {
    const zone = zoneOf(
      "BEGIN:STANDARD",
      "DTSTART:20001025T030000",
      "RRULE:FREQ=YEARLY",
      ...EUROPE.standard,
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:20000331T020000",
      "RRULE:FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=-1",
      ...EUROPE.daylight,
      "END:DAYLIGHT",
    );
    expect(hoursOn(zone, [2026, 3, 30], [2026, 3, 31], [2026, 10, 24], [2026, 10, 25])).toEqual([1, 2, 2, 1]);
  });

  it("with INTERVAL=2 recurs every other year from DTSTART's", () => {
    const zone = zoneOf(
      "BEGIN:STANDARD",
      "DTSTART:20001025T030000",
      "RRULE:FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=25",
      ...EUROPE.standard,
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:20000331T020000",
      "RRULE:FREQ=YEARLY;INTERVAL=2;BYMONTH=3;BYMONTHDAY=31",
      ...EUROPE.daylight,
      "END:DAYLIGHT",
    );
    expect(hoursOn(zone, [2026, 7, 1], [2027, 7, 1], [2028, 7, 1])).toEqual([2, 1, 2]);
  });

  it.each([
    ["a date", "UNTIL=20100328"],
    ["a local time", "UNTIL=20100328T020000"],
  ])("with UNTIL as %s ends on that day, the day included", (_, until) => {
    const zone = zoneOf(
      "BEGIN:STANDARD",
      "DTSTART:20001029T030000",
      "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
      ...EUROPE.standard,
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:20010325T020000",
      `RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;${until}`,
      ...EUROPE.daylight,
      "END:DAYLIGHT",
    );
    expect(hoursOn(zone, [2009, 7, 1], [2010, 7, 1], [2011, 7, 1])).toEqual([2, 2, 1]);
  });

  it("that never falls on a day (30 February) makes no change; DTSTART still does", () => {
    const zone = zoneOf(
      "BEGIN:STANDARD",
      "DTSTART:20001029T030000",
      ...EUROPE.standard,
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:20000201T020000",
      "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30",
      ...EUROPE.daylight,
      "END:DAYLIGHT",
    );
    expect(hoursOn(zone, [2000, 1, 15], [2000, 7, 1], [2026, 7, 1])).toEqual([1, 2, 1]);
  });

  it("beside an RDATE period (its start is the change) and a component that is no observance", () => {
    const zone = zoneOf(
      "BEGIN:STANDARD",
      "DTSTART:20251026T030000",
      "RDATE;VALUE=PERIOD:20261025T030000/PT1H",
      ...EUROPE.standard,
      "END:STANDARD",
      "BEGIN:X-NOTE",
      "SUMMARY:not an observance",
      "END:X-NOTE",
      "BEGIN:DAYLIGHT",
      "DTSTART:20260329T020000",
      ...EUROPE.daylight,
      "END:DAYLIGHT",
    );
    expect(hoursOn(zone, [2026, 3, 1], [2026, 7, 1], [2026, 11, 1])).toEqual([1, 2, 1]);
  });
});

describe("a VTIMEZONE calq cannot read", () => {
  it.each([
    ["a DTSTART in UTC", ["BEGIN:STANDARD", "DTSTART:19701025T030000Z", ...EUROPE.standard, "END:STANDARD"]],
    ["no observance", ["X-NOTE:none"]],
    ["no DTSTART", ["BEGIN:STANDARD", ...EUROPE.standard, "END:STANDARD"]],
    ["an offset of 25 hours", ["BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+2500", "END:STANDARD"]],
    [
      "BYMONTHDAY=0",
      ["BEGIN:STANDARD", "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=0", ...EUROPE.standard, "END:STANDARD"],
    ],
    [
      "a sixth Sunday",
      ["BEGIN:STANDARD", "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=6SU", ...EUROPE.standard, "END:STANDARD"],
    ],
  ])("with %s is not used: its TZID is read without it, with UNREADABLE_TIMEZONE", (_, observances) => {
    const parsed = parseCalendar(
      ics(
        "BEGIN:VTIMEZONE",
        "TZID:Test_Zone",
        ...observances,
        "END:VTIMEZONE",
        ...vevent("UID:e@calq.test", "DTSTART;TZID=Test_Zone:20260101T100000"),
      ),
    );
    expect(parsed.diagnostics.map((found) => found.code)).toEqual(["UNREADABLE_TIMEZONE", "UNKNOWN_TZID"]);
  });

  it.each([
    ["a rule by the hour", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;BYHOUR=3"],
    ["a monthly rule", "RRULE:FREQ=MONTHLY;BYDAY=-1SU"],
    ["BYDAY without BYMONTH", "RRULE:FREQ=YEARLY;BYDAY=-1SU"],
  ])("with %s is not used: its TZID is read without it, with UNREADABLE_TIMEZONE", (_, rule) => {
    const parsed = parseCalendar(
      ics(
        "BEGIN:VTIMEZONE",
        "TZID:Test_Zone",
        "BEGIN:STANDARD",
        "DTSTART:19701025T030000",
        rule,
        ...EUROPE.standard,
        "END:STANDARD",
        "END:VTIMEZONE",
        ...vevent("UID:e@calq.test", "DTSTART;TZID=Test_Zone:20260101T100000"),
      ),
    );
    expect(parsed.diagnostics.map((found) => found.code)).toEqual(["UNREADABLE_TIMEZONE", "UNKNOWN_TZID"]);
    expect(parsed.events[0].start).toMatchObject({ kind: "date-time", zone: undefined });
  });
});

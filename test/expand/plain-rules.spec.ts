import fc from "fast-check";
import rrule from "rrule";
import { describe, expect, it } from "vitest";
import { RecurrenceRule } from "../../src/expand/recurrence-rule.js";
import { UTC_ZONE } from "../../src/time/zone-rules.js";

const { RRule } = rrule;
const DAY = 86_400_000;
const DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
const wall = (local: number) => new Date(local).toISOString().slice(0, 19);

/** The dates rrule itself gives for the rule from its DTSTART (floating: wall times as UTC), in [from, to). */
function byRrule(options: Record<string, unknown>, startLocal: number, from: number, to: number): number[] {
  const rule = new RRule({ ...options, dtstart: new Date(startLocal) }, true);
  return rule
    .between(new Date(from), new Date(to), true)
    .map((date) => date.getTime())
    .filter((local) => local >= startLocal && local < to);
}

describe("daily and weekly rules of weekdays and times, counted out without rrule", () => {
  it("give the dates rrule gives, from any DTSTART, over any range", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("DAILY", "WEEKLY"),
        fc.integer({ min: 1, max: 5 }),
        fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }), { nil: undefined }),
        fc.integer({ min: 0, max: 6 }),
        fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
        fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 2 }), { nil: undefined }),
        // DTSTART from 1950 to 2050, to the second; a range starting up to 3 years either side, up to 100 days long.
        fc
          .integer({ min: -20 * 365, max: 80 * 365 })
          .chain((day) =>
            fc.tuple(
              fc.constant(day * DAY),
              fc.integer({ min: 0, max: DAY / 1000 - 1 }),
              fc.integer({ min: -1100, max: 1100 }),
              fc.integer({ min: 1, max: 100 }),
              fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
            ),
          ),
        (freq, interval, byday, wkst, byhour, byminute, [startDay, startSecond, fromDays, lengthDays, untilDays]) => {
          const startLocal = startDay + startSecond * 1000;
          const from = startDay + fromDays * DAY + (startSecond % 3600) * 1000;
          const to = from + lengthDays * DAY;
          const until = untilDays === undefined ? undefined : startLocal + untilDays * DAY;
          const value: Record<string, unknown> = { freq, interval, wkst: DAYS[wkst] };
          if (byday !== undefined) value.byday = byday.map((day) => DAYS[day]);
          if (byhour !== undefined) value.byhour = byhour;
          if (byminute !== undefined) value.byminute = byminute;
          if (until !== undefined) value.until = `${wall(until)}`;
          const ours: number[] = [];
          new RecurrenceRule(value, startLocal, UTC_ZONE, false).each(from, to, (local) => ours.push(local) > 0);
          const start = new Date(startLocal);
          const theirs = byRrule(
            {
              freq: freq === "DAILY" ? RRule.DAILY : RRule.WEEKLY,
              interval,
              wkst,
              byweekday: byday ?? null,
              byhour: byhour === undefined ? [start.getUTCHours()] : [...byhour].sort((a, b) => a - b),
              byminute: byminute === undefined ? [start.getUTCMinutes()] : [...byminute].sort((a, b) => a - b),
              bysecond: [start.getUTCSeconds()],
              until: until === undefined ? null : new Date(until),
            },
            startLocal,
            from,
            to,
          );
          expect(ours.map(wall)).toEqual(theirs.map(wall));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("stop where the visitor says", () => {
    const rule = new RecurrenceRule({ freq: "WEEKLY", byday: ["MO", "WE", "FR"] }, Date.UTC(2026, 0, 5, 9), UTC_ZONE, false);
    const seen: string[] = [];
    rule.each(Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1), (local) => seen.push(wall(local)) < 4);
    expect(seen).toEqual(["2026-01-05T09:00:00", "2026-01-07T09:00:00", "2026-01-09T09:00:00", "2026-01-12T09:00:00"]);
  });
});

describe("times of day written out of order", () => {
  it("come out ascending, whatever the rule (rrule alone keeps the written order)", () => {
    const rule = new RecurrenceRule({ freq: "MONTHLY", bymonthday: [1], byhour: [10, 8] }, Date.UTC(2026, 0, 1, 8), UTC_ZONE, false);
    const seen: string[] = [];
    rule.each(Date.UTC(2026, 0, 1), Date.UTC(2026, 2, 1), (local) => seen.push(wall(local)) > 0);
    expect(seen).toEqual(["2026-01-01T08:00:00", "2026-01-01T10:00:00", "2026-02-01T08:00:00", "2026-02-01T10:00:00"]);
  });
});

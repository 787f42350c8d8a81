/**
 * Meeting times against brute force: every candidate, each attendee's
 * standing, the ranking, the count of fits and the reason nothing fits
 * equal a minute-by-minute reading with luxon (an independent reading of
 * the zones), across DST changes in New York, Berlin, Lord Howe (a
 * 30-minute change) and Kolkata (none), with attendees in different zones
 * and buffers around each meeting.
 */
import fc from "fast-check";
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { type BusyInterval, mergeBusy } from "../../src/search/busy-time.js";
import {
  type Availability,
  findMeetingTimesSteps,
  firstFitSteps,
  type MeetingAttendee,
  type MeetingCandidate,
  type MeetingQuery,
  type NoFit,
} from "../../src/search/meeting-times.js";
import { weeklyWorkingTime } from "../../src/search/working-time.js";
import { runAtOnce } from "../../src/stepwise.js";
import { ianaZone } from "../../src/time/zones.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const ZONES = ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata"];

/** Instants near a DST change of the first three zones (Kolkata has none). */
const CHANGES = [
  Date.UTC(2026, 10, 1, 6), // New York falls back
  Date.UTC(2026, 2, 8, 7), // New York springs forward
  Date.UTC(2026, 2, 29, 1), // Berlin springs forward
  Date.UTC(2026, 9, 25, 1), // Berlin falls back
  Date.UTC(2026, 3, 4, 15), // Lord Howe falls back by 30 minutes
  Date.UTC(2026, 9, 3, 15), // Lord Howe springs forward by 30 minutes
];

interface Hours {
  readonly days: number[];
  readonly startMinute: number;
  readonly endMinute: number;
}

interface AttendeeCase {
  readonly required: boolean;
  readonly zone: string;
  readonly hours?: Hours;
  readonly busy: BusyInterval[];
}

const hoursArbitrary = fc.option(
  fc.record({
    days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
    startMinute: fc.integer({ min: 0, max: 23 * 4 }).map((quarter) => quarter * 15),
    length: fc.integer({ min: 2, max: 16 * 4 }).map((quarters) => quarters * 15),
  }),
  { nil: undefined },
);

function busyArbitrary(windowStart: number, minutes: number) {
  return fc
    .array(
      fc.record({
        from: fc.integer({ min: -300, max: minutes + 300 }),
        length: fc.integer({ min: 0, max: 300 }),
        kind: fc.constantFrom<BusyInterval["kind"]>("busy", "tentative"),
      }),
      { maxLength: 8 },
    )
    .map((items) =>
      items.map(({ from, length, kind }) => ({ start: windowStart + from * MINUTE, end: windowStart + (from + length) * MINUTE, kind })),
    );
}

/** Whether every minute of [start, end) lies in the working hours of the start's local day, read with luxon. */
function withinHoursByMinute(zone: string, hours: Hours | undefined, start: number, end: number): boolean {
  if (hours === undefined) return true;
  const first = DateTime.fromMillis(start, { zone });
  if (!hours.days.includes(first.weekday)) return false;
  for (let u = start; u < end; u += MINUTE) {
    const local = DateTime.fromMillis(u, { zone });
    const minute = local.hour * 60 + local.minute;
    if (local.toISODate() !== first.toISODate() || minute < hours.startMinute || minute >= hours.endMinute) return false;
  }
  return true;
}

interface Reference {
  readonly candidates: MeetingCandidate[];
}

/** Every candidate of the window, judged minute by minute. */
function reference(attendees: readonly AttendeeCase[], query: MeetingQuery, zone: string): Reference {
  const candidates: MeetingCandidate[] = [];
  const stepMinutes = query.stepMs / MINUTE;
  for (let t = query.start; t + query.durationMs <= query.endExclusive; t += MINUTE) {
    const local = DateTime.fromMillis(t, { zone });
    if ((local.hour * 60 + local.minute) % stepMinutes !== 0) continue;
    const end = t + query.durationMs;
    const from = t - query.bufferBeforeMs;
    const to = end + query.bufferAfterMs;
    const availability: Availability[] = attendees.map((attendee) => {
      if (!withinHoursByMinute(attendee.zone, attendee.hours, t, end)) return "outside";
      let busy = false;
      let tentative = false;
      for (let u = from; u < to; u += MINUTE) {
        for (const interval of attendee.busy) {
          if (interval.start <= u && u < interval.end) {
            if (interval.kind === "busy") busy = true;
            else tentative = true;
          }
        }
      }
      return busy ? "busy" : tentative ? "tentative" : "free";
    });
    const available = availability.map((status) => status === "free" || (status === "tentative" && !query.tentativeBlocks));
    candidates.push({
      start: t,
      end,
      availability,
      optionalAvailable: attendees.filter((attendee, i) => !attendee.required && available[i]).length,
      unavailableRequired: attendees.flatMap((attendee, i) => (attendee.required && !available[i] ? [i] : [])),
    });
  }
  return { candidates };
}

function needed(attendees: readonly AttendeeCase[], percent: number): number {
  return Math.ceil((attendees.filter((attendee) => !attendee.required).length * percent) / 100);
}

function engineAttendees(attendees: readonly AttendeeCase[], from: number, to: number): MeetingAttendee[] {
  return attendees.map((attendee) => ({
    required: attendee.required,
    busy: mergeBusy(attendee.busy, from, to),
    working:
      attendee.hours === undefined
        ? undefined
        : weeklyWorkingTime({ zone: ianaZone(attendee.zone)!, ...attendee.hours, days: new Set(attendee.hours.days) }, from, to),
  }));
}

const caseArbitrary = fc
  .record({
    at: fc.constantFrom(...CHANGES),
    hoursBefore: fc.integer({ min: -30, max: 6 }),
    windowHours: fc.integer({ min: 0, max: 40 }),
    zone: fc.constantFrom(...ZONES),
    duration: fc.constantFrom(15, 30, 45, 60, 90),
    step: fc.constantFrom(15, 30, 60),
    before: fc.constantFrom(0, 0, 10, 15),
    after: fc.constantFrom(0, 0, 5, 30),
    tentativeBlocks: fc.boolean(),
    percent: fc.constantFrom(0, 0, 50, 100),
    limit: fc.integer({ min: 1, max: 8 }),
    people: fc.array(fc.record({ required: fc.boolean(), zone: fc.constantFrom(...ZONES), hours: hoursArbitrary }), {
      minLength: 1,
      maxLength: 4,
    }),
  })
  .chain((spec) => {
    const start = spec.at + spec.hoursBefore * HOUR;
    const minutes = spec.windowHours * 60;
    return fc.tuple(
      fc.constant(spec),
      fc.array(busyArbitrary(start, minutes), { minLength: spec.people.length, maxLength: spec.people.length }),
    );
  })
  .map(([spec, busy]) => {
    const start = spec.at + spec.hoursBefore * HOUR;
    const attendees: AttendeeCase[] = spec.people.map((person, i) => ({
      required: i === 0 || person.required,
      zone: person.zone,
      hours:
        person.hours === undefined
          ? undefined
          : {
              days: person.hours.days,
              startMinute: person.hours.startMinute,
              endMinute: Math.min(1440, person.hours.startMinute + person.hours.length),
            },
      busy: busy[i],
    }));
    const query: MeetingQuery = {
      start,
      endExclusive: start + spec.windowHours * HOUR,
      zone: ianaZone(spec.zone)!,
      durationMs: spec.duration * MINUTE,
      stepMs: spec.step * MINUTE,
      bufferBeforeMs: spec.before * MINUTE,
      bufferAfterMs: spec.after * MINUTE,
      tentativeBlocks: spec.tentativeBlocks,
      minOptionalPercent: spec.percent,
      limit: spec.limit,
    };
    return { attendees, query, zone: spec.zone };
  });

describe("meeting times", () => {
  it("equal a minute-by-minute reading: every standing, the ranking, the count and the reason nothing fits, across DST changes", () => {
    fc.assert(
      fc.property(caseArbitrary, ({ attendees, query, zone }) => {
        const from = query.start - 6 * HOUR;
        const to = query.endExclusive + 6 * HOUR;
        const found = runAtOnce(findMeetingTimesSteps(engineAttendees(attendees, from, to), query, { work: Number.POSITIVE_INFINITY }));
        const { candidates } = reference(attendees, query, zone);
        const need = needed(attendees, query.minOptionalPercent);
        const fits = candidates.filter((candidate) => candidate.unavailableRequired.length === 0 && candidate.optionalAvailable >= need);
        const ranked = [...fits].sort((a, b) => b.optionalAvailable - a.optionalAvailable || a.start - b.start).slice(0, query.limit);
        expect(found.fitCount).toBe(fits.length);
        expect(found.fits).toEqual(ranked);
        if (fits.length > 0) {
          expect(found.noFit).toBeUndefined();
          return;
        }
        const required = (candidate: MeetingCandidate) => candidate.availability.filter((_, i) => attendees[i].required);
        const expected: NoFit =
          query.endExclusive - query.start < query.durationMs
            ? "window_shorter_than_duration"
            : candidates.length === 0
              ? "no_start_in_window"
              : !candidates.some((candidate) => required(candidate).every((status) => status !== "outside"))
                ? "outside_working_hours"
                : !candidates.some((candidate) => candidate.unavailableRequired.length === 0)
                  ? "no_common_free_time"
                  : "too_few_optional";
        expect(found.noFit).toBe(expected);
        const closest = [...candidates].sort(
          (a, b) =>
            a.unavailableRequired.length - b.unavailableRequired.length || b.optionalAvailable - a.optionalAvailable || a.start - b.start,
        )[0];
        expect(found.fewestMissing).toEqual(closest);
      }),
      { numRuns: 60 },
    );
  });

  it("finds as first fit the earliest candidate that fits, whatever its rank", () => {
    fc.assert(
      fc.property(caseArbitrary, ({ attendees, query, zone }) => {
        const from = query.start - 6 * HOUR;
        const to = query.endExclusive + 6 * HOUR;
        const first = runAtOnce(firstFitSteps(engineAttendees(attendees, from, to), query, { work: Number.POSITIVE_INFINITY }));
        const need = needed(attendees, query.minOptionalPercent);
        const expected = reference(attendees, query, zone).candidates.find(
          (candidate) => candidate.unavailableRequired.length === 0 && candidate.optionalAvailable >= need,
        );
        expect(first).toEqual(expected);
      }),
      { numRuns: 30 },
    );
  });

  it("stops after the candidates its work allows, saying where, with exactly the fits before", () => {
    const zone = ianaZone("Europe/Berlin")!;
    const start = Date.UTC(2026, 2, 28, 23); // 00:00 CET on Sunday 2026-03-29, the spring-forward day
    const query: MeetingQuery = {
      start,
      endExclusive: start + 23 * HOUR,
      zone,
      durationMs: 30 * MINUTE,
      stepMs: 30 * MINUTE,
      bufferBeforeMs: 0,
      bufferAfterMs: 0,
      tentativeBlocks: true,
      minOptionalPercent: 0,
      limit: 50,
    };
    const attendees: MeetingAttendee[] = [{ required: true, busy: [] }];
    const whole = runAtOnce(findMeetingTimesSteps(attendees, query, { work: Number.POSITIVE_INFINITY }));
    // The day lasts 23 hours (02:00 to 03:00 never happens): 46 half hours.
    expect(whole.fitCount).toBe(46);
    const cut = runAtOnce(findMeetingTimesSteps(attendees, query, { work: 10 }));
    expect(cut.fits.map((fit) => fit.start)).toEqual(whole.fits.slice(0, 10).map((fit) => fit.start));
    expect(cut.stoppedAt).toBe(whole.fits[10].start);
    expect(cut.stoppedBy).toBe("budget");
  });
});

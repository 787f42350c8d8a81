/**
 * A reload reads again only the events whose text changed and keeps the
 * rest of the calendar's previous snapshot (docs/decisions.md, "Rebuilds in
 * proportion to the change"), and what it gives is the snapshot a build of
 * the whole feed gives: the same id, the same answers in several windows,
 * the same versions and diagnostics. Random edits of a feed (moves, new
 * titles, events added, removed, copied under their UID and written
 * elsewhere, overrides, EXDATEs, THISANDFUTURE, cancellations, new rules,
 * DTSTAMPs of the fetch's time, lines that give a diagnostic, a VEVENT
 * without DTSTART) are applied one after another, each build starting from
 * the one before, and every one is compared with a whole build of its
 * bytes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_FEED_LIMITS } from "../../src/config/config-model.js";
import { eventIdOf } from "../../src/expand/occurrence.js";
import { ingestFeed } from "../../src/ingest/ingest.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { plusThreeZone, searchAll } from "../support/feeds.js";
import { answersOf } from "../support/reading.js";
import { workerBuild } from "../support/worker-build.js";

const readAt = Date.UTC(2026, 10, 29);
const DAY = 86_400_000;
const MINUTE = 60_000;

/** Rules whose slots are a fixed step apart, so an override or an EXDATE can name slot k; and one with BYDAY. */
const RULES = [
  { rule: "FREQ=DAILY;INTERVAL=2", step: 2 * DAY },
  { rule: "FREQ=WEEKLY", step: 7 * DAY },
  { rule: "FREQ=DAILY;COUNT=12", step: DAY },
  { rule: "FREQ=WEEKLY;BYDAY=MO,TH", step: 7 * DAY },
] as const;
const ZONES = ["UTC", "America/New_York", "Office Time"] as const;

interface Override {
  readonly slot: number;
  readonly shiftMinutes: number;
  readonly summary: string;
  readonly thisAndFuture: boolean;
  readonly cancelled: boolean;
  /** Written at the end of the feed rather than after its series, as some producers do. */
  readonly atEnd: boolean;
}

interface Event {
  readonly uid: string;
  readonly day: number;
  readonly minute: number;
  readonly minutes: number;
  readonly summary: string;
  readonly zone: (typeof ZONES)[number];
  readonly allDay: boolean;
  readonly rule?: number;
  readonly exdates: readonly number[];
  readonly overrides: readonly Override[];
  readonly cancelled: boolean;
  /** A line calq reads with a warning: its diagnostic names the event's line. */
  readonly slip: boolean;
  /** No DTSTART: the VEVENT gives no event, only an error. */
  readonly broken: boolean;
  /** A VALARM inside. */
  readonly alarm: boolean;
  readonly sequence: number;
}

interface Feed {
  readonly events: readonly Event[];
  readonly stamp: number;
  readonly calendarZone: string;
}

/** True about once in `odds`. */
const sometimes = (odds: number) => fc.integer({ min: 1, max: odds }).map((roll) => roll === 1);

const eventArbitrary = (uid: string) =>
  fc.record({
    uid: fc.constant(uid),
    day: fc.integer({ min: -400, max: 800 }),
    minute: fc.integer({ min: 0, max: 95 }).map((quarter) => quarter * 15),
    minutes: fc.constantFrom(15, 30, 60, 90),
    summary: fc.constantFrom("Stand-up", "Review", "Lunch", "1:1", "Planning", "Café"),
    zone: fc.constantFrom(...ZONES),
    allDay: sometimes(7),
    rule: fc.option(fc.integer({ min: 0, max: RULES.length - 1 }), { nil: undefined, freq: 3 }),
    exdates: fc.array(fc.integer({ min: 0, max: 8 }), { maxLength: 2 }),
    overrides: fc.constant<Override[]>([]),
    cancelled: fc.constant(false),
    slip: sometimes(10),
    broken: fc.constant(false),
    alarm: sometimes(5),
    sequence: fc.constant(0),
  });

const overrideArbitrary = fc.record({
  slot: fc.integer({ min: 0, max: 8 }),
  shiftMinutes: fc.integer({ min: -120, max: 240 }),
  summary: fc.constantFrom("Moved", "Room change", "Longer"),
  thisAndFuture: sometimes(3),
  cancelled: sometimes(5),
  atEnd: sometimes(3),
});

/** One edit of a feed; `at` picks an event (modulo their number). */
const editArbitrary = fc.oneof(
  fc.record({
    kind: fc.constant("move" as const),
    at: fc.nat(),
    day: fc.integer({ min: -400, max: 800 }),
    minute: fc.integer({ min: 0, max: 95 }),
  }),
  fc.record({ kind: fc.constant("retitle" as const), at: fc.nat(), summary: fc.constantFrom("Renamed", "Offsite", "Sync") }),
  fc.record({ kind: fc.constant("add" as const), event: eventArbitrary("added") }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("override" as const), at: fc.nat(), override: overrideArbitrary }),
  fc.record({ kind: fc.constant("exdate" as const), at: fc.nat(), slot: fc.integer({ min: 0, max: 8 }) }),
  fc.record({ kind: fc.constant("cancel" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("rule" as const),
    at: fc.nat(),
    rule: fc.option(fc.integer({ min: 0, max: RULES.length - 1 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant("slip" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("break" as const), at: fc.nat() }),
  // Another component with the same UID: a copy at another start, or a newer SEQUENCE.
  fc.record({
    kind: fc.constant("copy" as const),
    at: fc.nat(),
    to: fc.nat(),
    day: fc.integer({ min: -3, max: 3 }),
    sequence: fc.integer({ min: 0, max: 2 }),
  }),
  // The event written elsewhere in the feed, as producers that sort by start do.
  fc.record({ kind: fc.constant("relocate" as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant("stamp" as const) }),
  fc.record({ kind: fc.constant("calendarZone" as const) }),
);
type Edit = typeof editArbitrary extends fc.Arbitrary<infer T> ? T : never;

let added = 0;

/** The feed after one edit. */
function edited(feed: Feed, edit: Edit): Feed {
  const { events } = feed;
  const index = "at" in edit ? edit.at % events.length : 0;
  const replace = (change: (event: Event) => Event) => ({
    ...feed,
    events: events.map((event, i) => (i === index ? change(event) : event)),
  });
  switch (edit.kind) {
    case "move":
      return replace((event) => ({ ...event, day: edit.day, minute: edit.minute * 15 }));
    case "retitle":
      return replace((event) => ({ ...event, summary: edit.summary }));
    case "add":
      return { ...feed, events: [...events.slice(0, index), { ...edit.event, uid: `added-${added++}` }, ...events.slice(index)] };
    case "remove":
      return events.length > 1 ? { ...feed, events: events.filter((_, i) => i !== index) } : feed;
    case "override":
      return replace((event) => ({ ...event, overrides: [...event.overrides, edit.override] }));
    case "exdate":
      return replace((event) => ({ ...event, exdates: [...event.exdates, edit.slot] }));
    case "cancel":
      return replace((event) => ({ ...event, cancelled: !event.cancelled }));
    case "rule":
      return replace((event) => ({ ...event, rule: edit.rule }));
    case "slip":
      return replace((event) => ({ ...event, slip: !event.slip }));
    case "break":
      return replace((event) => ({ ...event, broken: !event.broken }));
    case "copy": {
      const copy = { ...events[index], day: events[index].day + edit.day, sequence: edit.sequence, overrides: [] };
      const to = edit.to % (events.length + 1);
      return { ...feed, events: [...events.slice(0, to), copy, ...events.slice(to)] };
    }
    case "relocate": {
      const rest = events.filter((_, i) => i !== index);
      const to = edit.to % (rest.length + 1);
      return { ...feed, events: [...rest.slice(0, to), events[index], ...rest.slice(to)] };
    }
    case "stamp":
      return { ...feed, stamp: feed.stamp + 3_600_000 };
    case "calendarZone":
      return { ...feed, calendarZone: feed.calendarZone === "Europe/Paris" ? "Asia/Tokyo" : "Europe/Paris" };
  }
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");
/** `YYYYMMDDTHHMMSS` of a wall-clock number (read as UTC fields). */
function wall(local: number): string {
  const d = new Date(local);
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00`;
}

/** A start or RECURRENCE-ID line's value in the event's zone. */
function timeLine(name: string, event: Event, local: number, parameters = ""): string {
  if (event.allDay) return `${name}${parameters};VALUE=DATE:${wall(local).slice(0, 8)}`;
  if (event.zone === "UTC") return `${name}${parameters}:${wall(local)}Z`;
  return `${name}${parameters};TZID=${event.zone}:${wall(local)}`;
}

/** The feed's text: calendar lines, the feed's own zone, each series with its overrides, then the overrides written at the end. */
function render(feed: Feed): string {
  const base = Math.floor(readAt / DAY) * DAY;
  const stamp = `DTSTAMP:${wall(feed.stamp)}Z`;
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//calq//incremental//EN",
    `X-WR-TIMEZONE:${feed.calendarZone}`,
    ...plusThreeZone("Office Time"),
  ];
  const atEnd: string[] = [];
  for (const event of feed.events) {
    const start = base + event.day * DAY + (event.allDay ? 0 : event.minute * MINUTE);
    const step = event.rule === undefined ? DAY : RULES[event.rule].step;
    lines.push(
      "BEGIN:VEVENT",
      `UID:${event.uid}@calq.test`,
      stamp,
      ...(event.sequence === 0 ? [] : [`SEQUENCE:${event.sequence}`]),
      ...(event.broken ? [] : [timeLine("DTSTART", event, start)]),
      event.allDay ? "DURATION:P1D" : `DURATION:PT${event.minutes}M`,
      ...(event.rule === undefined ? [] : [`RRULE:${RULES[event.rule].rule}`]),
      ...event.exdates.map((slot) => timeLine("EXDATE", event, start + slot * step)),
      `SUMMARY:${event.summary}`,
      ...(event.cancelled ? ["STATUS:CANCELLED"] : []),
      // A trailing space after the duration: read, with a LENIENT_VALUE warning on this event's line.
      ...(event.slip ? ["X-SLIP:yes", `DURATION:PT${event.minutes}M `] : []),
      ...(event.alarm ? ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Soon", "TRIGGER:-PT10M", "END:VALARM"] : []),
      "END:VEVENT",
    );
    for (const override of event.overrides) {
      const slot = start + override.slot * step;
      const component = [
        "BEGIN:VEVENT",
        `UID:${event.uid}@calq.test`,
        stamp,
        timeLine("RECURRENCE-ID", event, slot, override.thisAndFuture ? ";RANGE=THISANDFUTURE" : ""),
        timeLine("DTSTART", event, slot + (event.allDay ? 0 : override.shiftMinutes * MINUTE)),
        event.allDay ? "DURATION:P1D" : `DURATION:PT${event.minutes}M`,
        `SUMMARY:${override.summary}`,
        ...(override.cancelled ? ["STATUS:CANCELLED"] : []),
        "END:VEVENT",
      ];
      (override.atEnd ? atEnd : lines).push(...component);
    }
  }
  return [...lines, ...atEnd, "END:VCALENDAR", ""].join("\r\n");
}

const YEAR = 365 * DAY;
/** Windows beyond answersOf's two: the far past (on demand) and a fortnight around the load. */
const windows = [
  { start: Date.UTC(2020, 0, 1), endExclusive: Date.UTC(2020, 3, 1) },
  { start: readAt - 7 * DAY, endExclusive: readAt + 7 * DAY },
  { start: readAt - 2 * YEAR, endExclusive: readAt + 3 * YEAR },
];

/** Everything a caller can read of a snapshot, to compare two. */
function everything(snapshot: Snapshot) {
  return {
    id: snapshot.id,
    answers: answersOf(snapshot, readAt),
    // Small pages where the window is short, so page ends fall inside series; large ones over five years.
    windows: windows.map((window) =>
      searchAll(snapshot, window, "startWithin", window.endExclusive - window.start > YEAR ? 500 : 13).map((occurrence) => [
        eventIdOf(occurrence),
        occurrence.start,
        occurrence.end,
      ]),
    ),
    diagnostics: snapshot.diagnostics,
    versions: Array.from({ length: snapshot.versions.size }, (_, i) => snapshot.versions.at(i)),
    tails: snapshot.tails.map((tail) => tail.uidKey),
  };
}

/**
 * toEqual, with its diff, where the two differ; compared as JSON first (tens
 * of thousands of occurrences: a deep comparison of each pair was most of
 * this file's time). Both sides are made by everything(), so JSON loses
 * nothing that could tell them apart but an Infinity (null both ways).
 */
function expectSame(actual: ReturnType<typeof everything>, expected: ReturnType<typeof everything>): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
}

describe("a build from the previous snapshot", () => {
  it("gives what a build of the whole feed gives, edit after edit, and reads the whole feed only for a feed-wide change or when most of it changed", () => {
    const ways = { incremental: 0, full: 0 };
    fc.assert(
      fc.property(
        // UIDs of each feed's own, so where runs are cut (by their UIDs' digests) differs from feed to feed.
        fc
          .tuple(fc.integer({ min: 100, max: 160 }), fc.nat())
          .chain(([count, salt]) =>
            fc.tuple(
              fc.tuple(...Array.from({ length: count }, (_, i) => eventArbitrary(`event-${salt}-${i}`))),
              fc.array(editArbitrary, { minLength: 1, maxLength: 5 }),
            ),
          ),
        ([events, edits]) => {
          let feed: Feed = { events, stamp: Date.UTC(2026, 0, 1), calendarZone: "Europe/Paris" };
          let previous = workerBuild(render(feed), { readAt });
          for (const edit of edits) {
            feed = edited(feed, edit);
            const text = render(feed);
            const rebuilt = workerBuild(text, { readAt, previous });
            const whole = workerBuild(text, { readAt });
            expectSame(everything(rebuilt), everything(whole));
            if (edit.kind === "calendarZone") expect(rebuilt.build).toMatchObject({ kind: "full", reason: "feed_wide" });
            else {
              ways[rebuilt.build!.kind]++;
              // An edit of events reads the whole feed only when it touched most of it (small feeds, edits near many runs).
              if (rebuilt.build!.kind === "full") expect(rebuilt.build).toEqual({ kind: "full", reason: "most_changed" });
            }
            previous = rebuilt;
          }
        },
      ),
      { numRuns: 6 },
    );
    // Edits of a few events in a feed of a hundred or more are read as such.
    expect(ways.incremental).toBeGreaterThan(2 * ways.full);
    // Some forty builds of a hundred events or more: a limit for a stuck build, not a measure of speed.
  }, 600_000);

  it("is what a reload through an ingest worker gives: one event moved in 2,000 is read again with its run, the rest kept", async () => {
    const events = Array.from({ length: 2_000 }, (_, i) => ({
      uid: `event-${i}`,
      day: (i * 7) % 700,
      minute: (i % 40) * 15,
      minutes: 30,
      summary: `Meeting ${i}`,
      zone: ZONES[i % 3],
      allDay: false,
      rule: i % 10 === 0 ? i % RULES.length : undefined,
      exdates: [],
      overrides: [],
      cancelled: false,
      slip: false,
      broken: false,
      alarm: i % 7 === 0,
      sequence: 0,
    }));
    const before: Feed = { events, stamp: Date.UTC(2026, 0, 1), calendarZone: "Europe/Paris" };
    const after = edited(before, { kind: "move", at: 1_234, day: 3, minute: 40 });
    const ingest = (feed: Feed, previous?: Snapshot) =>
      ingestFeed(Buffer.from(render(feed)), { id: "t" }, DEFAULT_FEED_LIMITS, defaultLimits(readAt), readAt, { previous });
    const first = await ingest(before);
    const rebuilt = await ingest(after, first);
    expect(rebuilt.build).toMatchObject({ kind: "incremental" });
    if (rebuilt.build?.kind !== "incremental") throw new Error("unreachable");
    expect(rebuilt.build.eventsRead).toBeLessThan(300);
    expect(rebuilt.build.eventsKept).toBeGreaterThan(1_700);
    expectSame(everything(rebuilt), everything(await ingest(after)));
  });
});

/**
 * `node bin/run-ts.mjs bench/fuzz.ts [--feeds N] [--seed S]`: the imperfect-feeds
 * robustness figure. Mutates real-shaped feeds (the demo calendars and the
 * producer and imperfect-feed fixtures): deletes, duplicates, swaps and
 * truncates lines, injects odd property values and scrambles digits, then
 * builds each mutant and searches it in process, as a reload and a search
 * would. It counts exceptions that escape the build or the search, results
 * whose instants a Timestamp cannot carry, and builds over one second.
 *
 * A script, not a test: it takes minutes, and CI does not run it. Seeded, so
 * a failure it prints can be replayed with the same --seed.
 */
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { eventIdOf, FIRST_INSTANT, LAST_INSTANT, recurrenceIdOf } from "../src/expand/occurrence.js";
import { NotICalendarError } from "../src/ics/parse-calendar.js";
import { buildSnapshot, type Snapshot } from "../src/ingest/snapshot.js";
import type { MatchMode } from "../src/search/match.js";
import { type Position, searchPage } from "../src/search/search-occurrences.js";
import { defaultLimits } from "../src/store/calendar-store.js";
import { random } from "./generate-feed.js";

const { values } = parseArgs({ options: { feeds: { type: "string", default: "100000" }, seed: { type: "string", default: "9" } } });
const FEEDS = Number(values.feeds);
const ROOT = join(import.meta.dirname, "..");
const READ_AT = Date.UTC(2026, 10, 29);
const DAY = 86_400_000;

const next = random(Number(values.seed));
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
const index = (length: number) => Math.floor(next() * length);

const SEEDS = [...["data"].flatMap((dir) => files(dir)), ...files("test/fixtures/producers"), ...files("test/fixtures/imperfect")].map(
  (path) => readFileSync(path, "utf8").split(/\r?\n/),
);

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith(".ics"))
    .map((name) => join(ROOT, dir, name));
}

/** Values producers (and attackers) have put where calq reads times and rules. */
const ODD_LINES = [
  "DURATION:P99999999D",
  "DURATION:P999999999999999999W",
  "DURATION:-PT1H",
  "DURATION:PT",
  "DTEND;TZID=America/New_York:99991231T230000",
  "DTSTART;TZID=Asia/Tokyo:00010101T000000",
  "DTSTART:20260230T100000Z",
  "DTSTART:Next Year",
  "DTEND:None",
  "DTSTART;VALUE=DATE:20261005",
  "DTSTART:20261005",
  "RRULE:FREQ=SECONDLY",
  "RRULE:FREQ=MONTHLY;BYSETPOS=20260229T120000Z",
  "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30",
  "RRULE:FREQ=DAILY;COUNT=-1",
  "RRULE:FREQ=WEEKLY;BYDAY=MO, TU",
  "RRULE:FREQ=MINUTELY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11;BYSECOND=0,1,2,3,4,5,6,7,8,9",
  "RRULE:FREQ=DAILY;UNTIL=99991231T235959Z",
  "EXDATE:2026-10-16",
  "EXDATE;VALUE=DATE:",
  "RDATE;VALUE=PERIOD:20261022T150000Z/PT2H",
  "RDATE:00010101T000000Z/99991231T000000Z",
  "RECURRENCE-ID;RANGE=THISANDFUTURE:20261005T090000Z",
  "DTSTART;TZID=/mozilla.org/20070129_1/America/New_York:20261005T090000",
  'DTSTART;TZID="(UTC-05:00) Eastern Time (US & Canada)":20261005T090000',
  "DTSTART;TZID=Nowhere:20261005T090000",
  "TZOFFSETTO:+9999",
  "TZOFFSETFROM:one hour",
  "SEQUENCE:99999999999999999999",
  "BEGIN:VEVENT",
  "END:VEVENT",
  "BEGIN:VCALENDAR",
  "END:VCALENDAR",
  "BEGIN:VTIMEZONE",
  'ATTENDEE;CN="unbalanced:mailto:x@example.org',
  "X-NO-VALUE",
  "",
];

type Mutation = (lines: string[]) => void;

const MUTATIONS: Mutation[] = [
  (lines) => lines.splice(index(lines.length), 1),
  (lines) => {
    const at = index(lines.length);
    lines.splice(at, 0, lines[at]);
  },
  (lines) => {
    const a = index(lines.length);
    const b = index(lines.length);
    [lines[a], lines[b]] = [lines[b], lines[a]];
  },
  (lines) => {
    const at = index(lines.length);
    lines[at] = lines[at].slice(0, index(lines[at].length + 1));
  },
  (lines) => lines.splice(index(lines.length), 0, pick(ODD_LINES)),
  (lines) => {
    const at = index(lines.length);
    lines[at] = lines[at].replace(/\d/g, () => (next() < 0.3 ? String(index(10)) : next() < 0.1 ? "" : "9"));
  },
  (lines) => {
    // Replace a property's value with an odd one of the same name, if any.
    const at = index(lines.length);
    const name = /^[A-Z-]+/.exec(lines[at])?.[0];
    const odd = ODD_LINES.filter((line) => name !== undefined && line.startsWith(name));
    if (odd.length > 0) lines[at] = pick(odd);
  },
  (lines) => lines.splice(index(lines.length)),
];

function mutant(): string {
  const lines = [...pick(SEEDS)];
  const count = 1 + index(3);
  for (let i = 0; i < count && lines.length > 0; i++) pick(MUTATIONS)(lines);
  return lines.join(next() < 0.5 ? "\r\n" : "\n");
}

/** The windows a search may ask for: around the load, far back, far ahead, a whole year. */
const WINDOWS = [
  { start: READ_AT - 30 * DAY, endExclusive: READ_AT + 30 * DAY },
  { start: Date.UTC(2026, 0, 1), endExclusive: Date.UTC(2027, 0, 1) },
  { start: Date.UTC(1950, 0, 1), endExclusive: Date.UTC(1950, 2, 1) },
  { start: Date.UTC(2199, 10, 1), endExclusive: Date.UTC(2200, 0, 1) },
];
const MODES: MatchMode[] = ["overlap", "startWithin"];

/** Every page of each window, each result's instants checked as the wire would need them. */
function searchEverything(snapshot: Snapshot): void {
  for (const window of WINDOWS) {
    for (const mode of MODES) {
      let after: Position | undefined;
      for (let page = 0; page < 5; page++) {
        const found = searchPage(snapshot, { window, mode, limit: 100, after });
        for (const occurrence of found.occurrences) {
          const { start, end } = occurrence;
          if (!(start >= FIRST_INSTANT && end <= LAST_INSTANT && start <= end)) {
            throw new RangeError(`an occurrence ${start}..${end} is outside what a Timestamp carries`);
          }
          eventIdOf(occurrence);
          recurrenceIdOf(occurrence);
        }
        if (found.next === undefined) break;
        after = found.next;
      }
    }
  }
}

let escaped = 0;
let refused = 0;
let slow = 0;
let slowest = 0;
const examples: string[] = [];
const started = Date.now();
// --feeds counts mutants built and searched; those refused as no iCalendar come on top.
for (let i = 0; i - refused < FEEDS; i++) {
  const text = mutant();
  let snapshot: Snapshot;
  const buildStart = performance.now();
  try {
    snapshot = buildSnapshot(text, { calendarId: "fuzz", limits: defaultLimits(READ_AT), readAt: READ_AT });
  } catch (error) {
    // Text with no BEGIN:VCALENDAR left is refused as no iCalendar, as a reload would.
    if (error instanceof NotICalendarError) {
      refused++;
      continue;
    }
    escaped++;
    if (examples.length < 5) examples.push(`build #${i}: ${String(error)}\n${text.slice(0, 2000)}`);
    continue;
  }
  const took = performance.now() - buildStart;
  slowest = Math.max(slowest, took);
  if (took > 1000) {
    slow++;
    if (examples.length < 5) examples.push(`slow build #${i}: ${took.toFixed(0)} ms\n${text.slice(0, 2000)}`);
  }
  try {
    searchEverything(snapshot);
  } catch (error) {
    escaped++;
    if (examples.length < 5) examples.push(`search #${i}: ${String(error)}\n${text.slice(0, 2000)}`);
  }
  const built = i + 1 - refused;
  if (built % 10_000 === 0)
    console.error(`${built} feeds built, ${escaped} escaped, ${slow} slow, ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

for (const example of examples) console.log(`---\n${example}`);
console.log(
  [
    `feeds: ${FEEDS} mutants of ${SEEDS.length} seed feeds built and searched (seed ${values.seed}); ${refused} more refused as no iCalendar`,
    `exceptions escaping build or search: ${escaped}`,
    `builds over 1 s: ${slow} (slowest ${slowest.toFixed(0)} ms)`,
    `took ${((Date.now() - started) / 1000).toFixed(0)} s on ${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}, Node.js ${process.version}`,
  ].join("\n"),
);
process.exitCode = escaped + slow === 0 ? 0 : 1;

/**
 * FindMeetingTimes over the team's calendars (bench/team-calendars.ts: about
 * 30 meetings a week each, a fifth tentative, twelve recurring series),
 * through the use case in process as the server runs it: the request
 * resolved, the calendars opened and read together, each attendee's working
 * hours laid out in their own zone (New York, London and Berlin in turn),
 * every 15-minute start of two weeks judged, the answer built. 10 and 50
 * attendees, all required (at these densities nothing fits, so the first
 * fit after the window is looked for too) and two required with the rest
 * optional (ranked by who can come). Writes its section of bench/RESULTS.md.
 */
import { type Call, callOf } from "../src/app/call.js";
import { findMeetingTimes, type MeetingArguments, type MeetingDeps } from "../src/app/meeting-times.js";
import { peopleOf } from "../src/app/people.js";
import { Turns } from "../src/app/turns.js";
import { DEFAULT_SEARCH, type PrincipalConfig } from "../src/config/config-model.js";
import { random } from "./generate-feed.js";
import { loadLine, machineLine, percentile, writeResultsSection } from "./results-file.js";
import { team } from "./team-calendars.js";

const DAY = 86_400_000;
const now = Date.now();
const people = await team(now);
const ZONES = ["America/New_York", "Europe/London", "Europe/Berlin"];
/** Each calendar's person: 09:00 to 17:00 on weekdays in one of three zones, so the attendees' hours overlap two hours a day. */
const owners: PrincipalConfig[] = people.calendarIds.map((id, i) => ({
  id: `owner-${i}`,
  primary: id,
  timezone: ZONES[i % ZONES.length],
  tokenDigests: [],
  capabilities: [],
  workingHours: { days: [1, 2, 3, 4, 5], startMinute: 9 * 60, endMinute: 17 * 60 },
}));
const deps: MeetingDeps = {
  access: { store: people.store, shards: people.shards, log: () => {} },
  maxWindowMs: 366 * DAY,
  workBudget: DEFAULT_SEARCH.workBudget,
  people: peopleOf(owners),
};
const turns = new Turns();
const served = <T>(handle: (call: Call) => Promise<T>): Promise<T> => handle(callOf({ principal: people.principal }, turns));

/** Two weeks from a Monday within half a year of now, in America/New_York. */
function fortnights(count: number, seed: number): { start: string; endExclusive: string }[] {
  const next = random(seed);
  const today = new Date(now);
  const monday = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - ((today.getUTCDay() + 6) % 7) * DAY;
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return Array.from({ length: count }, () => {
    const start = monday + (Math.floor(next() * 52) - 26) * 7 * DAY;
    return { start: date(start), endExclusive: date(start + 14 * DAY) };
  });
}

function request(window: { start: string; endExclusive: string }, attendees: number, required: number): MeetingArguments {
  const ids = people.calendarIds.slice(0, attendees);
  return {
    ...window,
    timezone: "America/New_York",
    requiredCalendarIds: ids.slice(0, required),
    optionalCalendarIds: ids.slice(required),
    durationMinutes: 30,
    stepMinutes: 15,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    tentativeBlocks: true,
    minOptionalPercent: 0,
    workingHoursStart: "",
    workingHoursEnd: "",
    workingDays: [],
    limit: 5,
  };
}

interface Row {
  readonly attendees: number;
  readonly required: number;
  readonly samples: number[];
  /** CPU time of the process during each call: time on a core, not time waiting for one on a shared machine. */
  readonly cpu: number[];
  readonly fits: number[];
  readonly noFit: number;
}

async function measure(attendees: number, required: number, seed: number): Promise<Row> {
  const samples: number[] = [];
  const cpu: number[] = [];
  const fits: number[] = [];
  let noFit = 0;
  for (const [i, window] of fortnights(330, seed).entries()) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const found = await served((call) => findMeetingTimes(deps, call, request(window, attendees, required)));
    const ms = performance.now() - t0;
    const used = process.cpuUsage(c0);
    if (found.completeUntil !== undefined) throw new Error("a read or the judging stopped early");
    // The first 30 warm the code and decode the events' details.
    if (i < 30) continue;
    samples.push(ms);
    cpu.push((used.user + used.system) / 1000);
    fits.push(found.fitCount);
    if (found.noFit !== undefined) noFit++;
  }
  return { attendees, required, samples, cpu, fits, noFit };
}

const rows = [await measure(10, 10, 31), await measure(10, 2, 37), await measure(50, 50, 41), await measure(50, 2, 43)];
const target = (attendees: number) => (attendees <= 10 ? 20 : 100);
const fixed = (ms: number) => ms.toFixed(1);

const section = `## Meeting times (bench/meeting-times.ts)

- ${machineLine()}
- FindMeetingTimes through the use case in process (src/app/meeting-times.ts), as the server runs it in turns: no network, no protobuf.
- The team's calendars (bench/team-calendars.ts), each attendee's working hours 09:00-17:00 on weekdays from their settings,
  in America/New_York, Europe/London and Europe/Berlin in turn; two weeks from a Monday within half a year of now, a 30-minute
  meeting at every 15-minute start (1,344 candidates), tentative time taken, 300 requests per row after 30 to warm up.
- All required: at these densities nothing fits, so the answer also reads the 14 days after the window for the first fit.

| attendees | required | p50 ms | p99 ms | max ms | CPU p50 ms | CPU p99 ms | target p99 | fits (median) | nothing fits |
|---|---|---|---|---|---|---|---|---|---|
${rows
  .map(
    (row) =>
      `| ${row.attendees} | ${row.required} | ${fixed(percentile(row.samples, 50))} | ${fixed(percentile(row.samples, 99))} | ${fixed(Math.max(...row.samples))} | ${fixed(percentile(row.cpu, 50))} | ${fixed(percentile(row.cpu, 99))} | ${target(row.attendees)} | ${percentile(row.fits, 50)} | ${row.noFit} of ${row.samples.length} |`,
  )
  .join("\n")}

- ${loadLine()}
`;
writeResultsSection("meeting-times", section);
process.stdout.write(section);
process.exit(0);

/**
 * What a reload costs when a poll moves one event: the feed's bytes to the
 * snapshot served, through ingestFeed as the store calls it, read whole or
 * from the calendar's previous snapshot (docs/decisions.md, "Rebuilds in
 * proportion to the change"). Both in one process, turn by turn, on warm
 * workers; the medians and their ratio go to bench/RESULTS.md.
 *
 *   node --expose-gc bin/run-ts.mjs bench/incremental.ts [--runs 9]
 */
import { createHash } from "node:crypto";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { DEFAULT_FEED_LIMITS } from "../src/config/config-model.js";
import { ingestFeed } from "../src/ingest/ingest.js";
import type { Snapshot } from "../src/ingest/snapshot.js";
import { defaultLimits } from "../src/store/calendar-store.js";
import { type FeedShape, generateFeed } from "./generate-feed.js";
import { loadLine, machineLine, percentile, writeResultsSection } from "./results-file.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "9" } } });
const RUNS = Number(values.runs);
const now = Date.now();
const limits = defaultLimits(now);

/** The feed with single event `index` moved to 06:00-07:00 of its day, as a poll after someone moved it would read it. */
function withOneMoved(text: string, index: number): string {
  const at = text.indexOf(`UID:single-${index}@bench.calq`);
  const start = text.indexOf("DTSTART;", at);
  const end = text.indexOf("\r\n", text.indexOf("DTEND;", at));
  const lines = text.slice(start, end).split("\r\n");
  const moved = lines.map((line) => line.replace(/T\d{6}$/, line.startsWith("DTSTART") ? "T060000" : "T070000"));
  return text.slice(0, start) + moved.join("\r\n") + text.slice(end);
}

/** A poll's read: the bytes, in a buffer of their own, and their digest, which the reader computes as it reads. */
interface PollRead {
  readonly bytes: Buffer;
  readonly feedDigest: string;
}

function polled(bytes: Buffer): PollRead {
  const own = Buffer.from(bytes);
  return { bytes: own, feedDigest: createHash("sha256").update(own).digest("hex") };
}

/** The store's path from a poll's read: the bytes handed over with their digest. */
function ingest({ bytes, feedDigest }: PollRead, previous?: Snapshot): Promise<Snapshot> {
  return ingestFeed(bytes, { id: "bench" }, DEFAULT_FEED_LIMITS, limits, now, { feedDigest, handOver: true, previous });
}

/**
 * The calendar as its reloads see it: its current snapshot, and the next
 * poll's bytes, which move the one event back or forth (a build starts from
 * a snapshot once: only the current one is built from).
 */
interface Calendar {
  current: Snapshot;
  readonly versions: readonly [Buffer, Buffer];
  /** Which version the current snapshot is of. */
  at: 0 | 1;
}

/** Builds the calendar's next version from its current snapshot, and makes it current. */
async function reloadFrom(calendar: Calendar): Promise<Snapshot> {
  const next = calendar.at === 0 ? 1 : 0;
  const snapshot = await ingest(polled(calendar.versions[next]), calendar.current);
  calendar.current = snapshot;
  calendar.at = next;
  return snapshot;
}

/**
 * Readies every worker of the pool for the build about to be timed, as a
 * calendar's reloads find them: a whole build of a big feed retires its
 * worker (its heap grew), so it meets a worker just started (a tiny feed
 * each here); builds from the previous snapshot grow no heap, so a calendar
 * reloaded that way meets workers that have done such builds before (two
 * rounds here, one build a worker each).
 */
async function warm(way: "full" | "incremental", calendar: Calendar): Promise<void> {
  const workers = Array.from({ length: os.availableParallelism() });
  if (way === "full") {
    const tiny = Buffer.from(generateFeed(now, { singles: 1, series: 0 }));
    await Promise.all(workers.map(() => ingest(polled(tiny))));
  } else {
    for (let round = 0; round < 2; round++) {
      const next = calendar.at === 0 ? 1 : 0;
      const built = await Promise.all(workers.map(() => ingest(polled(calendar.versions[next]), calendar.current)));
      calendar.current = built[0];
      calendar.at = next;
    }
  }
  globalThis.gc?.();
}

interface Measured {
  readonly name: string;
  readonly bytes: number;
  readonly full: number[];
  readonly incremental: number[];
  readonly eventsRead: number;
  readonly eventsKept: number;
  readonly stallMs: { readonly full: number; readonly incremental: number };
}

async function measure(name: string, shape: FeedShape, moved: number): Promise<Measured> {
  const text = generateFeed(now, shape, 7);
  const versions = [Buffer.from(text), Buffer.from(withOneMoved(text, moved))] as const;
  const calendar: Calendar = { current: await ingest(polled(versions[0])), versions, at: 0 };
  const full: number[] = [];
  const incremental: number[] = [];
  let last: Snapshot | undefined;
  const stallMs = { full: 0, incremental: 0 };
  for (let run = 0; run < RUNS; run++) {
    // Turn by turn, each first in every other run.
    for (const way of run % 2 === 0 ? (["full", "incremental"] as const) : (["incremental", "full"] as const)) {
      await warm(way, calendar);
      const read = polled(calendar.versions[calendar.at === 0 ? 1 : 0]);
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const t0 = performance.now();
      const snapshot = await ingest(read, way === "incremental" ? calendar.current : undefined);
      const ms = performance.now() - t0;
      delay.disable();
      if (snapshot.build?.kind !== way) throw new Error(`expected a ${way} build, got ${JSON.stringify(snapshot.build)}`);
      stallMs[way] = Math.max(stallMs[way], delay.max / 1e6);
      if (way === "incremental") {
        incremental.push(ms);
        calendar.current = snapshot;
        calendar.at = calendar.at === 0 ? 1 : 0;
        last = snapshot;
      } else {
        full.push(ms);
        // The same bytes, read from the previous snapshot (untimed), name the same snapshot.
        if ((await reloadFrom(calendar)).id !== snapshot.id) throw new Error("the two builds named the snapshot differently");
      }
    }
  }
  const build = last?.build;
  if (build?.kind !== "incremental") throw new Error("no incremental build");
  return { name, bytes: versions[1].length, full, incremental, eventsRead: build.eventsRead, eventsKept: build.eventsKept, stallMs };
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US"));
const median = (samples: readonly number[]) => percentile(samples, 50);

const results = [
  await measure("100,000 single events", { singles: 100_000, series: 0 }, 50_000),
  await measure("10,000 single events and 200 series", { singles: 10_000, series: 200 }, 5_000),
];
const digestBytes = Buffer.from(generateFeed(now, { singles: 100_000, series: 0 }, 7));
const digestStart = performance.now();
createHash("sha256").update(digestBytes).digest("hex");
const digestMs = performance.now() - digestStart;

const rows = results.map(
  (result) =>
    `| ${result.name} (${(result.bytes / 2 ** 20).toFixed(1)} MiB) | ${ms(median(result.full))} ms (min ${ms(Math.min(...result.full))}) | ${ms(median(result.incremental))} ms (min ${ms(Math.min(...result.incremental))}) | ${((100 * median(result.incremental)) / median(result.full)).toFixed(1)} % | ${result.eventsRead.toLocaleString("en-US")} read again, ${result.eventsKept.toLocaleString("en-US")} kept | ${ms(result.stallMs.full)} / ${ms(result.stallMs.incremental)} ms |`,
);
const markdown = `
## A reload that moves one event (bench/incremental.ts)

- ${machineLine()}
- Command: \`node --expose-gc bin/run-ts.mjs bench/incremental.ts --runs ${RUNS}\` (sources through tsx).
- Each build goes from the poll's bytes (and their SHA-256, which the reader computed) to the snapshot served, through
  \`ingestFeed\` as the store calls it: in a worker, the snapshot unwrapped on this thread. Whole: without the previous
  snapshot; from the previous one: with the snapshot of the feed before the move. Turn by turn in one process, ${RUNS} of
  each; before each, every worker of the pool readied as a calendar's reloads find it: a whole build of a big feed
  retires its worker (its heap grew) and meets one just started, while builds from the previous snapshot grow no heap
  and meet workers that have done such builds before. Medians, then the ratio of the medians. Hashing the 100k feed's
  bytes, which the reader does in every poll, took ${ms(digestMs)} ms here.

| feed | read whole | from the previous snapshot | ratio | events | longest event-loop stall (whole / from the previous) |
|---|---|---|---|---|---|
${rows.join("\n")}

Target: a 100,000-event feed with one event moved rebuilt in at most 5 % of a whole build's time.
${loadLine()}
`;
writeResultsSection("incremental", markdown);
console.log(markdown);
process.exit(0);

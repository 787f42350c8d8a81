/**
 * `node bin/run-ts.mjs bench/capacity.ts [--levels 500,1000,2000] [--scale 10]
 * [--window 60] [--changed 0.1]`: how many calendars one `calq serve`
 * process sustains on this machine, and which resource runs out first.
 *
 * For each level N it serves N calendars over HTTP from this process (a
 * feed server on 127.0.0.1 answering conditional requests: 304 when the
 * calendar has not changed), starts a real `calq serve` on them and
 * measures, from /proc, the CPU and memory of that process:
 *
 * - the first load: time until every calendar is loaded, and the CPU it took;
 * - the steady state: every calendar polled every 5 minutes, where a poll
 *   finds a new version with probability --changed (default 0.1: nine
 *   answers in ten are 304). Time is compressed by --scale (default 10: a
 *   30 s refresh stands for 5 minutes, and the cursor lifetime, which keeps
 *   replaced snapshots, shrinks alike), so the CPU share measured is
 *   divided by the scale to give the share at the real rate;
 * - searches meanwhile: one week of one calendar, every 100 ms, p50 / p99.
 *
 * The size mix stands for personal and team calendars: 60% small (40
 * events, 4 recurring series), 30% medium (400, 15), 9% large (2,000, 40)
 * and 1% very large (10,000, 200: the feed of bench/run.ts). It writes its
 * section of bench/RESULTS.md; docs/capacity.md extrapolates from it.
 *
 * Not a test, not run in CI: minutes per level. Talks to 127.0.0.1 only,
 * and stops by itself.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getHeapStatistics } from "node:v8";
import YAML from "yaml";
import { MatchMode } from "../gen/calq/v1/calendar_service_pb.js";
import { parseConfig } from "../src/config/calq-config.js";
import { sha256Hex } from "../src/config/secret.js";
import { ShardMap } from "../src/config/shard-map.js";
import { killed, startCalqServe } from "../test/support/calq-process.js";
import { CalqGrpcClient } from "../test/support/grpc-client.js";
import { generateFeed, random } from "./generate-feed.js";
import { machineLine, percentile, writeResultsSection } from "./results-file.js";

const { values } = parseArgs({
  options: {
    levels: { type: "string", default: "500,1000,2000" },
    scale: { type: "string", default: "10" },
    window: { type: "string", default: "60" },
    changed: { type: "string", default: "0.1" },
  },
});
const LEVELS = values.levels.split(",").map(Number);
const SCALE = Number(values.scale);
const WINDOW_S = Number(values.window);
const CHANGED = Number(values.changed);
const REAL_REFRESH_S = 300;
const TOKEN = "capacity-token";
const ANCHOR = Date.UTC(2026, 9, 2);

/** The size mix: share of calendars, single events, recurring series. */
const CLASSES = [
  { name: "small", share: 0.6, singles: 40, series: 4 },
  { name: "medium", share: 0.3, singles: 400, series: 15 },
  { name: "large", share: 0.09, singles: 2_000, series: 40 },
  { name: "very large", share: 0.01, singles: 10_000, series: 200 },
] as const;

/** The class a number in [0, 1) falls in, by the classes' shares. */
function classAt(roll: number): (typeof CLASSES)[number] {
  let below = 0;
  for (const candidate of CLASSES) {
    below += candidate.share;
    if (roll < below) return candidate;
  }
  return CLASSES[CLASSES.length - 1];
}

/** Feed texts by shape, generated once: calendars of one class share a text but for their UID prefix. */
const texts = new Map<string, string>();
function feedOf(index: number, shape: { singles: number; series: number }): string {
  const key = `${shape.singles}/${shape.series}`;
  let text = texts.get(key);
  if (text === undefined) {
    text = generateFeed(ANCHOR, shape, 7);
    texts.set(key, text);
  }
  return text.replaceAll("@bench.calq", `@c${index}.bench.calq`);
}

interface Calendar {
  readonly text: string;
  readonly events: number;
  version: number;
}

/** The feed server: each calendar at /c/INDEX.ics, with an ETag per version; a poll finds a new version with probability CHANGED. */
function serveFeeds(calendars: Calendar[]): Promise<{ server: Server; port: number; counts: { full: number; unchanged: number } }> {
  const counts = { full: 0, unchanged: 0 };
  const dice = random(11);
  const server = createServer((request, response) => {
    const calendar = calendars[Number(/^\/c\/(\d+)\.ics$/.exec(request.url ?? "")?.[1] ?? -1)];
    if (calendar === undefined) {
      response.writeHead(404).end();
      return;
    }
    const asked = request.headers["if-none-match"];
    if (asked !== undefined && dice() < CHANGED) calendar.version++;
    const etag = `"v${calendar.version}"`;
    if (asked === etag) {
      counts.unchanged++;
      response.writeHead(304, { etag }).end();
      return;
    }
    counts.full++;
    // A new version edits one line, as a feed does when one event changes; the bytes, and so the snapshot, differ.
    const body = calendar.text.replace("PRODID:-//calq//bench//EN", `PRODID:-//calq//bench//EN\r\nX-BENCH-VERSION:${calendar.version}`);
    response.writeHead(200, { "content-type": "text/calendar", etag }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port, counts })),
  );
}

/** CPU seconds (user + system, every thread) and resident memory of a process, from /proc. */
function usage(pid: number): { cpuS: number; rssMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { cpuS: ticks / 100, rssMiB: Number(rss?.[1] ?? 0) / 1024 };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface LevelResult {
  readonly calendars: number;
  readonly events: number;
  readonly loadS: number;
  readonly loadCpuS: number;
  readonly loadedRssMiB: number;
  readonly steadyRssMiB: number;
  readonly peakRssMiB: number;
  /** Share of one core used by polling and reloads at the real 5-minute rate. */
  readonly cpuShareAtRealRate: number;
  readonly polls: number;
  readonly unchangedShare: number;
  readonly searchP50: number;
  readonly searchP99: number;
}

async function runLevel(count: number): Promise<LevelResult> {
  const pick = random(count);
  const calendars: Calendar[] = Array.from({ length: count }, (_, index) => {
    // Calendar 0 is the one the probe searches: always medium.
    const shape = classAt(index === 0 ? 0.7 : pick());
    return { text: feedOf(index, shape), events: shape.singles + shape.series, version: 0 };
  });
  const feeds = await serveFeeds(calendars);
  const dir = mkdtempSync(join(tmpdir(), "calq-capacity-"));
  const refreshS = REAL_REFRESH_S / SCALE;
  writeFileSync(
    join(dir, "calq.yaml"),
    [
      "calendars:",
      ...calendars.map(
        (_, index) =>
          `  - {id: c${index}, source: "http://127.0.0.1:${feeds.port}/c/${index}.ics", refresh: ${refreshS}s, readers: [bench]}`,
      ),
      "principals:",
      `  - {id: bench, primary: c0, tokens: ["sha256:${sha256Hex(TOKEN)}"]}`,
      // Replaced snapshots are kept for the cursor lifetime: scaled like the refresh, so they pile up as at the real rate.
      `search: {cursor_lifetime_minutes: ${15 / SCALE}}`,
    ].join("\n"),
  );
  const started = performance.now();
  const { child, address } = await startCalqServe(["--data", dir, "--port", "0", "--log-level", "warn"]);
  const pid = child.pid!;
  const loadS = (performance.now() - started) / 1000;
  const loaded = usage(pid);
  const client = new CalqGrpcClient(address, TOKEN);
  try {
    // Let the first polls start (at the refresh interval ±10%), then measure a whole window.
    await sleep(refreshS * 1000);
    feeds.counts.full = 0;
    feeds.counts.unchanged = 0;
    const before = usage(pid);
    const measuredFrom = performance.now();
    const latencies: number[] = [];
    let peakRssMiB = before.rssMiB;
    while (performance.now() - measuredFrom < WINDOW_S * 1000) {
      const searchStarted = performance.now();
      await client.searchEvents({
        calendarId: "c0",
        start: "2026-10-05T00:00:00Z",
        endExclusive: "2026-10-12T00:00:00Z",
        timezone: "UTC",
        matchMode: MatchMode.OVERLAP,
        limit: 100,
      });
      latencies.push(performance.now() - searchStarted);
      peakRssMiB = Math.max(peakRssMiB, usage(pid).rssMiB);
      await sleep(100);
    }
    const after = usage(pid);
    const elapsedS = (performance.now() - measuredFrom) / 1000;
    const polls = feeds.counts.full + feeds.counts.unchanged;
    return {
      calendars: count,
      events: calendars.reduce((sum, calendar) => sum + calendar.events, 0),
      loadS,
      loadCpuS: loaded.cpuS,
      loadedRssMiB: loaded.rssMiB,
      steadyRssMiB: after.rssMiB,
      peakRssMiB,
      cpuShareAtRealRate: (after.cpuS - before.cpuS) / elapsedS / SCALE,
      polls,
      unchangedShare: polls === 0 ? 0 : feeds.counts.unchanged / polls,
      searchP50: percentile(latencies, 50),
      searchP99: percentile(latencies, 99),
    };
  } finally {
    client.close();
    await killed(child as ChildProcess);
    feeds.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What reading a calq.yaml of `count` calendars costs every replica: the YAML, the checks, and placing them in 8 groups. */
function configCost(count: number): { yamlS: number; parseS: number; placeS: number } {
  const document = {
    shards: { groups: ["g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8"] },
    calendars: Array.from({ length: count }, (_, index) => ({
      id: `c${index}`,
      source: `https://calendar.example.com/u${Math.floor(index / 3)}/c${index}.ics`,
      shard_key: `u${Math.floor(index / 3)}`,
      readers: [`u${Math.floor(index / 3)}`],
    })),
    principals: Array.from({ length: Math.ceil(count / 3) }, (_, index) => ({ id: `u${index}` })),
  };
  const text = YAML.stringify(document);
  const yamlStarted = performance.now();
  YAML.parse(text);
  const yamlS = (performance.now() - yamlStarted) / 1000;
  const parseStarted = performance.now();
  const config = parseConfig(document, "/srv/calq", "calq.yaml", {});
  const parseS = (performance.now() - parseStarted) / 1000;
  const placeStarted = performance.now();
  new ShardMap(config, "g1").localCalendars();
  return { yamlS, parseS, placeS: (performance.now() - placeStarted) / 1000 };
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

async function main(): Promise<void> {
  const startLoad = fixed(loadavg()[0], 2);
  const results: LevelResult[] = [];
  for (const level of LEVELS) {
    process.stdout.write(`${level} calendars... `);
    const result = await runLevel(level);
    results.push(result);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
  const configs = [10_000, 100_000].map((count) => ({ count, ...configCost(count) }));
  const first = results[0];
  const last = results[results.length - 1];
  const perCalendarMiB = (last.peakRssMiB - first.peakRssMiB) / (last.calendars - first.calendars);
  const baseMiB = first.peakRssMiB - perCalendarMiB * first.calendars;
  const cpuPerCalendar = last.cpuShareAtRealRate / last.calendars;
  const heapLimitMiB = getHeapStatistics().heap_size_limit / 2 ** 20;
  const byMemory = Math.floor((heapLimitMiB * 0.75 - baseMiB) / perCalendarMiB);
  const byCpu = Math.floor(0.5 / cpuPerCalendar);
  const lines = [
    "## Capacity of one process (bench/capacity.ts)",
    "",
    `- ${machineLine()}`,
    `- Load average of the machine (shared with other work) at the start and the end of the run: ${startLoad} and ${fixed(loadavg()[0], 2)}.`,
    `- Size mix: ${CLASSES.map((c) => `${Math.round(c.share * 100)}% ${c.name} (${c.singles.toLocaleString("en")} events, ${c.series} series)`).join(", ")}; every calendar an HTTP feed on 127.0.0.1.`,
    `- Polled every 5 minutes, time compressed ${SCALE}×: refresh ${REAL_REFRESH_S / SCALE} s, cursor lifetime ${15 / SCALE} min; a poll finds a new version with probability ${CHANGED} (else 304). Measured over ${WINDOW_S} s after the first polls; CPU is the share of one core at the real 5-minute rate (measured ÷ ${SCALE}).`,
    "",
    "| calendars | events | first load | CPU of the first load | RSS loaded | RSS polling (peak) | CPU polling at 5 min | polls, 304 share | search of a week, p50 / p99 |",
    "|---|---|---|---|---|---|---|---|---|",
    ...results.map(
      (r) =>
        `| ${r.calendars.toLocaleString("en")} | ${r.events.toLocaleString("en")} | ${fixed(r.loadS)} s | ${fixed(r.loadCpuS)} s | ${Math.round(r.loadedRssMiB)} MiB | ${Math.round(r.steadyRssMiB)} MiB (${Math.round(r.peakRssMiB)}) | ${fixed(r.cpuShareAtRealRate * 100, 2)}% | ${r.polls}, ${fixed(r.unchangedShare * 100, 0)}% | ${fixed(r.searchP50, 2)} / ${fixed(r.searchP99, 2)} ms |`,
    ),
    "",
    `Per calendar of this mix (from the first and last levels): ${fixed(perCalendarMiB * 1024, 0)} KiB of peak RSS over a base of ${Math.round(baseMiB)} MiB, and ${fixed(cpuPerCalendar * 1e6, 1)} millionths of a core polling at 5 minutes.`,
    `One process then binds on ${byMemory < byCpu ? "memory" : "CPU"} first: about ${byMemory.toLocaleString("en")} calendars fit 75% of Node's default heap limit (${Math.round(heapLimitMiB)} MiB here), while polling would use half a core only at about ${byCpu.toLocaleString("en")}.`,
    "",
    `Reading calq.yaml, which every replica does whole: ${configs.map((c) => `${c.count.toLocaleString("en")} calendars (3 per shard key) take ${fixed(c.yamlS, 2)} s to read as YAML, ${fixed(c.parseS, 2)} s to check and ${fixed(c.placeS, 2)} s to place in 8 groups`).join("; ")}.`,
  ];
  process.stdout.write(`\n${lines.join("\n")}\n`);
  writeResultsSection("capacity", lines.join("\n"));
}

await main();
process.exit(0);

/**
 * `npm run bench:hostile` (with bench/hostile.ts): what one hostile feed or search costs everyone
 * else (issue 10). A real server on a loopback port serves a small calendar
 * next to hostile ones; for each attack, searches of the small calendar run
 * back to back and their latency (p50/p99/max) is recorded, with the
 * server's RSS and how long the attack took. Rewrites its section of
 * bench/RESULTS.md.
 *
 * Not a test and not run in CI: targets (p99 <= 20 ms, max <= 100 ms) are
 * for the benchmark machine. Compare within one run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { MatchMode } from "../gen/calq/v1/calendar_service_pb.js";
import { parseConfig } from "../src/config/calq-config.js";
import { sha256Hex } from "../src/config/secret.js";
import { startServer } from "../src/server/server.js";
import { CalqGrpcClient } from "../test/support/grpc-client.js";
import { generateFeed, generateHourlySeries } from "./generate-feed.js";
import { writeResultsSection } from "./results-file.js";

const DAY = 86_400_000;
const now = Date.now();
const dir = mkdtempSync(join(os.tmpdir(), "calq-hostile-"));
const write = (name: string, text: string) => writeFileSync(join(dir, `${name}.ics`), text);
const big = generateFeed(now, { singles: 100_000, series: 0 }, 7);
write("work", generateFeed(now, { singles: 200, series: 10 }, 3));
write("hourly", generateHourlySeries(now));
write("big", big);
write(
  "setpos",
  "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calq//bench//EN\r\nX-WR-TIMEZONE:UTC\r\nBEGIN:VEVENT\r\nUID:setpos@bench\r\n" +
    "DTSTART:20260101T090000Z\r\nRRULE:FREQ=MINUTELY;BYSETPOS=53\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
);
const ids = ["work", "hourly", "big", "setpos"];
const config = parseConfig(
  {
    calendars: ids.map((id) => ({ id, source: `${id}.ics`, readers: ["bench"] })),
    principals: [{ id: "bench", tokens: [`sha256:${sha256Hex("bench-token")}`] }],
  },
  dir,
  "calq.yaml",
  {},
);
const loadStarted = performance.now();
const server = await startServer({ config, env: {}, port: 0, log: () => {}, refreshFeeds: false });
const firstLoadMs = performance.now() - loadStarted;
const client = new CalqGrpcClient(`127.0.0.1:${server.port}`, "bench-token");
const week = (calendarId: string, offsetDays: number) => ({
  calendarId,
  start: new Date(Math.floor((now + offsetDays * DAY) / DAY) * DAY).toISOString().replace(".000Z", "Z"),
  endExclusive: new Date(Math.floor((now + offsetDays * DAY) / DAY) * DAY + 7 * DAY).toISOString().replace(".000Z", "Z"),
  timezone: "UTC",
  matchMode: MatchMode.OVERLAP,
  limit: 20,
});

const rss = () => process.memoryUsage().rss / 2 ** 20;
const idleRss = rss();

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return `${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)} / ${sorted[sorted.length - 1].toFixed(1)} ms (n=${samples.length})`;
}

/** Searches the small calendar back to back while `attack` runs; returns latencies and the peak RSS seen. */
async function during(attack: () => Promise<unknown>): Promise<{ latencies: number[]; attackMs: number; peakRss: number }> {
  let done = false;
  let peakRss = rss();
  const started = performance.now();
  const running = attack().finally(() => {
    done = true;
  });
  const latencies: number[] = [];
  for (let i = 0; !done || latencies.length < 20; i++) {
    const t0 = performance.now();
    await client.searchEvents(week("work", (i % 300) - 150));
    latencies.push(performance.now() - t0);
    peakRss = Math.max(peakRss, rss());
  }
  await running;
  return { latencies, attackMs: performance.now() - started, peakRss };
}

const rows: string[] = [];
const record = (what: string, result: { latencies: number[]; attackMs: number; peakRss: number }, note = "") =>
  rows.push(`| ${what} | ${stats(result.latencies)} | ${result.peakRss.toFixed(0)} MiB | ${result.attackMs.toFixed(0)} ms | ${note} |`);

// Baseline: nothing else running.
record("no attack (baseline)", await during(() => new Promise((resolve) => setTimeout(resolve, 2_000))));

// Searches of the 10k-hourly-series calendar: two callers, 7-day pages, 2 s deadlines, for 5 s.
const hostileLatencies: number[] = [];
let partial = 0;
let failed = 0;
const searchHourly = async () => {
  const stop = performance.now() + 5_000;
  for (let i = 0; performance.now() < stop; i++) {
    const t0 = performance.now();
    try {
      const page = await client.searchEvents(week("hourly", i % 7), undefined, 2_000);
      if (page.partial) partial++;
    } catch {
      failed++;
    }
    hostileLatencies.push(performance.now() - t0);
  }
};
record(
  "searches of the 10k-hourly-series calendar (2 callers, 7-day pages, 2 s deadline)",
  await during(() => Promise.all([searchHourly(), searchHourly()])),
  `hostile searches: ${stats(hostileLatencies)}, ${partial} partial, ${failed} failed`,
);

// Reloads of the 100k-event feed (changed each time, so rebuilt).
const reloads: number[] = [];
// The versions are encoded beforehand and written asynchronously: the bench's own work must not stall the loop it measures.
const bigVersions = [0, 1, 2].map((i) => Buffer.from(big.replace("BEGIN:VCALENDAR\r\n", `BEGIN:VCALENDAR\r\nX-BENCH-VERSION:${i}\r\n`)));
record(
  `reload of a 100k-event feed (${(big.length / 2 ** 20).toFixed(1)} MiB), 3 times`,
  await during(async () => {
    for (const version of bigVersions) {
      await writeFile(join(dir, "big.ics"), version);
      const t0 = performance.now();
      const { outcome } = await server.store.reload("big");
      if (outcome !== "loaded") throw new Error(`expected the changed feed to load, got ${outcome}`);
      reloads.push(performance.now() - t0);
    }
  }),
  `reload: ${reloads.map((ms) => ms.toFixed(0)).join(", ")} ms`,
);

// The 9-line BYSETPOS feed, reloaded.
let setposMs = 0;
record(
  "reload of the 9-line FREQ=MINUTELY;BYSETPOS=53 feed",
  await during(async () => {
    write("setpos", readFileSync(join(dir, "setpos.ics"), "utf8").replace("UID:", "X-BENCH:1\r\nUID:"));
    const t0 = performance.now();
    await server.store.reload("setpos");
    setposMs = performance.now() - t0;
  }),
  `reload: ${setposMs.toFixed(0)} ms; ${server.store
    .view("setpos")!
    .snapshot!.diagnostics.map((diagnostic) => diagnostic.code)
    .join(", ")}`,
);

client.close();
await server.close(100);
rmSync(dir, { recursive: true, force: true });

const cpu = os.cpus()[0]?.model ?? "unknown CPU";
const section = `## Hostile feeds and searches (bench/hostile-feeds.ts)

Recorded by \`npm run bench:hostile\` (\`node bin/run-ts.mjs bench/hostile-feeds.ts\`), which rewrites this section.
One in-process server on 127.0.0.1 (grpc-js client) serves a small calendar (200 events, 10 series) beside
a 10,000-hourly-series feed, a 100k-event feed and a 9-line BYSETPOS feed. For each attack, 7-day searches of
the small calendar run back to back; targets for them: p99 <= 20 ms and max <= 100 ms.

- Machine: ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}; Node.js ${process.version}
- Load average when done: ${os
  .loadavg()
  .map((load) => load.toFixed(1))
  .join(", ")} (the machine is shared; read the baseline row as the noise floor)
- Run at ${new Date(now).toISOString()}; first load of all four feeds: ${firstLoadMs.toFixed(0)} ms; idle RSS ${idleRss.toFixed(0)} MiB

| attack | small-calendar searches p50 / p99 / max | peak RSS | attack took | notes |
|---|---|---|---|---|
${rows.join("\n")}
`;
writeResultsSection("hostile-feeds", section);
process.stdout.write(section);

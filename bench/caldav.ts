/**
 * `node bin/run-ts.mjs bench/caldav.ts`: a CalDAV calendar of 10,000 events
 * on a real Radicale, read by calq's store through a counting proxy: the
 * first read, then one event changed on the server and the next reload,
 * measured as what it transferred (requests, resources) and how long after
 * the poll's last answer the new snapshot was served (docs/feeds.md, "CalDAV
 * sources"). Writes its section of bench/RESULTS.md. Needs radicale
 * (apt-get install radicale).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_FEED_LIMITS } from "../src/config/config-model.js";
import { Secret } from "../src/config/secret.js";
import { CalendarStore } from "../src/store/calendar-store.js";
import { eventResource, startCountingProxy, startRadicale } from "../test/support/radicale.js";
import { loadLine, machineLine, percentile, writeResultsSection } from "./results-file.js";

const EVENTS = 10_000;
const ROUNDS = 7;

const radicale = await startRadicale();
const proxy = await startCountingProxy(radicale.origin);
try {
  await radicale.makeCalendar("big");
  // Written straight into Radicale's storage: PUTting 10,000 events one by one takes many minutes.
  const folder = radicale.calendarFolder("big");
  const day = (i: number) =>
    `2026${String(1 + (i % 12)).padStart(2, "0")}${String(1 + (i % 28)).padStart(2, "0")}T${String(i % 24).padStart(2, "0")}0000Z`;
  for (let i = 0; i < EVENTS; i++) writeFileSync(join(folder, `e${i}.ics`), eventResource(`e${i}@bench`, `Meeting ${i}`, day(i)));

  const url = new URL(radicale.calendarUrl("big").pathname, proxy.origin);
  const credentials = { scheme: "basic" as const, secret: new Secret(`${radicale.user}:${radicale.password}`) };
  const store = new CalendarStore(
    [
      {
        id: "big",
        name: "big",
        readers: [],
        refreshMs: 3_600_000,
        source: { kind: "caldav", url, credentials },
      },
    ],
    { retentionMs: 60_000, feedLimits: { ...DEFAULT_FEED_LIMITS, fetchTimeoutMs: 30 * 60_000 } },
  );
  let servedAt = 0;
  store.onSnapshot(() => (servedAt = performance.now()));

  const firstStarted = performance.now();
  const first = await store.reload("big");
  const firstMs = performance.now() - firstStarted;
  if (first.outcome !== "loaded") throw new Error(`the first read ${first.outcome}`);
  const firstRequests = proxy.requests.length;
  const firstResources = proxy.requests.reduce((sum, request) => sum + request.resources, 0);

  const rows: { requests: number; resources: number; afterAnswerMs: number; reloadMs: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const i = 5_000 + round;
    await radicale.put("big", `e${i}.ics`, eventResource(`e${i}@bench`, `Meeting ${i} (moved)`, day(i + 1)));
    const from = proxy.requests.length;
    const started = performance.now();
    const outcome = await store.reload("big");
    const reloadMs = performance.now() - started;
    if (outcome.outcome !== "loaded") throw new Error(`a reload was ${outcome.outcome}`);
    const made = proxy.requests.slice(from);
    const answered = Math.max(...made.map((request) => request.answeredAt));
    rows.push({
      requests: made.length,
      resources: made.reduce((sum, request) => sum + request.resources, 0),
      afterAnswerMs: servedAt - answered,
      reloadMs,
    });
  }
  const afterAnswer = rows.map((row) => row.afterAnswerMs);
  const fixed = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
  const section = `## CalDAV: one event changed in 10,000 (bench/caldav.ts)

- ${machineLine()}
- Radicale 3.1 on 127.0.0.1 with ${EVENTS.toLocaleString("en")} events (one resource each), read by calq's store through a loopback
  proxy that counts what crosses it. First read: ${firstRequests} requests, ${firstResources.toLocaleString("en")} resources, ${fixed(firstMs / 1000)} s (most of it Radicale's).
- Then ${ROUNDS} rounds: one event changed on the server (PUT), then a reload: the poll's requests and the resources they
  carried, and the time from the poll's last answer to the new snapshot served (combining the resources into the
  feed text, hashing it, building the snapshot in an ingest worker, swapping it in).

| measure | median | max | target |
|---|---|---|---|
| requests per poll | ${percentile(
    rows.map((row) => row.requests),
    50,
  )} | ${Math.max(...rows.map((row) => row.requests))} | |
| resources transferred per poll | ${percentile(
    rows.map((row) => row.resources),
    50,
  )} | ${Math.max(...rows.map((row) => row.resources))} | ≤ 2 |
| poll's last answer → snapshot served | ${fixed(percentile(afterAnswer, 50))} ms | ${fixed(Math.max(...afterAnswer))} ms | ≤ 100 ms |
| whole reload (poll and build) | ${fixed(
    percentile(
      rows.map((row) => row.reloadMs),
      50,
    ),
  )} ms | ${fixed(Math.max(...rows.map((row) => row.reloadMs)))} ms | |
${loadLine()}
`;
  writeResultsSection("caldav", section);
  process.stdout.write(section);
} finally {
  await proxy.close();
  await radicale.stop();
}
process.exit(0);

/**
 * The calendar registry wired into calq serve (docs/capacity.md, "The
 * calendar registry"): how long from an admin's create to the calendar being
 * searchable on the replica of its group, while creates arrive at 100 a
 * second on a registry of 1,000,000 calendars (target: p99 at most 2 s), and
 * how much memory a replica lets go when its calendars are deleted.
 *
 *   node --expose-gc bin/run-ts.mjs bench/registry-live.ts [--calendars N] [--rate R] [--seconds S]
 *
 * The first part runs a real `calq serve` replica (the built dist/, so
 * `npm run build` first) on PostgreSQL (Debian's, fsync and synchronous
 * commit on). The registry is bulk-loaded as bench/registry.ts does, 400
 * groups of 2,500; the replica's own group holds file calendars, which it
 * loads at start. Each create goes through the admin API of that replica
 * (CreateCalendar over gRPC) with a file feed of its own, so what is
 * measured is the registry, the change feed and the load, not a fetch; a
 * calendar counts as searchable when a SearchEvents call by its reader
 * finds its event. The second part serves in this process (embedded
 * registry), so its heap can be read after a forced collection.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import YAML from "yaml";
import { CalendarAdminService } from "../gen/calq/v1/calendar_admin_service_pb.js";
import { CalendarService, MatchMode } from "../gen/calq/v1/calendar_service_pb.js";
import { parseConfig } from "../src/config/calq-config.js";
import { sha256Hex } from "../src/config/secret.js";
import { openRegistry, placeOf } from "../src/registry/index.js";
import { startServer } from "../src/server/server.js";
import { killed, startCalqServe } from "../test/support/calq-process.js";
import { startPostgres } from "../test/support/postgres.js";
import { loadLine, machineLine, percentile, writeResultsSection } from "./results-file.js";

const { values } = parseArgs({
  options: {
    calendars: { type: "string", default: "1000000" },
    rate: { type: "string", default: "100" },
    seconds: { type: "string", default: "20" },
    /** Who sends the creates: an admin process writing to the registry (as any writer may), or the replica's admin API. */
    through: { type: "string", default: "registry" },
    "memory-calendars": { type: "string", default: "100" },
    "memory-events": { type: "string", default: "2000" },
  },
});
const TOTAL = Number(values.calendars);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const THROUGH = values.through === "api" ? "api" : "registry";
const MEMORY_CALENDARS = Number(values["memory-calendars"]);
const MEMORY_EVENTS = Number(values["memory-events"]);
const GROUP_COUNT = 400;
const GROUPS = Array.from({ length: GROUP_COUNT }, (_, i) => `g${String(i).padStart(3, "0")}`);
const FOLLOWED = GROUPS[0];
const DAY = { start: "2026-10-02", endExclusive: "2026-10-03", timezone: "UTC", matchMode: MatchMode.OVERLAP };

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");

const ms = (value: number) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (wait: number) => new Promise((resolve) => setTimeout(resolve, wait));

/** A feed of `count` one-off events on 2026-10-02 onwards, each named after the calendar. */
function feedOf(id: string, count = 1): string {
  const events = Array.from({ length: count }, (_, i) => {
    const start = new Date(Date.UTC(2026, 9, 2, 9) + i * 3_600_000).toISOString().replace(/[-:]|\.\d+/g, "");
    return [
      "BEGIN:VEVENT",
      `UID:${id}-${i}@calq.bench`,
      `DTSTART:${start}`,
      "DURATION:PT30M",
      `SUMMARY:${id} meeting ${i}`,
      `DESCRIPTION:Agenda of meeting ${i} of ${id}: notes, decisions and follow-ups.`,
      "END:VEVENT",
    ];
  });
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calq//bench//EN", ...events.flat(), "END:VCALENDAR", ""].join("\r\n");
}

function calqYaml(groups: readonly string[] | undefined): string {
  return [
    ...(groups === undefined ? [] : ["shards:", `  groups: [${groups.join(", ")}]`]),
    "calendars: []",
    "principals:",
    `  - {id: admin, tokens: ["sha256:${sha256Hex("token-admin")}"], capabilities: [calendar.admin]}`,
    `  - {id: reader, tokens: ["sha256:${sha256Hex("token-reader")}"]}`,
  ].join("\n");
}

const rows: string[] = [];
const notes: string[] = [];

async function createToSearchable(): Promise<void> {
  const server = await startPostgres({ durable: true });
  const data = mkdtempSync(join(tmpdir(), "calq-bench-live-"));
  let stop = async () => {};
  try {
    const url = await server.createDatabase();
    const database = new URL(url).pathname.slice(1);
    mkdirSync(join(data, "live"));
    writeFileSync(join(data, "calq.yaml"), calqYaml(GROUPS));
    writeFileSync(join(data, "group.ics"), feedOf("group"));
    // The schema: a replica opening the registry migrates it.
    const migrate = await startCalqServe(["--data", data, "--port", "0"], {
      CALQ_REGISTRY_ENGINE: "postgresql",
      CALQ_REGISTRY_URL: url,
      CALQ_SHARD_GROUP: GROUPS[1],
      CALQ_LOG_LEVEL: "error",
    });
    await killed(migrate.child);

    const loadStart = performance.now();
    const step = 100_000;
    for (let from = 1; from <= TOTAL; from += step) {
      await server.query(
        `INSERT INTO registry_calendars (shard_group, id, change_number, live, principals, record)
         SELECT grp, id, n, true, ARRAY['reader'],
           jsonb_build_object('id', id, 'name', '',
             'source', CASE WHEN grp = $3 THEN jsonb_build_object('kind', 'file', 'path', $4::text)
               ELSE jsonb_build_object('kind', 'http', 'url', 'https://calendar.example.com/' || id || '/basic.ics', 'headers', '[]'::jsonb) END,
             'refreshMs', 3600000, 'readers', jsonb_build_array('reader'), 'freeBusyReaders', '[]'::jsonb,
             'shardGroup', grp, 'etag', left(md5(id || ':' || n), 16), 'createdBy', 'bench', 'createdAt', 1767225600000,
             'updatedBy', 'bench', 'updatedAt', 1767225600000, 'changeNumber', n)
         FROM (SELECT n, 'bulk-' || n AS id, 'g' || lpad((n % ${GROUP_COUNT})::text, 3, '0') AS grp
               FROM generate_series($1::bigint, $2::bigint) AS n) AS generated`,
        [from, Math.min(TOTAL, from + step - 1), FOLLOWED, join(data, "group.ics")],
        database,
      );
    }
    await server.query("SELECT setval('registry_change_numbers', $1)", [TOTAL + 10], database);
    await server.query("VACUUM ANALYZE registry_calendars", [], database);
    notes.push(
      `${TOTAL.toLocaleString("en-US")} calendars bulk-loaded in ${((performance.now() - loadStart) / 1000).toFixed(0)} s, ${(TOTAL / GROUP_COUNT).toLocaleString("en-US")} per group; the followed group's are file calendars, the others http.`,
    );

    const started = performance.now();
    const replica = await startCalqServe(["--data", data, "--port", "0"], {
      CALQ_REGISTRY_ENGINE: "postgresql",
      CALQ_REGISTRY_URL: url,
      CALQ_SHARD_GROUP: FOLLOWED,
      CALQ_LOG_LEVEL: "info",
    });
    // The replica logs each load: a search is sent once it says so, rather than polling calendars it cannot know yet.
    const loaded = new Map<string, () => void>();
    /** How long the replica took to handle each CreateCalendar, from its RPC log. */
    const handledMs: number[] = [];
    const seen = new Set<string>();
    let partial = "";
    replica.child.stderr!.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const handled = /"method":"calq\.v1\.CalendarAdminService\/CreateCalendar".*?"duration_ms":([\d.]+)/.exec(line);
        if (handled !== null) handledMs.push(Number(handled[1]));
        const match = /"msg":"calendar loaded".*?"calendar_id":"(live-\d+)"|"calendar_id":"(live-\d+)".*?"msg":"calendar loaded"/.exec(
          line,
        );
        const id = match?.[1] ?? match?.[2];
        if (id === undefined) continue;
        seen.add(id);
        loaded.get(id)?.();
      }
    });
    const loadOf = (id: string) => (seen.has(id) ? Promise.resolve() : new Promise<void>((resolve) => loaded.set(id, resolve)));
    stop = () => killed(replica.child);
    const startMs = performance.now() - started;
    const transport = createGrpcTransport({ baseUrl: `http://${replica.address}` });
    const admin = createClient(CalendarAdminService, transport);
    const search = createClient(CalendarService, transport);
    const asAdmin = { headers: { authorization: "Bearer token-admin" } };
    const asReader = { headers: { authorization: "Bearer token-reader" } };
    rows.push(
      `| a replica of a ${(TOTAL / GROUP_COUNT).toLocaleString("en-US")}-calendar group starts (\`calq serve\`: reads its rows, loads every file calendar) | ${ms(startMs)} | |`,
    );

    // Shard keys rendezvous hashing places in the followed group, so every create lands on the measured replica.
    const keys = Array.from({ length: 5_000 }, (_, i) => `bench-user-${i}`)
      .filter((key) => placeOf(key, GROUPS) === FOLLOWED)
      .slice(0, 10);
    const total = RATE * SECONDS;
    for (let i = 0; i < total; i++) writeFileSync(join(data, "live", `live-${i}.ics`), feedOf(`live-${i}`));

    // An admin tool of its own writing to the registry, as any writer may, or the replica's admin API.
    const writer =
      THROUGH === "registry"
        ? await openRegistry({ engine: "postgresql", connectionString: url, groups: GROUPS, applicationName: "bench-admin" })
        : undefined;
    const createMs: number[] = [];
    const searchableMs: number[] = [];
    let refused = 0;
    const begin = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = begin + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const id = `live-${i}`;
      const at = performance.now();
      pending.push(
        (async () => {
          const path = join(data, "live", `${id}.ics`);
          const shardKey = keys[i % keys.length];
          try {
            if (writer === undefined) {
              await admin.createCalendar(
                { calendar: { id, source: { kind: { case: "file", value: { path } } }, readers: ["reader"], shardKey } },
                asAdmin,
              );
            } else {
              await writer.createCalendar({ id, source: { kind: "file", path }, readers: ["reader"], shardKey }, { by: "bench" });
            }
          } catch {
            refused += 1;
            return;
          }
          createMs.push(performance.now() - at);
          await loadOf(id);
          for (;;) {
            const found = await search.searchEvents({ ...DAY, calendarId: id }, asReader).then(
              (response) => response.events.length > 0,
              () => false,
            );
            if (found) break;
            await sleep(20);
          }
          searchableMs.push(performance.now() - at);
        })(),
      );
    }
    await Promise.all(pending);
    await writer?.close();
    const achieved = total / ((performance.now() - begin) / 1000);
    rows.push(
      `| ${total.toLocaleString("en-US")} creates at ${RATE}/s ${THROUGH === "registry" ? "by an admin process writing to the registry" : "through the replica's admin API"} (achieved ${achieved.toFixed(0)}/s, ${refused} refused), create call p50 / p99 | ${ms(percentile(createMs, 50))} / ${ms(percentile(createMs, 99))} | |`,
      ...(handledMs.length === 0
        ? []
        : [
            `| of which the replica handling CreateCalendar (its RPC log), p50 / p99 | ${ms(percentile(handledMs, 50))} / ${ms(percentile(handledMs, 99))} | |`,
          ]),
      `| from the create call to a search on the replica finding the calendar's event, p50 / p99 / max | ${ms(percentile(searchableMs, 50))} / ${ms(percentile(searchableMs, 99))} / ${ms(Math.max(...searchableMs))} | p99 ≤ 2 s |`,
    );
  } finally {
    await stop();
    await server.destroy();
    rmSync(data, { recursive: true, force: true });
  }
}

/** The heap and the memory outside it (a snapshot's packed arrays) after two forced collections. */
function heapUsed(): number {
  gc!();
  gc!();
  const { heapUsed: heap, external } = process.memoryUsage();
  return heap + external;
}

async function memoryReleased(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "calq-bench-memory-"));
  try {
    for (let i = 0; i < MEMORY_CALENDARS; i++) writeFileSync(join(data, `held-${i}.ics`), feedOf(`held-${i}`, MEMORY_EVENTS));
    const config = parseConfig(YAML.parse(calqYaml(undefined)), data, "calq.yaml", {});
    const server = await startServer({
      config,
      env: {},
      port: 0,
      log: () => {},
      refreshFeeds: false,
      registry: { settings: { engine: "embedded", folder: join(data, "registry") }, folder: join(data, "registry") },
    });
    try {
      const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` });
      const admin = createClient(CalendarAdminService, transport);
      const asAdmin = { headers: { authorization: "Bearer token-admin" } };
      const before = heapUsed();
      for (let i = 0; i < MEMORY_CALENDARS; i++) {
        await admin.createCalendar(
          {
            calendar: {
              id: `held-${i}`,
              source: { kind: { case: "file", value: { path: join(data, `held-${i}.ics`) } } },
              readers: ["reader"],
            },
          },
          asAdmin,
        );
      }
      while (server.store.views().some((view) => view.snapshot === undefined)) await sleep(50);
      const held = heapUsed();
      for (let i = 0; i < MEMORY_CALENDARS; i++) await admin.deleteCalendar({ calendarId: `held-${i}` }, asAdmin);
      while (server.store.views().length > 0) await sleep(50);
      const after = heapUsed();
      const grew = held - before;
      rows.push(
        `| in process, embedded: ${MEMORY_CALENDARS} calendars of ${MEMORY_EVENTS.toLocaleString("en-US")} events created and loaded; heap held by them | ${mib(grew)} (${mib(grew / MEMORY_CALENDARS)} a calendar) | |`,
        `| the same deleted: heap above where it was before they came | ${mib(after - before)} (${((1 - (after - before) / grew) * 100).toFixed(0)}% released) | all released |`,
      );
    } finally {
      await server.close(0);
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

log(`PostgreSQL: ${TOTAL.toLocaleString("en-US")} calendars, creates at ${RATE}/s for ${SECONDS} s`);
await createToSearchable();
log(`memory: ${MEMORY_CALENDARS} calendars of ${MEMORY_EVENTS} events`);
await memoryReleased();

/** How the creates reached the registry, said under the figures. */
const TAKES_CALLS = `One \`calq serve\` replica follows its group (LISTEN/NOTIFY, catch-up by change number) and takes the creates on
its admin API too: a create's path is the admin API, the registry function's commit and NOTIFY, the follower's
catch-up, and the store's first load in an ingest worker.`;
const WRITES_ITSELF = `One \`calq serve\` replica follows its group (LISTEN/NOTIFY, catch-up by change number); the creates come from a
client of the registry of their own in the bench process, as an admin tool or another replica's admin API writes: a
create's path is the registry function's commit and NOTIFY, the follower's catch-up, and the store's first load in an
ingest worker.`;

const markdown = `## The registry in calq serve (bench/registry-live.ts${THROUGH === "api" ? ", creates through the admin API" : ""})

- ${machineLine()}
- Command: \`node --expose-gc bin/run-ts.mjs bench/registry-live.ts --calendars ${TOTAL} --rate ${RATE} --seconds ${SECONDS} --through ${THROUGH}\` (after \`npm run build\`); PostgreSQL 15 (Debian) on the same machine, fsync and synchronous commit on.
${notes.map((note) => `- ${note}`).join("\n")}

| measure | result | target |
|---|---|---|
${rows.join("\n")}

${THROUGH === "api" ? TAKES_CALLS : WRITES_ITSELF}
The bench process reads the replica's log for each calendar's load, then searches it (again every 20 ms until its event
is found). Everything shares the machine with PostgreSQL; each created calendar is a file feed of one event.
${loadLine()}`;
writeResultsSection(THROUGH === "api" ? "registry-live-api" : "registry-live", markdown);
process.stdout.write(`${markdown}\n`);

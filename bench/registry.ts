/**
 * How the calendar registry holds up at fleet size (docs/capacity.md, "The
 * calendar registry"): 1,000,000 calendars in PostgreSQL across 400 groups,
 * the time a starting replica of one 2,500-calendar group takes to read its
 * rows (target: at most 1 s), and the time from a create to the replica of
 * its group holding it while creates arrive at 100 a second (target: p99 at
 * most 2 s); then the embedded journal's figures. Writes its section of
 * bench/RESULTS.md.
 *
 *   node bin/run-ts.mjs bench/registry.ts [--calendars N] [--embedded N,N]
 *
 * PostgreSQL is Debian's, started by test/support/postgres.ts with fsync
 * and synchronous commit on, as in production.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { type CalendarRegistry, followRegistry, openRegistry, placeOf, type RegistryFollower } from "../src/registry/index.js";
import { startPostgres } from "../test/support/postgres.js";
import { loadLine, machineLine, percentile, writeResultsSection } from "./results-file.js";

const { values } = parseArgs({
  options: {
    calendars: { type: "string", default: "1000000" },
    embedded: { type: "string", default: "10000,100000" },
    // Internal: open the embedded registry in this folder in a fresh process and print what it took.
    "measure-open": { type: "string" },
  },
});
const TOTAL = Number(values.calendars);
const EMBEDDED_SIZES = (values.embedded ?? "").split(",").filter(Boolean).map(Number);
const GROUP_COUNT = 400;
const GROUPS = Array.from({ length: GROUP_COUNT }, (_, i) => `g${String(i).padStart(3, "0")}`);
const CREATE_RATE = 100;
const CREATE_SECONDS = 20;
const CREATE_USERS = 10;
const ADMIN = { by: "bench" };

const ms = (value: number) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
const mib = () => `${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`;
const log = (line: string) => process.stderr.write(`${line}\n`);

function spec(id: string, shardKey?: string): Record<string, unknown> {
  return {
    id,
    name: `Calendar ${id}`,
    source: {
      kind: "http",
      url: `https://calendar.example.com/${id}/basic.ics`,
      headers: [{ name: "Authorization", value: { env: "FEED_AUTH" } }],
    },
    zone: "Europe/Berlin",
    readers: [`reader-${id}`],
    ...(shardKey === undefined ? {} : { shardKey }),
  };
}

/** Times `work`; answers its result and the milliseconds it took. */
async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

const rows: string[] = [];
const notes: string[] = [];

async function postgresFigures(): Promise<void> {
  const server = await startPostgres({ durable: true });
  const opened: { close(): Promise<void> }[] = [];
  const copies = mkdtempSync(join(tmpdir(), "calq-bench-copies-"));
  try {
    const url = await server.createDatabase();
    const database = new URL(url).pathname.slice(1);
    const writer = await openRegistry({ engine: "postgresql", connectionString: url, groups: GROUPS, applicationName: "bench-writer" });
    opened.push(writer);

    // Bulk rows straight into the table: the API would take an hour of single creates. Groups are
    // dealt round-robin, so one group's rows lie every 400th row of the heap, as creates over time leave them.
    const [, loadMs] = await timed(async () => {
      const step = 100_000;
      for (let from = 1; from <= TOTAL; from += step) {
        await server.query(
          `INSERT INTO registry_calendars (shard_group, id, change_number, live, principals, record)
           SELECT grp, id, n, true, ARRAY['reader-' || id],
             jsonb_build_object('id', id, 'name', 'Calendar ' || id,
               'source', jsonb_build_object('kind', 'http', 'url', 'https://calendar.example.com/' || id || '/basic.ics',
                 'headers', jsonb_build_array(jsonb_build_object('name', 'Authorization', 'value', jsonb_build_object('env', 'FEED_AUTH')))),
               'zone', 'Europe/Berlin', 'refreshMs', 300000, 'readers', jsonb_build_array('reader-' || id), 'freeBusyReaders', '[]'::jsonb,
               'shardGroup', grp, 'etag', left(md5(id || ':' || n), 16), 'createdBy', 'bench', 'createdAt', 1767225600000,
               'updatedBy', 'bench', 'updatedAt', 1767225600000, 'changeNumber', n)
           FROM (SELECT n, 'bulk-' || n AS id, 'g' || lpad((n % ${GROUP_COUNT})::text, 3, '0') AS grp
                 FROM generate_series($1::bigint, $2::bigint) AS n) AS generated`,
          [from, Math.min(TOTAL, from + step - 1)],
          database,
        );
        log(`  loaded ${Math.min(TOTAL, from + step - 1).toLocaleString("en-US")} calendars`);
      }
      await server.query("SELECT setval('registry_change_numbers', $1)", [TOTAL], database);
      await server.query("VACUUM ANALYZE registry_calendars", [], database);
    });
    const [size] = await server.query<{ size: string }>(
      "SELECT pg_size_pretty(pg_total_relation_size('registry_calendars')) AS size",
      [],
      database,
    );
    notes.push(
      `${TOTAL.toLocaleString("en-US")} calendars bulk-loaded in ${(loadMs / 1000).toFixed(0)} s (table and indexes: ${size.size}); groups dealt round-robin, ${(TOTAL / GROUP_COUNT).toLocaleString("en-US")} per group.`,
    );

    // A starting replica: a new client (connect, schema check), then its group's rows. Each sample reads another group.
    const starts: number[] = [];
    const reads: number[] = [];
    let groupSize = 0;
    for (let i = 0; i < 10; i++) {
      const group = GROUPS[(i * 37 + 11) % GROUP_COUNT];
      const [registry, openMs] = await timed(() =>
        openRegistry({ engine: "postgresql", connectionString: url, groups: GROUPS, applicationName: `bench-start-${i}` }),
      );
      const [snapshot, readMs] = await timed(() => registry.loadGroup(group));
      groupSize = snapshot.calendars.length;
      starts.push(openMs + readMs);
      reads.push(readMs);
      await registry.close();
    }
    rows.push(
      `| PostgreSQL, ${TOTAL.toLocaleString("en-US")} calendars in ${GROUP_COUNT} groups: a new replica opens and reads its group of ${groupSize.toLocaleString("en-US")} (10 groups, each read once) | median ${ms(percentile(starts, 50))}, max ${ms(Math.max(...starts))} | ≤ 1 s |`,
      `| of which reading the group's rows (loadGroup) | median ${ms(percentile(reads, 50))}, max ${ms(Math.max(...reads))} | |`,
    );

    // Creates at 100 a second for 20 s, by 10 users each with their own shard key; one replica follows each group they land in.
    const keys = Array.from({ length: CREATE_USERS }, (_, i) => `bench-user-${i}`);
    const followed = [...new Set(keys.map((key) => placeOf(key, GROUPS)!))];
    const createdAt = new Map<string, number>();
    const seenAfter: number[] = [];
    for (const group of followed) {
      const client = await openRegistry({
        engine: "postgresql",
        connectionString: url,
        groups: GROUPS,
        applicationName: `bench-replica-${group}`,
        poolSize: 1,
      });
      opened.push(client);
      const follower: RegistryFollower = await followRegistry({
        registry: client,
        group,
        copyPath: join(copies, `${group}.json`),
        onEvent: (event) => {
          if (event.kind !== "calendar-added") return;
          const start = createdAt.get(event.calendar.id);
          if (start !== undefined) seenAfter.push(performance.now() - start);
        },
      });
      opened.push(follower);
    }
    const createMs: number[] = [];
    let refused = 0;
    const total = CREATE_RATE * CREATE_SECONDS;
    const begin = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = begin + (i * 1000) / CREATE_RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const id = `live-${i}`;
      createdAt.set(id, performance.now());
      pending.push(
        writer.createCalendar(spec(id, keys[i % CREATE_USERS]), ADMIN).then(
          () => {
            createMs.push(performance.now() - createdAt.get(id)!);
          },
          () => {
            refused += 1;
            createdAt.delete(id);
          },
        ),
      );
    }
    await Promise.all(pending);
    const achieved = total / ((performance.now() - begin) / 1000);
    const deadline = performance.now() + 30_000;
    while (seenAfter.length < total - refused && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    rows.push(
      `| PostgreSQL: ${total.toLocaleString("en-US")} creates at ${CREATE_RATE}/s (achieved ${achieved.toFixed(0)}/s, ${refused} refused) on the ${TOTAL.toLocaleString("en-US")}-calendar table, create call p50 / p99 | ${ms(percentile(createMs, 50))} / ${ms(percentile(createMs, 99))} | |`,
      `| from the create call to the replica of its group holding it (${followed.length} groups followed, one replica each; ${seenAfter.length} of ${total} seen), p50 / p99 / max | ${ms(percentile(seenAfter, 50))} / ${ms(percentile(seenAfter, 99))} / ${ms(Math.max(...seenAfter))} | p99 ≤ 2 s |`,
    );
  } finally {
    for (const item of opened.reverse()) await item.close().catch(() => undefined);
    await server.destroy();
    rmSync(copies, { recursive: true, force: true });
  }
}

async function embeddedFigures(size: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "calq-bench-embedded-"));
  const folder = join(root, "registry");
  try {
    let registry: CalendarRegistry = await openRegistry({ engine: "embedded", folder, groups: GROUPS.slice(0, 4) });
    const creates: number[] = [];
    for (let i = 0; i < size; i++) {
      const [, took] = await timed(() => registry.createCalendar(spec(`cal-${i}`), ADMIN));
      creates.push(took);
    }
    await registry.close();
    const fresh = JSON.parse(
      execFileSync(process.execPath, [join("bin", "run-ts.mjs"), "bench/registry.ts", "--measure-open", folder], { encoding: "utf8" }),
    ) as { openMs: number; rssMiB: number; idleMiB: number };
    registry = await openRegistry({ engine: "embedded", folder, groups: GROUPS.slice(0, 4) });
    const [snapshot, loadMs] = await timed(() => registry.loadGroup(GROUPS[0]));
    const [, listMs] = await timed(() => registry.listCalendars({ idPrefix: "cal-5", pageSize: 100 }));
    // A follower in the same process: from a create to its event.
    const copyPath = join(root, "copy.json");
    let started = 0;
    const seen: number[] = [];
    const follower = await followRegistry({
      registry,
      group: GROUPS[0],
      copyPath,
      onEvent: (event) => {
        if (event.kind === "calendar-added" && event.calendar.id.startsWith("live-")) seen.push(performance.now() - started);
      },
    });
    for (let i = 0; seen.length < 200 && i < 2_000; i++) {
      started = performance.now();
      const before = seen.length;
      const { calendar } = await registry.createCalendar(spec(`live-${i}`), ADMIN);
      if (calendar.shardGroup === GROUPS[0]) while (seen.length === before) await new Promise((resolve) => setImmediate(resolve));
    }
    await follower.close();
    await registry.close();
    const label = `embedded journal, ${size.toLocaleString("en-US")} calendars`;
    rows.push(
      `| ${label}: create (validated, appended, fdatasync'd), p50 / p99 | ${ms(percentile(creates, 50))} / ${ms(percentile(creates, 99))} | |`,
      `| ${label}: open in a fresh process (read and check the journal); its RSS after, and before | ${ms(fresh.openMs)}; ${fresh.rssMiB} MiB, ${fresh.idleMiB} MiB | |`,
      `| ${label}: read a group of ${snapshot.calendars.length.toLocaleString("en-US")} / a listing page of 100 by id prefix | ${ms(loadMs)} / ${ms(listMs)} | |`,
      `| ${label}: from a create to a follower in the same process holding it, p50 / p99 | ${ms(percentile(seen, 50))} / ${ms(percentile(seen, 99))} | |`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (values["measure-open"] !== undefined) {
  const idleMiB = Math.round(process.memoryUsage().rss / 2 ** 20);
  const [registry, openMs] = await timed(() =>
    openRegistry({ engine: "embedded", folder: values["measure-open"]!, groups: GROUPS.slice(0, 4) }),
  );
  process.stdout.write(JSON.stringify({ openMs, rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20), idleMiB }));
  await registry.close();
  process.exit(0);
}
log(`PostgreSQL: ${TOTAL.toLocaleString("en-US")} calendars`);
await postgresFigures();
for (const size of EMBEDDED_SIZES) {
  log(`embedded: ${size.toLocaleString("en-US")} calendars`);
  await embeddedFigures(size);
}
const markdown = `## The calendar registry (bench/registry.ts)

- ${machineLine()}
- Command: \`node bin/run-ts.mjs bench/registry.ts --calendars ${TOTAL} --embedded ${EMBEDDED_SIZES.join(",")}\`; PostgreSQL ${"15"} (Debian) on the same machine, fsync and synchronous commit on.
${notes.map((note) => `- ${note}`).join("\n")}

| measure | result | target |
|---|---|---|
${rows.join("\n")}

A replica's start reads only its group's rows through the primary key (shard_group, id). Each create is one call of
registry_put_calendar (lock its group, number, row, audit row, NOTIFY; one statement and its commit); each replica
catches up by change number when its group's channel wakes it, and writes its local copy at most once a second. The
writer and every replica run in this one process, beside PostgreSQL, on the same shared machine. RSS of this process at the end: ${mib()}.
${loadLine()}`;
writeResultsSection("registry", markdown);
process.stdout.write(`${markdown}\n`);

/**
 * The calendar registry as a fleet runs it: `calq serve` replicas on real
 * ports (in this process, but where a crash is the point), a real
 * PostgreSQL, and a grpc-js client. Both replicas of a group
 * serve what an admin creates, without a restart, and the other group's
 * replica refuses it as the access rules say; a replica cut from the
 * database (a relay the test cuts) keeps serving and catches up on every
 * change it missed; a replica started while the database is down serves
 * its local copy and says so; with the database down while serving,
 * searches go on, changes are refused UNAVAILABLE, and they flow again when
 * it returns. And, for both engines: an id calq.yaml and the registry both
 * hold stops the start, naming it. Every test waits for conditions, never
 * for a time.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { RegistrySource } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { sha256Hex } from "../../src/config/secret.js";
import { placeOf } from "../../src/registry/index.js";
import { CALQ, killed, spawnNode, startCalqServe } from "../support/calq-process.js";
import { feed } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, grpc } from "../support/grpc-client.js";
import { serveInProcess } from "../support/in-process.js";
import {
  type CuttableLink,
  POSTGRES_MISSING,
  postgresGate,
  type RunningPostgres,
  startCuttableLink,
  startPostgres,
} from "../support/postgres.js";

const GROUPS = ["g1", "g2"];
const WAIT = { timeout: 30_000, interval: 50 };
const DAY = { start: "2026-10-02", endExclusive: "2026-10-03", timezone: "UTC", matchMode: MatchMode.OVERLAP };
/** Shard keys rendezvous hashing places in each group. */
const KEY_IN: Record<string, string> = Object.fromEntries(
  GROUPS.map((group) => [group, Array.from({ length: 100 }, (_, i) => `user-${i}`).find((key) => placeOf(key, GROUPS) === group)!]),
);

const replicas: Replica[] = [];
const children: ChildProcess[] = [];
const clients: CalqGrpcClient[] = [];
const folders: string[] = [];
const links: CuttableLink[] = [];

function temporary(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
}

/** A feed with one event on 2026-10-02 named `summary`. */
const dayFeed = (summary: string) =>
  feed([], [`UID:${summary}@calq.test`, "DTSTART:20261002T090000Z", "DTEND:20261002T093000Z", `SUMMARY:${summary}`]);

/** A data folder: calq.yaml with the principals (and `calendars` lines, if any) and feeds written beside it. */
function dataFolder(options: { groups?: boolean; calendars?: string[]; feeds?: Record<string, string> } = {}): string {
  const dir = temporary("calq-registry-data-");
  for (const [name, text] of Object.entries(options.feeds ?? {})) writeFileSync(join(dir, name), text);
  writeFileSync(
    join(dir, "calq.yaml"),
    [
      ...(options.groups === false ? [] : ["shards:", `  groups: [${GROUPS.join(", ")}]`]),
      "calendars:",
      ...(options.calendars ?? ["  - {id: yaml-work, source: yaml-work.ics, readers: [an]}"]),
      "principals:",
      `  - {id: admin, tokens: ["sha256:${sha256Hex("token-admin")}"], capabilities: [calendar.admin]}`,
      `  - {id: an, tokens: ["sha256:${sha256Hex("token-an")}"]}`,
      `  - {id: binh, tokens: ["sha256:${sha256Hex("token-binh")}"]}`,
      "search:",
      "  cursor_key_env: [CURSOR_KEY]",
    ].join("\n"),
  );
  writeFileSync(join(dir, "yaml-work.ics"), dayFeed("Yaml work"));
  return dir;
}

interface Replica {
  /** Stops it: SIGKILL for a process, close() for one in this process. */
  readonly stop: () => Promise<void>;
  readonly admin: CalqGrpcClient;
  readonly an: CalqGrpcClient;
  readonly binh: CalqGrpcClient;
}

/**
 * Starts `calq serve` on `dir` with `env` (the registry's settings), and its
 * clients: in this process unless `as` asks for a process of its own (a
 * replica shares nothing with another but the database and the folder;
 * a process each cost most of this file's time).
 */
async function replica(dir: string, env: Record<string, string>, as: "in-process" | "process" = "in-process"): Promise<Replica> {
  const args = ["--data", dir, "--port", "0"];
  const withKey = { CURSOR_KEY: "a shared cursor key, 32 characters", ...env };
  let address: string;
  let stop: () => Promise<void>;
  if (as === "process") {
    const started = await startCalqServe(args, withKey);
    address = started.address;
    stop = () => killed(started.child);
  } else {
    const served = await serveInProcess(args, withKey);
    address = served.address;
    stop = served.stop;
  }
  const [admin, an, binh] = ["token-admin", "token-an", "token-binh"].map((token) => new CalqGrpcClient(address, token));
  clients.push(admin, an, binh);
  const running = { stop, admin, an, binh };
  replicas.push(running);
  return running;
}

/** The summaries a caller finds on the calendar that day, or the reason it is refused with. */
async function summaries(client: CalqGrpcClient, calendarId: string): Promise<string[] | string> {
  try {
    return (await client.searchEvents({ ...DAY, calendarId })).events.map((event) => event.summary);
  } catch (error) {
    return (await failureOf(Promise.reject(error))).errorInfo?.reason ?? "no reason";
  }
}

const fileCalendar = (dir: string, id: string, file: string, readers: string[], shardKey = KEY_IN.g1) => ({
  id,
  source: { kind: { case: "file" as const, value: { path: join(dir, file) } } },
  readers,
  shardKey,
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(replicas.splice(0).map((running) => running.stop()));
  await Promise.all(children.splice(0).map(killed));
  for (const link of links.splice(0)) await link.close();
});

afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const POSTGRES_GATE = postgresGate();
const pgTest = POSTGRES_GATE === "skip" ? it.skip : it;

describe("replicas following a PostgreSQL registry", () => {
  let server: RunningPostgres;

  beforeAll(async () => {
    if (POSTGRES_GATE === "fail") throw new Error(POSTGRES_MISSING);
    if (POSTGRES_GATE === "run") server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.destroy();
  });

  /** The settings of a replica of `group` on database `url`, with its own registry folder (its local copy). */
  const settings = (url: string, group: string, folder = temporary("calq-registry-copy-")) => ({
    CALQ_REGISTRY_ENGINE: "postgresql",
    CALQ_REGISTRY_URL: url,
    CALQ_SHARD_GROUP: group,
    CALQ_REGISTRY_FOLDER: folder,
  });

  pgTest(
    "both replicas of a group serve a created calendar without a restart; the other group's replica names the group to its readers only",
    async () => {
      const url = await server.createDatabase();
      const dir = dataFolder({ feeds: { "team.ics": dayFeed("Team sync") } });
      const [first, second, other] = await Promise.all([
        replica(dir, settings(url, "g1")),
        replica(dir, settings(url, "g1")),
        replica(dir, settings(url, "g2")),
      ]);
      const { calendar, created } = await first.admin.createCalendar({ calendar: fileCalendar(dir, "team", "team.ics", ["an"]) });
      expect(created).toBe(true);
      expect(calendar?.shardGroup).toBe("g1");
      for (const each of [first, second])
        await vi.waitFor(async () => expect(await summaries(each.an, "team")).toEqual(["Team sync"]), WAIT);

      const elsewhere = await failureOf(other.an.searchEvents({ ...DAY, calendarId: "team" }));
      expect(elsewhere.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(elsewhere.errorInfo).toMatchObject({
        reason: "CALENDAR_IN_OTHER_SHARD_GROUP",
        metadata: { shard_group: "g1", shard_key: KEY_IN.g1 },
      });
      const stranger = await failureOf(other.binh.searchEvents({ ...DAY, calendarId: "team" }));
      const unknown = await failureOf(other.binh.searchEvents({ ...DAY, calendarId: "never-was" }));
      expect(stranger.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
      expect(stranger.detailsBin).toEqual(unknown.detailsBin);

      // Deleted through the other group's replica: every writer writes to the one registry.
      await other.admin.deleteCalendar({ calendarId: "team" });
      for (const each of [first, second]) {
        await vi.waitFor(async () => expect(await summaries(each.an, "team")).toBe("CALENDAR_NOT_ACCESSIBLE"), WAIT);
      }
    },
  );

  pgTest("a replica cut from the database keeps serving, and then catches up on every change it missed", async () => {
    const url = await server.createDatabase();
    const dir = dataFolder({ feeds: { "a.ics": dayFeed("A"), "b.ics": dayFeed("B"), "c.ics": dayFeed("C") } });
    const writer = await replica(dir, settings(url, "g1"));
    const { calendar: kept } = await writer.admin.createCalendar({ calendar: fileCalendar(dir, "kept", "a.ics", ["an"]) });
    await writer.admin.createCalendar({ calendar: fileCalendar(dir, "leaving", "b.ics", ["an"]) });
    const link = await startCuttableLink(server.port);
    links.push(link);
    const cut = await replica(dir, settings(url.replace(`:${server.port}/`, `:${link.port}/`), "g1"));
    await vi.waitFor(async () => expect(await summaries(cut.an, "leaving")).toEqual(["B"]), WAIT);

    link.cut();
    await vi.waitFor(async () => expect((await cut.admin.getCalendarStatus()).registry?.connected).toBe(false), WAIT);
    await writer.admin.updateCalendar({ calendar: fileCalendar(dir, "kept", "a.ics", ["binh"]), etag: kept!.etag });
    await writer.admin.deleteCalendar({ calendarId: "leaving" });
    await writer.admin.createCalendar({ calendar: fileCalendar(dir, "arrived", "c.ics", ["an"]) });
    const refused = await failureOf(cut.admin.createCalendar({ calendar: fileCalendar(dir, "through-cut", "c.ics", ["an"]) }));
    expect(refused.code).toBe(grpc.status.UNAVAILABLE);
    expect(refused.errorInfo?.reason).toBe("REGISTRY_UNAVAILABLE");
    // Served from what it holds all along.
    expect(await summaries(cut.an, "leaving")).toEqual(["B"]);
    expect(await summaries(cut.an, "kept")).toEqual(["A"]);

    link.restore();
    await vi.waitFor(async () => expect(await summaries(cut.an, "arrived")).toEqual(["C"]), WAIT);
    await vi.waitFor(async () => expect(await summaries(cut.an, "leaving")).toBe("CALENDAR_NOT_ACCESSIBLE"), WAIT);
    expect(await summaries(cut.an, "kept")).toBe("CALENDAR_NOT_ACCESSIBLE");
    expect(await summaries(cut.binh, "kept")).toEqual(["A"]);
    const { registry } = await cut.admin.getCalendarStatus();
    expect(registry).toMatchObject({ connected: true, source: RegistrySource.REGISTRY, problem: "" });
  });

  pgTest(
    "a replica started while the database is down serves its local copy and says so, then follows once the database answers",
    async () => {
      const url = await server.createDatabase();
      const dir = dataFolder({ feeds: { "a.ics": dayFeed("A"), "b.ics": dayFeed("B") } });
      const copyFolder = temporary("calq-registry-copy-");
      const first = await replica(dir, settings(url, "g1", copyFolder));
      await first.admin.createCalendar({ calendar: fileCalendar(dir, "copied", "a.ics", ["an"]) });
      await vi.waitFor(async () => expect(await summaries(first.an, "copied")).toEqual(["A"]), WAIT);
      // The copy is written just after the change is applied: wait for it to hold the calendar.
      await vi.waitFor(() => expect(readFileSync(join(copyFolder, "registry-copy-g1.json"), "utf8")).toContain('"id":"copied"'), WAIT);
      await first.stop();

      await server.stop();
      try {
        const restarted = await replica(dir, settings(url, "g1", copyFolder));
        expect(await summaries(restarted.an, "copied")).toEqual(["A"]);
        const { registry } = await restarted.admin.getCalendarStatus();
        expect(registry).toMatchObject({ source: RegistrySource.LOCAL_COPY, connected: false, calendarCount: 1 });
        expect(registry?.problem).not.toBe("");
        const refused = await failureOf(restarted.admin.createCalendar({ calendar: fileCalendar(dir, "later", "b.ics", ["an"]) }));
        expect(refused.errorInfo?.reason).toBe("REGISTRY_UNAVAILABLE");

        await server.start();
        await vi.waitFor(
          async () => expect((await restarted.admin.getCalendarStatus()).registry?.source).toBe(RegistrySource.REGISTRY),
          WAIT,
        );
        await restarted.admin.createCalendar({ calendar: fileCalendar(dir, "later", "b.ics", ["an"]) });
        await vi.waitFor(async () => expect(await summaries(restarted.an, "later")).toEqual(["B"]), WAIT);
      } finally {
        await server.start().catch(() => undefined);
      }
    },
  );

  pgTest("with the database down while serving, searches go on and changes are refused UNAVAILABLE, until it returns", async () => {
    const url = await server.createDatabase();
    const dir = dataFolder({ feeds: { "a.ics": dayFeed("A"), "b.ics": dayFeed("B") } });
    const [first, second] = await Promise.all([replica(dir, settings(url, "g1")), replica(dir, settings(url, "g1"))]);
    await first.admin.createCalendar({ calendar: fileCalendar(dir, "steady", "a.ics", ["an"]) });
    // Each replica loads the calendar's feed on its own after it follows the create: wait for both.
    for (const each of [first, second]) await vi.waitFor(async () => expect(await summaries(each.an, "steady")).toEqual(["A"]), WAIT);

    await server.stop();
    try {
      for (const each of [first, second]) expect(await summaries(each.an, "steady")).toEqual(["A"]);
      expect(await summaries(first.an, "yaml-work")).toEqual(["Yaml work"]);
      const refused = await failureOf(first.admin.createCalendar({ calendar: fileCalendar(dir, "resumed", "b.ics", ["an"]) }));
      expect(refused.code).toBe(grpc.status.UNAVAILABLE);
      expect(refused.errorInfo?.reason).toBe("REGISTRY_UNAVAILABLE");
    } finally {
      await server.start();
    }
    await vi.waitFor(() => first.admin.createCalendar({ calendar: fileCalendar(dir, "resumed", "b.ics", ["an"]) }), WAIT);
    for (const each of [first, second]) await vi.waitFor(async () => expect(await summaries(each.an, "resumed")).toEqual(["B"]), WAIT);
  });

  pgTest("an id both calq.yaml and the registry hold stops the start, naming it", async () => {
    const url = await server.createDatabase();
    const dir = dataFolder({ feeds: { "a.ics": dayFeed("A") } });
    const writer = await replica(dir, settings(url, "g1"));
    await writer.admin.createCalendar({ calendar: fileCalendar(dir, "clash", "a.ics", ["an"]) });
    const clashing = dataFolder({
      calendars: [`  - {id: clash, source: a.ics, shard_key: ${KEY_IN.g1}, readers: [an]}`],
      feeds: { "a.ics": dayFeed("A") },
    });
    const run = await exited(clashing, settings(url, "g1"));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("calq.yaml and the calendar registry both hold calendar id clash");
  });
});

/** Runs `calq serve` expecting it to stop at start; its exit status and what it wrote to stderr. */
function exited(dir: string, env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  const child = spawnNode([CALQ, "serve", "--data", dir, "--port", "0"], env);
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once("exit", (status) => resolve({ status, stderr })));
}

describe("an embedded registry", () => {
  it("keeps its calendars across a restart, and an id calq.yaml then declares too stops the start, naming it", async () => {
    const dir = dataFolder({ groups: false, feeds: { "a.ics": dayFeed("A") } });
    const registryFolder = temporary("calq-registry-embedded-");
    // Processes, killed: what the registry keeps is what a crash leaves.
    const first = await replica(dir, { CALQ_REGISTRY_FOLDER: registryFolder }, "process");
    await first.admin.createCalendar({ calendar: fileCalendar(dir, "clash", "a.ics", ["an"], "") });
    await vi.waitFor(async () => expect(await summaries(first.an, "clash")).toEqual(["A"]), WAIT);
    await first.stop();

    const again = await replica(dir, { CALQ_REGISTRY_FOLDER: registryFolder }, "process");
    expect(await summaries(again.an, "clash")).toEqual(["A"]);
    await again.stop();

    writeFileSync(
      join(dir, "calq.yaml"),
      `calendars:\n  - {id: clash, source: a.ics, readers: [an]}\nprincipals:\n  - {id: an, tokens: ["sha256:${sha256Hex("token-an")}"]}\n`,
    );
    const run = await exited(dir, { CALQ_REGISTRY_FOLDER: registryFolder });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("calq.yaml and the calendar registry both hold calendar id clash");
  });
});

/**
 * What a replica does when PostgreSQL or the way to it fails: cut off, it
 * keeps serving what it holds and catches up on every change it missed once
 * the link is back; started while the database is away, it serves its local
 * copy and says so; with the database stopped, writes are refused as
 * UNAVAILABLE and changes flow again when it returns. Also: migrations are
 * applied once however many processes start together. The link is cut by a
 * relay the test controls, or by the server itself (pg_terminate_backend, a
 * stop and start).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type CalendarRegistry,
  type FollowerEvent,
  followRegistry,
  openRegistry,
  placeOf,
  type RegistryFollower,
} from "../../src/registry/index.js";
import {
  type CuttableLink,
  POSTGRES_MISSING,
  postgresGate,
  type RunningPostgres,
  startCuttableLink,
  startPostgres,
} from "../support/postgres.js";

const GROUPS = ["g1", "g2", "g3"];
const ADMIN = { by: "admin-an" };
/** Quick reconnection, so a restored link is noticed soon. */
const LINK = { retryMs: 50, maxRetryMs: 250, pingMs: 1_000 };
const WAIT = { timeout: 15_000, interval: 20 };

const POSTGRES_GATE = postgresGate();
const test = POSTGRES_GATE === "skip" ? it.skip : it;

describe("a PostgreSQL registry under faults", () => {
  let server: RunningPostgres;
  let folder: string;
  const opened: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    if (POSTGRES_GATE === "fail") throw new Error(POSTGRES_MISSING);
    if (POSTGRES_GATE === "run") server = await startPostgres();
    folder = mkdtempSync(join(tmpdir(), "calq-registry-faults-"));
  }, 120_000);
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close().catch(() => undefined);
  });
  afterAll(async () => {
    await server?.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  async function open(connectionString: string, applicationName = "calq-test"): Promise<CalendarRegistry> {
    const registry = await openRegistry({ engine: "postgresql", connectionString, groups: GROUPS, applicationName, link: LINK });
    opened.push(registry);
    return registry;
  }

  async function relay(): Promise<CuttableLink> {
    const link = await startCuttableLink(server.port);
    opened.push(link);
    return link;
  }

  /** The database URL through `link` instead of straight to the server. */
  const through = (url: string, link: CuttableLink) => url.replace(`:${server.port}/`, `:${link.port}/`);

  async function follow(registry: CalendarRegistry, copyPath: string, events: FollowerEvent[] = []): Promise<RegistryFollower> {
    const follower = await followRegistry({ registry, group: "g1", copyPath, onEvent: (event) => events.push(event) });
    opened.push(follower);
    return follower;
  }

  /** A shard key rendezvous hashing places in g1, where every replica of these tests serves. */
  const G1_KEY = Array.from({ length: 100 }, (_, i) => `user-${i}`).find((key) => placeOf(key, GROUPS) === "g1")!;

  function calendar(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { id, source: { kind: "http", url: `https://calendar.example.com/${id}.ics` }, readers: ["an"], shardKey: G1_KEY, ...extra };
  }

  const summary = (events: FollowerEvent[]) =>
    events.map((event) =>
      event.kind === "person-set" ? `${event.kind} ${event.person.principalId}` : `${event.kind} ${event.calendar.id}`,
    );

  test("the shard key the tests use lands in g1", async () => {
    const registry = await open(await server.createDatabase());
    expect((await registry.createCalendar(calendar("probe"), ADMIN)).calendar.shardGroup).toBe("g1");
  });

  test("a replica cut off keeps serving, is refused writes, and then catches up on every change it missed, in order, once each", async () => {
    const url = await server.createDatabase();
    const writer = await open(url);
    const link = await relay();
    const replica = await open(through(url, link), "replica-cut");
    const { calendar: kept } = await writer.createCalendar(calendar("kept"), ADMIN);
    await writer.createCalendar(calendar("leaving"), ADMIN);
    const events: FollowerEvent[] = [];
    const follower = await follow(replica, join(folder, "cut-copy.json"), events);
    expect(follower.calendars().size).toBe(2);

    link.cut();
    await vi.waitFor(() => expect(follower.status().link).toBe("disconnected"), WAIT);
    expect(await replica.createCalendar(calendar("refused"), ADMIN).catch((error: unknown) => error)).toMatchObject({
      failure: "UNAVAILABLE",
    });
    events.length = 0;
    const changed = await writer.updateCalendar(calendar("kept", { name: "Kept" }), kept.etag, ADMIN);
    await writer.createCalendar(calendar("new-one"), ADMIN);
    await writer.deleteCalendar("leaving", undefined, ADMIN);
    await writer.createCalendar(calendar("new-two"), ADMIN);
    await writer.setPerson({ principalId: G1_KEY }, undefined, ADMIN);
    // Served from memory all along: the cut replica still has what it had.
    expect([...follower.calendars().keys()].sort()).toEqual(["kept", "leaving"]);

    link.restore();
    await vi.waitFor(() => expect(follower.status()).toMatchObject({ link: "connected", changeNumber: changed.changeNumber + 4 }), WAIT);
    expect(summary(events)).toEqual([
      "calendar-changed kept",
      "calendar-added new-one",
      "calendar-removed leaving",
      "calendar-added new-two",
      `person-set ${G1_KEY}`,
    ]);
    expect([...follower.calendars().keys()].sort()).toEqual(["kept", "new-one", "new-two"]);
    expect(follower.calendars().get("kept")).toEqual(changed);
    expect(follower.status().source).toBe("registry");
  });

  test("a replica whose connections the server terminates reconnects and sees the changes made meanwhile", async () => {
    const url = await server.createDatabase();
    const writer = await open(url);
    const replica = await open(url, "replica-terminated");
    const follower = await follow(replica, join(folder, "terminated-copy.json"));
    const terminated = await server.query<{ pid: number }>(
      "SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE application_name = 'replica-terminated'",
    );
    expect(terminated.length).toBeGreaterThan(0);
    const { calendar: created } = await writer.createCalendar(calendar("after-terminate"), ADMIN);
    await vi.waitFor(() => expect(follower.calendars().get("after-terminate")).toEqual(created), WAIT);
  });

  test("a replica that starts while the database is away serves its local copy, says so, and follows once it is back", async () => {
    const url = await server.createDatabase();
    const writer = await open(url);
    const link = await relay();
    const copyPath = join(folder, "start-copy.json");
    await writer.createCalendar(calendar("known"), ADMIN);
    const first = await follow(await open(through(url, link), "replica-before"), copyPath);
    expect(first.calendars().has("known")).toBe(true);
    await first.close();

    link.cut();
    const { calendar: missed } = await writer.createCalendar(calendar("missed"), ADMIN);
    const replica = await open(through(url, link), "replica-restarted");
    const follower = await follow(replica, copyPath);
    expect(follower.status()).toMatchObject({ source: "local-copy", link: "disconnected" });
    expect(follower.status().lastError).toMatch(/cannot be reached/);
    expect([...follower.calendars().keys()]).toEqual(["known"]);
    expect(await replica.createCalendar(calendar("refused"), ADMIN).catch((error: unknown) => error)).toMatchObject({
      failure: "UNAVAILABLE",
    });

    link.restore();
    await vi.waitFor(() => expect(follower.calendars().get("missed")).toEqual(missed), WAIT);
    expect(follower.status()).toMatchObject({ source: "registry", link: "connected", changeNumber: missed.changeNumber });
    expect(follower.status().lastError).toBeUndefined();
  });

  test("a replica whose copy came from another database replaces it once that database answers, removing what it lacks", async () => {
    const before = await open(await server.createDatabase());
    await before.createCalendar(calendar("from-the-old-database"), ADMIN);
    const copyPath = join(folder, "other-database-copy.json");
    await (await follow(before, copyPath)).close();

    const restoredUrl = await server.createDatabase();
    const { calendar: kept } = await (await open(restoredUrl)).createCalendar(calendar("in-the-new-one"), ADMIN);
    const link = await relay();
    link.cut();
    const events: FollowerEvent[] = [];
    const follower = await follow(await open(through(restoredUrl, link), "replica-moved"), copyPath, events);
    expect([...follower.calendars().keys()]).toEqual(["from-the-old-database"]);
    link.restore();
    await vi.waitFor(() => expect([...follower.calendars().keys()]).toEqual(["in-the-new-one"]), WAIT);
    expect(follower.calendars().get("in-the-new-one")).toEqual(kept);
    expect(summary(events)).toEqual([
      "calendar-added from-the-old-database",
      "calendar-removed from-the-old-database",
      "calendar-added in-the-new-one",
    ]);
  });

  test("a replica that starts while the database is away and has no copy fails, saying so", async () => {
    const url = await server.createDatabase();
    const link = await relay();
    link.cut();
    const replica = await open(through(url, link), "replica-empty");
    const error = await followRegistry({
      registry: replica,
      group: "g1",
      copyPath: join(folder, "none.json"),
      onEvent: () => undefined,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ failure: "UNAVAILABLE" });
    expect(String(error)).toMatch(/holds no copy/);
  });

  test("when the database stops, reads go on and writes are UNAVAILABLE; when it returns, changes flow again", async () => {
    const url = await server.createDatabase();
    const writer = await open(url, "writer-stop");
    const follower = await follow(await open(url, "replica-stop"), join(folder, "stop-copy.json"));
    const { calendar: before } = await writer.createCalendar(calendar("before-stop"), ADMIN);
    await vi.waitFor(() => expect(follower.calendars().get("before-stop")).toEqual(before), WAIT);

    await server.stop();
    try {
      await vi.waitFor(() => expect(follower.status().link).toBe("disconnected"), WAIT);
      expect(follower.calendars().get("before-stop")).toEqual(before);
      expect(await writer.createCalendar(calendar("while-down"), ADMIN).catch((error: unknown) => error)).toMatchObject({
        failure: "UNAVAILABLE",
      });
    } finally {
      await server.start();
    }
    const { calendar: after } = await writer.createCalendar(calendar("after-start"), ADMIN);
    await vi.waitFor(() => expect(follower.calendars().get("after-start")).toEqual(after), WAIT);
    expect(await writer.getCalendar("while-down")).toBeUndefined();
    expect(follower.status()).toMatchObject({ source: "registry", link: "connected" });
  });

  test("processes starting together apply each migration once", async () => {
    const url = await server.createDatabase();
    await Promise.all([1, 2, 3, 4].map((n) => open(url, `starter-${n}`)));
    const rows = await server.query<{ version: number }>("SELECT version FROM registry_migrations", [], new URL(url).pathname.slice(1));
    expect(rows).toEqual([{ version: 1 }]);
  });

  test("a database migrated by a newer calq is refused at open, naming both versions", async () => {
    const url = await server.createDatabase();
    await open(url);
    await server.query(
      "INSERT INTO registry_migrations (version, name) VALUES (99, 'from the future')",
      [],
      new URL(url).pathname.slice(1),
    );
    const error = await openRegistry({ engine: "postgresql", connectionString: url, groups: GROUPS }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ failure: "DATA_LOSS" });
    expect(String(error)).toMatch(/version 99.*up to 1/);
  });
});

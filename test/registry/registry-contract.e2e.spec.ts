/**
 * The registry's contract, one suite run against both engines: the embedded
 * journal in a temporary folder, and PostgreSQL as a real server (skipped
 * without it, failing under CALQ_SYSTEM_TESTS=required). What an admin may
 * do, what is refused and why, what the audit log keeps, how a replica of a
 * group loads its rows and follows the changes, and that all of it
 * survives a restart.
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
  type RegistryFailure,
  type RegistryFollower,
  type RegistrySettings,
} from "../../src/registry/index.js";
import { POSTGRES_MISSING, postgresGate, type RunningPostgres, startPostgres } from "../support/postgres.js";

/** What each engine gives a test: a fresh registry, and where it lives so a second client or a restart can reach it. */
interface Engine {
  readonly name: string;
  readonly gate: "run" | "skip" | "fail";
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** Settings of a new, empty registry. */
  fresh(): Promise<RegistrySettings>;
  /** Another client of the same registry, as a second replica holds; embedded has one client per folder, so it is the same one. */
  replica(settings: RegistrySettings, writer: CalendarRegistry, name: string): Promise<CalendarRegistry>;
}

const folders: string[] = [];
const temporaryFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), "calq-registry-"));
  folders.push(folder);
  return folder;
};

/** A client that shares `registry` and leaves closing it to its owner. */
function sharing(registry: CalendarRegistry): CalendarRegistry {
  return Object.assign(Object.create(registry) as CalendarRegistry, { close: async () => undefined });
}

let server: RunningPostgres | undefined;
const ENGINES: Engine[] = [
  {
    name: "embedded",
    gate: "run",
    setUp: async () => undefined,
    tearDown: async () => undefined,
    fresh: async () => ({ engine: "embedded", folder: join(temporaryFolder(), "registry") }),
    replica: async (_settings, writer) => sharing(writer),
  },
  {
    name: "postgresql",
    gate: postgresGate(),
    setUp: async () => {
      server = await startPostgres();
    },
    tearDown: async () => {
      await server?.destroy();
    },
    fresh: async () => ({ engine: "postgresql", connectionString: await server!.createDatabase() }),
    replica: async (settings, _writer, name) => openRegistry({ ...settings, applicationName: name } as RegistrySettings),
  },
];

const GROUPS = ["g1", "g2", "g3"];
/** The admin every write is made by. */
const ADMIN = { by: "admin-an" };

function calendar(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, source: { kind: "http", url: `https://calendar.example.com/${id}.ics` }, readers: ["an"], ...extra };
}

/** The failure kind `promise` rejects with. */
async function failureOf(promise: Promise<unknown>): Promise<RegistryFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error && "failure" in error) return (error as { failure: RegistryFailure }).failure;
    throw error;
  }
  throw new Error("it succeeded");
}

/** A shard key that rendezvous hashing places in `group` (the registry reports where each lands). */
async function keyPlacedIn(registry: CalendarRegistry, group: string, prefix: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const id = `${prefix}-${i}`;
    const { calendar: record } = await registry.createCalendar(calendar(id), ADMIN);
    await registry.deleteCalendar(id, undefined, ADMIN);
    if (record.shardGroup === group) return id;
  }
  throw new Error(`no key of 100 landed in ${group}`);
}

describe.each(ENGINES)("the $name registry", (engine) => {
  const run = engine.gate === "run";
  const opened: { close(): Promise<void> }[] = [];
  let clock = Date.UTC(2026, 11, 1, 9, 0);
  const now = () => clock;

  async function open(settings: RegistrySettings): Promise<CalendarRegistry> {
    const registry = await openRegistry({ ...settings, now, groups: GROUPS });
    opened.push(registry);
    return registry;
  }

  beforeAll(async () => {
    if (engine.gate === "fail") throw new Error(POSTGRES_MISSING);
    if (run) await engine.setUp();
  }, 120_000);
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close().catch(() => undefined);
  });
  afterAll(async () => {
    if (run) await engine.tearDown();
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  const test = engine.gate === "skip" ? it.skip : it;

  describe("writes", () => {
    test("a created calendar is read back with its group, etag, admin and time", async () => {
      const registry = await open(await engine.fresh());
      clock += 1_000;
      const { calendar: record, created } = await registry.createCalendar(
        calendar("work", { shardKey: "an", zone: "Europe/Berlin" }),
        ADMIN,
      );
      expect(created).toBe(true);
      expect(record).toMatchObject({
        id: "work",
        zone: "Europe/Berlin",
        shardKey: "an",
        createdBy: "admin-an",
        createdAt: clock,
        updatedBy: "admin-an",
        updatedAt: clock,
        changeNumber: 1,
      });
      expect(GROUPS).toContain(record.shardGroup);
      expect(await registry.getCalendar("work")).toEqual(record);
    });

    test("the same create sent twice makes one calendar and answers it both times", async () => {
      const registry = await open(await engine.fresh());
      const first = await registry.createCalendar(calendar("work"), ADMIN);
      const second = await registry.createCalendar(calendar("work"), ADMIN);
      expect(second).toEqual({ calendar: first.calendar, created: false });
      expect((await registry.listCalendars({})).calendars).toHaveLength(1);
      expect(await registry.readAudit(0)).toHaveLength(1);
      // The repeat spent no change number: the next change is number 2.
      expect((await registry.createCalendar(calendar("home"), ADMIN)).calendar.changeNumber).toBe(2);
    });

    test("the same create sent several times at once makes one calendar, and every sender is answered with it", async () => {
      const registry = await open(await engine.fresh());
      const outcomes = await Promise.all([1, 2, 3, 4].map(() => registry.createCalendar(calendar("work"), ADMIN)));
      expect(outcomes.filter((outcome) => outcome.created)).toHaveLength(1);
      for (const outcome of outcomes) expect(outcome.calendar).toEqual(outcomes[0].calendar);
      expect(await registry.readAudit(0)).toHaveLength(1);
    });

    test("updates sent at once from the same etag: one is applied, every other is refused", async () => {
      const registry = await open(await engine.fresh());
      const { calendar: first } = await registry.createCalendar(calendar("work"), ADMIN);
      const results = await Promise.allSettled(
        ["A", "B", "C", "D"].map((name) => registry.updateCalendar(calendar("work", { name }), first.etag, ADMIN)),
      );
      const applied = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      expect(applied).toHaveLength(1);
      for (const result of results) if (result.status === "rejected") expect(result.reason).toMatchObject({ failure: "ETAG_MISMATCH" });
      expect(await registry.getCalendar("work")).toEqual(applied[0]);
    });

    test("a create with an existing id and other content is refused as already existing, and changes nothing", async () => {
      const registry = await open(await engine.fresh());
      const { calendar: first } = await registry.createCalendar(calendar("work"), ADMIN);
      expect(await failureOf(registry.createCalendar(calendar("work", { name: "Other" }), ADMIN))).toBe("CALENDAR_ALREADY_EXISTS");
      expect(await registry.getCalendar("work")).toEqual(first);
    });

    test("a create of an id calq.yaml declares is refused, naming calq.yaml", async () => {
      const settings = await engine.fresh();
      const registry = await openRegistry({ ...settings, now, groups: GROUPS, reservedIds: new Set(["team"]) } as RegistrySettings);
      opened.push(registry);
      const error = await registry.createCalendar(calendar("team"), ADMIN).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ failure: "CALENDAR_ALREADY_EXISTS" });
      expect(String(error)).toMatch(/calendar team is declared in calq.yaml/);
      expect(await registry.getCalendar("team")).toBeUndefined();
    });

    test("an invalid spec is refused with every violation and nothing is applied", async () => {
      const registry = await open(await engine.fresh());
      const error = await registry.createCalendar(calendar("bad id", { zone: "Mars/Olympus" }), ADMIN).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ failure: "INVALID_SPEC" });
      expect((error as { violations: { field: string }[] }).violations.map((violation) => violation.field)).toEqual(["id", "zone"]);
      expect((await registry.listCalendars({})).calendars).toEqual([]);
      expect(await registry.readAudit(0)).toEqual([]);
    });

    test("an update with the current etag replaces the spec and keeps who created it", async () => {
      const registry = await open(await engine.fresh());
      const { calendar: first } = await registry.createCalendar(calendar("work"), ADMIN);
      clock += 60_000;
      const updated = await registry.updateCalendar(calendar("work", { name: "Work", readers: ["an", "binh"] }), first.etag, {
        by: "admin-binh",
      });
      expect(updated).toMatchObject({ name: "Work", readers: ["an", "binh"], createdBy: "admin-an", createdAt: first.createdAt });
      expect(updated).toMatchObject({ updatedBy: "admin-binh", updatedAt: clock, changeNumber: 2 });
      expect(updated.etag).not.toBe(first.etag);
    });

    test("two admins updating from the same etag: the second is refused and the first change stands", async () => {
      const registry = await open(await engine.fresh());
      const { calendar: first } = await registry.createCalendar(calendar("work"), ADMIN);
      const winner = await registry.updateCalendar(calendar("work", { name: "By an" }), first.etag, ADMIN);
      expect(await failureOf(registry.updateCalendar(calendar("work", { name: "By binh" }), first.etag, { by: "admin-binh" }))).toBe(
        "ETAG_MISMATCH",
      );
      expect(await registry.getCalendar("work")).toEqual(winner);
    });

    test("an update or delete of an unknown calendar is not found", async () => {
      const registry = await open(await engine.fresh());
      expect(await failureOf(registry.updateCalendar(calendar("ghost"), "etag", ADMIN))).toBe("NOT_FOUND");
      expect(await failureOf(registry.deleteCalendar("ghost", undefined, ADMIN))).toBe("NOT_FOUND");
    });

    test("a delete with a stale etag is refused; without one it deletes, and the id can be created again", async () => {
      const registry = await open(await engine.fresh());
      const { calendar: first } = await registry.createCalendar(calendar("work"), ADMIN);
      await registry.updateCalendar(calendar("work", { name: "Work" }), first.etag, ADMIN);
      expect(await failureOf(registry.deleteCalendar("work", first.etag, ADMIN))).toBe("ETAG_MISMATCH");
      expect(await registry.deleteCalendar("work", undefined, ADMIN)).toEqual({ calendarId: "work", changeNumber: 3 });
      expect(await registry.getCalendar("work")).toBeUndefined();
      expect(await failureOf(registry.deleteCalendar("work", undefined, ADMIN))).toBe("NOT_FOUND");
      expect((await registry.createCalendar(calendar("work"), ADMIN)).created).toBe(true);
    });

    test("a person's settings are set, replaced with their etag, and refused over a stale one", async () => {
      const registry = await open(await engine.fresh());
      const person = await registry.setPerson(
        { principalId: "an", primaryCalendar: "work", zone: "Asia/Ho_Chi_Minh", emails: ["an@example.com"] },
        undefined,
        ADMIN,
      );
      expect(person).toMatchObject({ principalId: "an", weekStart: "MO", updatedBy: "admin-an", changeNumber: 1 });
      expect(GROUPS).toContain(person.shardGroup);
      const replaced = await registry.setPerson({ principalId: "an", zone: "Europe/Berlin" }, person.etag, ADMIN);
      expect(await registry.getPerson("an")).toEqual(replaced);
      expect(await failureOf(registry.setPerson({ principalId: "an" }, person.etag, ADMIN))).toBe("ETAG_MISMATCH");
      expect(await failureOf(registry.setPerson({ principalId: "binh" }, "etag", ADMIN))).toBe("NOT_FOUND");
    });

    test("every change is in the audit log with its admin, action and the record after it, in order", async () => {
      const registry = await open(await engine.fresh());
      const { calendar: created } = await registry.createCalendar(calendar("work"), ADMIN);
      clock += 1_000;
      const updated = await registry.updateCalendar(calendar("work", { name: "Work" }), created.etag, { by: "admin-binh" });
      await registry.deleteCalendar("work", undefined, { by: "admin-chi" });
      const person = await registry.setPerson({ principalId: "an" }, undefined, ADMIN);
      const audit = await registry.readAudit(0);
      expect(audit.map(({ changeNumber, by, action, subject }) => ({ changeNumber, by, action, subject }))).toEqual([
        { changeNumber: 1, by: "admin-an", action: "calendar.create", subject: "work" },
        { changeNumber: 2, by: "admin-binh", action: "calendar.update", subject: "work" },
        { changeNumber: 3, by: "admin-chi", action: "calendar.delete", subject: "work" },
        { changeNumber: 4, by: "admin-an", action: "person.set", subject: "an" },
      ]);
      expect(audit[1]).toMatchObject({ at: clock, after: updated });
      expect(audit[2].after).toBeUndefined();
      expect(audit[3].after).toEqual(person);
      expect((await registry.readAudit(2, 1)).map((entry) => entry.changeNumber)).toEqual([3]);
    });

    test("a write without an admin principal is refused", async () => {
      const registry = await open(await engine.fresh());
      expect(await failureOf(registry.createCalendar(calendar("work"), { by: "" }))).toBe("INVALID_SPEC");
    });
  });

  describe("the admin listing", () => {
    test("filters by id prefix, reader (free/busy readers too) and group, in id order, page by page", async () => {
      const registry = await open(await engine.fresh());
      for (const id of ["team-b", "an-work", "team-a", "an-home", "team-c"]) {
        await registry.createCalendar(
          calendar(id, { readers: id.startsWith("an") ? ["an"] : ["binh"], freeBusyReaders: id === "team-c" ? ["an"] : [] }),
          ADMIN,
        );
      }
      const ids = (page: { calendars: readonly { id: string }[] }) => page.calendars.map((record) => record.id);
      expect(ids(await registry.listCalendars({}))).toEqual(["an-home", "an-work", "team-a", "team-b", "team-c"]);
      expect(ids(await registry.listCalendars({ idPrefix: "team-" }))).toEqual(["team-a", "team-b", "team-c"]);
      expect(ids(await registry.listCalendars({ reader: "an" }))).toEqual(["an-home", "an-work", "team-c"]);
      const first = await registry.listCalendars({ idPrefix: "team-", pageSize: 2 });
      expect(ids(first)).toEqual(["team-a", "team-b"]);
      const second = await registry.listCalendars({ idPrefix: "team-", pageSize: 2, pageToken: first.nextPageToken });
      expect(ids(second)).toEqual(["team-c"]);
      expect(second.nextPageToken).toBeUndefined();
      const all = await registry.listCalendars({});
      for (const group of GROUPS) {
        expect(ids(await registry.listCalendars({ shardGroup: group }))).toEqual(
          all.calendars.filter((record) => record.shardGroup === group).map((record) => record.id),
        );
      }
    });

    test("a page token of another query, an altered one and a page size out of range are refused", async () => {
      const registry = await open(await engine.fresh());
      for (const id of ["a", "b", "c"]) await registry.createCalendar(calendar(id), ADMIN);
      const { nextPageToken } = await registry.listCalendars({ pageSize: 1 });
      expect(await failureOf(registry.listCalendars({ pageSize: 1, reader: "an", pageToken: nextPageToken }))).toBe("INVALID_PAGE_TOKEN");
      expect(await failureOf(registry.listCalendars({ pageToken: "not-a-token" }))).toBe("INVALID_PAGE_TOKEN");
      expect(await failureOf(registry.listCalendars({ pageSize: 0 }))).toBe("INVALID_SPEC");
      expect(await failureOf(registry.listCalendars({ pageSize: 1_001 }))).toBe("INVALID_SPEC");
    });
  });

  describe("a group's rows and changes", () => {
    test("a group loads only its own calendars and people, as of the latest change number", async () => {
      const registry = await open(await engine.fresh());
      for (let i = 0; i < 12; i++) await registry.createCalendar(calendar(`cal-${i}`), ADMIN);
      await registry.setPerson({ principalId: "an" }, undefined, ADMIN);
      const all = (await registry.listCalendars({})).calendars;
      let seen = 0;
      for (const group of GROUPS) {
        const snapshot = await registry.loadGroup(group);
        // Up to its number the snapshot holds every change of the group, and after it there is none.
        expect(snapshot.changeNumber).toBeLessThanOrEqual(13);
        for (const record of [...snapshot.calendars, ...snapshot.people])
          expect(record.changeNumber).toBeLessThanOrEqual(snapshot.changeNumber);
        expect((await registry.changesSince(snapshot.changeNumber, group)).changes).toEqual([]);
        expect(snapshot.calendars.map((record) => record.id).sort()).toEqual(
          all.filter((record) => record.shardGroup === group).map((record) => record.id),
        );
        seen += snapshot.calendars.length + snapshot.people.length;
      }
      expect(seen).toBe(13);
    });

    test("changes since a number come in order, each calendar once at its latest change, deletions included", async () => {
      const registry = await open(await engine.fresh());
      const group = (await registry.createCalendar(calendar("anchor"), ADMIN)).calendar.shardGroup;
      const key = "anchor";
      const a = await registry.createCalendar(calendar("a", { shardKey: key }), ADMIN);
      await registry.createCalendar(calendar("b", { shardKey: key }), ADMIN);
      await registry.updateCalendar(calendar("a", { shardKey: key, name: "A" }), a.calendar.etag, ADMIN);
      await registry.deleteCalendar("b", undefined, ADMIN);
      const batch = await registry.changesSince(1, group);
      expect(batch.changes.map((change) => [change.kind, change.changeNumber])).toEqual([
        ["calendar-upsert", 4],
        ["calendar-removal", 5],
      ]);
      expect(batch).toMatchObject({ latest: 5, complete: true });
      const cut = await registry.changesSince(0, group, 1);
      expect(cut.changes.map((change) => change.changeNumber)).toEqual([1]);
      expect(cut).toMatchObject({ latest: 1, complete: false });
      expect((await registry.changesSince(5, group)).changes).toEqual([]);
    });

    test("a new shard key that moves a calendar is a removal in the old group and an upsert in the new, at one number", async () => {
      const registry = await open(await engine.fresh());
      const from = await keyPlacedIn(registry, "g1", "key-one");
      const to = await keyPlacedIn(registry, "g2", "key-two");
      const { calendar: first } = await registry.createCalendar(calendar("moving", { shardKey: from }), ADMIN);
      const since = first.changeNumber;
      const moved = await registry.updateCalendar(calendar("moving", { shardKey: to }), first.etag, ADMIN);
      expect(moved.shardGroup).toBe("g2");
      expect((await registry.changesSince(since, "g1")).changes).toEqual([
        { kind: "calendar-removal", changeNumber: moved.changeNumber, calendarId: "moving" },
      ]);
      expect((await registry.changesSince(since, "g2")).changes).toEqual([
        { kind: "calendar-upsert", changeNumber: moved.changeNumber, calendar: moved },
      ]);
      expect((await registry.loadGroup("g1")).calendars.map((record) => record.id)).not.toContain("moving");
    });
  });

  describe("replicas following a group", () => {
    test("two replicas of a group each see a create, an update and a delete", async () => {
      const settings = await engine.fresh();
      const writer = await open(settings);
      const group = "g1";
      const key = await keyPlacedIn(writer, group, "user");
      const replicas: { follower: RegistryFollower; events: FollowerEvent[] }[] = [];
      for (const name of ["replica-a", "replica-b"]) {
        const client = await engine.replica({ ...settings, now, groups: GROUPS } as RegistrySettings, writer, name);
        opened.push(client);
        const events: FollowerEvent[] = [];
        const follower = await followRegistry({
          registry: client,
          group,
          copyPath: join(temporaryFolder(), "registry-copy.json"),
          onEvent: (event) => events.push(event),
        });
        opened.push(follower);
        replicas.push({ follower, events });
      }
      const { calendar: created } = await writer.createCalendar(calendar("shared", { shardKey: key }), ADMIN);
      for (const { follower } of replicas) await vi.waitFor(() => expect(follower.calendars().get("shared")).toEqual(created), 10_000);
      const updated = await writer.updateCalendar(calendar("shared", { shardKey: key, name: "Shared" }), created.etag, ADMIN);
      for (const { follower } of replicas) await vi.waitFor(() => expect(follower.calendars().get("shared")).toEqual(updated), 10_000);
      await writer.deleteCalendar("shared", undefined, ADMIN);
      for (const { follower, events } of replicas) {
        await vi.waitFor(() => expect(follower.calendars().has("shared")).toBe(false), 10_000);
        expect(events.map((event) => event.kind)).toEqual(["calendar-added", "calendar-changed", "calendar-removed"]);
        expect(follower.status()).toMatchObject({ source: "registry", link: "connected", changeNumber: updated.changeNumber + 1 });
      }
    });

    test("under many writes at once to every group, each group's replica hears its changes once each, in increasing number", async () => {
      const settings = await engine.fresh();
      const writer = await open(settings);
      const heard = new Map<string, number[]>();
      const followers: RegistryFollower[] = [];
      for (const group of GROUPS) {
        const client = await engine.replica({ ...settings, now, groups: GROUPS } as RegistrySettings, writer, `replica-${group}`);
        opened.push(client);
        const numbers: number[] = [];
        heard.set(group, numbers);
        const follower = await followRegistry({
          registry: client,
          group,
          copyPath: join(temporaryFolder(), "copy.json"),
          onEvent: (event) => {
            if (event.kind === "calendar-added") numbers.push(event.calendar.changeNumber);
          },
        });
        opened.push(follower);
        followers.push(follower);
      }
      const created = await Promise.all(
        Array.from({ length: 60 }, (_, i) => writer.createCalendar(calendar(`busy-${i}`, { shardKey: `user-${i % 12}` }), ADMIN)),
      );
      for (const [i, group] of GROUPS.entries()) {
        const expected = created
          .map((outcome) => outcome.calendar)
          .filter((record) => record.shardGroup === group)
          .map((record) => record.changeNumber)
          .sort((a, b) => a - b);
        await vi.waitFor(() => expect(followers[i].calendars().size).toBe(expected.length), 10_000);
        expect(heard.get(group)).toEqual(expected);
      }
    });

    test("a replica starts from its group's rows: every calendar added, every person set", async () => {
      const settings = await engine.fresh();
      const writer = await open(settings);
      for (let i = 0; i < 6; i++) await writer.createCalendar(calendar(`cal-${i}`, { shardKey: "team" }), ADMIN);
      await writer.setPerson({ principalId: "team" }, undefined, ADMIN);
      const group = (await writer.getCalendar("cal-0"))!.shardGroup;
      const events: FollowerEvent[] = [];
      const follower = await followRegistry({
        registry: writer,
        group,
        copyPath: join(temporaryFolder(), "copy.json"),
        onEvent: (event) => events.push(event),
      });
      opened.push(follower);
      expect(events.filter((event) => event.kind === "calendar-added")).toHaveLength(6);
      expect(events.filter((event) => event.kind === "person-set")).toHaveLength(1);
      expect(follower.people().get("team")?.principalId).toBe("team");
    });
  });

  describe("a restart", () => {
    test("keeps every calendar, person, audit row and change number", async () => {
      const settings = await engine.fresh();
      const before = await open(settings);
      const { calendar: work } = await before.createCalendar(calendar("work"), ADMIN);
      await before.createCalendar(calendar("gone"), ADMIN);
      await before.deleteCalendar("gone", undefined, ADMIN);
      const person = await before.setPerson({ principalId: "an", zone: "Europe/Berlin" }, undefined, ADMIN);
      await before.close();
      const after = await open(settings);
      expect(await after.getCalendar("work")).toEqual(work);
      expect(await after.getCalendar("gone")).toBeUndefined();
      expect(await after.getPerson("an")).toEqual(person);
      expect(await after.readAudit(0)).toHaveLength(4);
      expect((await after.createCalendar(calendar("next"), ADMIN)).calendar.changeNumber).toBe(5);
    });

    test("with other shard groups configured is refused, naming both lists", async () => {
      const settings = await engine.fresh();
      await (await open(settings)).close();
      const error = await openRegistry({ ...settings, groups: ["g1", "g2"] }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ failure: "PLACEMENT_MISMATCH" });
      expect(String(error)).toMatch(/\[g1, g2, g3\].*\[g1, g2\]/);
    });
  });
});

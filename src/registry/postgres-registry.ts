/**
 * The registry on PostgreSQL, for a fleet: every admin process writes to it
 * and every replica reads its own group's rows from it (docs/operating.md,
 * "The calendar registry"). Change numbers come from one counter row whose
 * lock each write holds until it commits, so numbers are committed in order
 * and a replica that has seen number N has seen every change before it.
 * Each commit NOTIFYs the channels of the groups it touched; a replica
 * catches up by change number, so a missed notification costs nothing but
 * time. The schema is migrated at open (postgres-migrations.ts). An
 * unreachable database does not stop the open: every call retries it and
 * answers UNAVAILABLE until it is back, so a replica can start from its
 * local copy and follow once the database returns.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import type { CalendarRegistry, Subscription, SubscriptionListener, WriteContext } from "./calendar-registry.js";
import { migrate } from "./postgres-migrations.js";
import { channelOf, DEFAULT_LINK_TIMING, type LinkTiming, PostgresSubscription } from "./postgres-subscription.js";
import { calendarVersion, checkedVersion, personVersion, repeatsCreate, type VersionFacts } from "./record-versions.js";
import { RegistryError } from "./registry-error.js";
import { checkPlacement, pageTokenAfter, readListQuery } from "./registry-keys.js";
import type {
  AuditAction,
  AuditEntry,
  CalendarListQuery,
  CalendarPage,
  CalendarRecord,
  ChangeBatch,
  CreateOutcome,
  DeleteOutcome,
  GroupSnapshot,
  PersonRecord,
  RegistryChange,
} from "./registry-records.js";
import { checkAdmin, checkCalendarSpec, checkPersonSpec } from "./spec-validation.js";

/** How the PostgreSQL registry is reached. */
export interface PostgresRegistryOptions {
  /** postgres://user@host:port/database (from a Secret in a cluster; never logged whole). */
  readonly connectionString: string;
  /** The shard groups records are placed in; must match the groups stored in the database. */
  readonly groups?: readonly string[];
  /** Names this process's connections in pg_stat_activity. */
  readonly applicationName?: string;
  /** Connections for reads and writes (default 4); each subscription holds one more. */
  readonly poolSize?: number;
  /** A connection attempt that takes longer fails as UNAVAILABLE (default 5 s). */
  readonly connectTimeoutMs?: number;
  readonly link?: Partial<LinkTiming>;
  /** The clock of created/updated times; Date.now by default. */
  readonly now?: () => number;
}

/** The one row of registry_state. */
interface StateRow {
  registry_id: string;
  shard_groups: string[] | null;
  change_number: string;
}

interface ChangeRow {
  entity: "calendar" | "person";
  id: string;
  change_number: string;
  record: CalendarRecord | PersonRecord | null;
}

/** SQLSTATE classes and codes that say "the database is not there for now": connection exceptions, shutdowns, too many connections. */
const UNAVAILABLE_SQLSTATES = /^(08|53|57P0[1-4])/;

/** The database as an error kind: a failure to reach it or a shutdown is UNAVAILABLE; a RegistryError passes; anything else is rethrown. */
function classified(error: unknown, description: string): unknown {
  if (error instanceof RegistryError) return error;
  const unreachable = !(error instanceof pg.DatabaseError) || UNAVAILABLE_SQLSTATES.test(error.code ?? "");
  return unreachable
    ? new RegistryError("UNAVAILABLE", `${description} cannot be reached; nothing was applied (retry later)`, { cause: error })
    : error;
}

/** A write's answer when it changed nothing (a repeated create): its transaction rolls back, so no change number is spent. */
class Unchanged<T> {
  constructor(readonly value: T) {}
}

/** The group as stored: '' when the registry has no groups. */
const stored = (group: string | undefined) => group ?? "";

/**
 * Opens the registry at `options.connectionString`, migrating its schema
 * when the database answers. PLACEMENT_MISMATCH when its stored groups are
 * not `options.groups`; an unreachable database is retried by each call.
 */
export async function openPostgresRegistry(options: PostgresRegistryOptions): Promise<CalendarRegistry> {
  const registry = new PostgresRegistry(options);
  try {
    await registry.ready();
  } catch (error) {
    if (!(error instanceof RegistryError && error.failure === "UNAVAILABLE")) {
      await registry.close();
      throw error;
    }
  }
  return registry;
}

class PostgresRegistry implements CalendarRegistry {
  readonly description: string;
  readonly groups: readonly string[] | undefined;
  private readonly pool: pg.Pool;
  private readonly clientConfig: pg.ClientConfig;
  private readonly subscriptions = new Set<PostgresSubscription>();
  private prepared: Promise<string> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: PostgresRegistryOptions) {
    const url = new URL(options.connectionString);
    this.description = `postgresql ${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname}`;
    this.groups = options.groups;
    this.now = options.now ?? Date.now;
    this.clientConfig = {
      connectionString: options.connectionString,
      application_name: options.applicationName ?? "calq",
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      keepAlive: true,
    };
    this.pool = new pg.Pool({ ...this.clientConfig, max: options.poolSize ?? 4, idleTimeoutMillis: 30_000 });
    // An idle connection that the database or the network closes is dropped by the pool; the next call opens another.
    this.pool.on("error", () => undefined);
  }

  /** Migrates and checks placement once per process; retried after a failure. Answers the registry's id. */
  ready(): Promise<string> {
    this.prepared ??= this.prepare().catch((error: unknown) => {
      this.prepared = undefined;
      throw classified(error, this.description);
    });
    return this.prepared;
  }

  private prepare(): Promise<string> {
    return this.withClient(async (client) => {
      await migrate(client);
      await client.query(
        "INSERT INTO registry_state (registry_id, shard_groups, change_number) VALUES ($1, $2, 0) ON CONFLICT (singleton) DO NOTHING",
        [randomUUID(), this.groups ?? null],
      );
      const { rows } = await client.query<StateRow>("SELECT registry_id, shard_groups, change_number FROM registry_state");
      checkPlacement(rows[0].shard_groups, this.groups, this.description);
      return rows[0].registry_id;
    });
  }

  /**
   * Runs `work` on a pooled connection. A checked-out connection has no
   * listener of the pool's, so one is added while it is out: a connection
   * the server or the network cuts between two queries is then dropped from
   * the pool rather than crashing the process.
   */
  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw classified(error, this.description);
    }
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    try {
      return await work(client);
    } catch (error) {
      if (!(error instanceof RegistryError)) broken ??= error instanceof Error ? error : new Error(String(error));
      throw classified(error, this.description);
    } finally {
      client.removeListener("error", onError);
      client.release(broken);
    }
  }

  /** Runs `work` in one transaction; a RegistryError it throws rolls back and passes through. */
  private async transaction<T>(
    mode: "write" | "snapshot",
    work: (client: pg.PoolClient, registryId: string) => Promise<T | Unchanged<T>>,
  ): Promise<T> {
    const registryId = await this.ready();
    return this.withClient(async (client) => {
      await client.query(mode === "write" ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        const result = await work(client, registryId);
        await client.query(result instanceof Unchanged ? "ROLLBACK" : "COMMIT");
        return result instanceof Unchanged ? result.value : result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * Takes the next change number. The counter row stays locked until this
   * transaction ends, so writes commit in number order; a refusal rolls it back.
   */
  private async nextFacts(client: pg.PoolClient, by: string): Promise<VersionFacts> {
    const { rows } = await client.query<{ change_number: string }>(
      "UPDATE registry_state SET change_number = change_number + 1 RETURNING change_number",
    );
    return { changeNumber: Number(rows[0].change_number), by, at: this.now() };
  }

  /** Writes the audit row of a change and notifies the groups it touched; both commit with the change. */
  private async audit(
    client: pg.PoolClient,
    facts: VersionFacts,
    action: AuditAction,
    subject: string,
    after: CalendarRecord | PersonRecord | undefined,
    groups: readonly (string | undefined)[],
  ): Promise<void> {
    await client.query(
      "INSERT INTO registry_audit (change_number, at, by_principal, action, subject, after) VALUES ($1, to_timestamp($2 / 1000.0), $3, $4, $5, $6)",
      [facts.changeNumber, facts.at, facts.by, action, subject, after === undefined ? null : JSON.stringify(after)],
    );
    for (const group of new Set(groups)) {
      await client.query("SELECT pg_notify($1, $2)", [channelOf(group), String(facts.changeNumber)]);
    }
  }

  private async liveCalendar(client: pg.PoolClient, id: string): Promise<CalendarRecord | undefined> {
    const { rows } = await client.query<{ record: CalendarRecord }>("SELECT record FROM registry_calendars WHERE id = $1 AND live", [id]);
    return rows[0]?.record;
  }

  private async writeCalendar(client: pg.PoolClient, record: CalendarRecord): Promise<void> {
    await client.query(
      `INSERT INTO registry_calendars (shard_group, id, change_number, live, principals, record) VALUES ($1, $2, $3, true, $4, $5)
       ON CONFLICT (shard_group, id) DO UPDATE SET change_number = excluded.change_number, live = true, principals = excluded.principals, record = excluded.record`,
      [stored(record.shardGroup), record.id, record.changeNumber, [...record.readers, ...record.freeBusyReaders], JSON.stringify(record)],
    );
  }

  private async writeTombstone(client: pg.PoolClient, previous: CalendarRecord, changeNumber: number): Promise<void> {
    await client.query(
      "UPDATE registry_calendars SET change_number = $3, live = false, principals = '{}', record = NULL WHERE shard_group = $1 AND id = $2",
      [stored(previous.shardGroup), previous.id, changeNumber],
    );
  }

  async createCalendar(value: unknown, context: WriteContext): Promise<CreateOutcome> {
    const spec = checkCalendarSpec(value);
    const by = checkAdmin(context.by);
    return this.transaction<CreateOutcome>("write", async (client) => {
      const facts = await this.nextFacts(client, by);
      const existing = await this.liveCalendar(client, spec.id);
      if (existing !== undefined) {
        if (repeatsCreate(existing, spec)) return new Unchanged({ calendar: existing, created: false });
        throw new RegistryError(
          "CALENDAR_ALREADY_EXISTS",
          `calendar ${spec.id} already exists with other content; update it with its etag`,
        );
      }
      const record = calendarVersion(spec, this.groups, facts);
      await this.writeCalendar(client, record);
      await this.audit(client, facts, "calendar.create", spec.id, record, [record.shardGroup]);
      return { calendar: record, created: true };
    });
  }

  async updateCalendar(value: unknown, etag: string, context: WriteContext): Promise<CalendarRecord> {
    const spec = checkCalendarSpec(value);
    const by = checkAdmin(context.by);
    return this.transaction("write", async (client) => {
      const facts = await this.nextFacts(client, by);
      const previous = checkedVersion(await this.liveCalendar(client, spec.id), spec.id, etag);
      const record = calendarVersion(spec, this.groups, facts, previous);
      if (record.shardGroup !== previous.shardGroup) await this.writeTombstone(client, previous, facts.changeNumber);
      await this.writeCalendar(client, record);
      await this.audit(client, facts, "calendar.update", spec.id, record, [previous.shardGroup, record.shardGroup]);
      return record;
    });
  }

  async deleteCalendar(id: string, etag: string | undefined, context: WriteContext): Promise<DeleteOutcome> {
    const by = checkAdmin(context.by);
    return this.transaction("write", async (client) => {
      const facts = await this.nextFacts(client, by);
      const previous = checkedVersion(await this.liveCalendar(client, id), id, etag);
      await this.writeTombstone(client, previous, facts.changeNumber);
      await this.audit(client, facts, "calendar.delete", id, undefined, [previous.shardGroup]);
      return { calendarId: id, changeNumber: facts.changeNumber };
    });
  }

  async setPerson(value: unknown, etag: string | undefined, context: WriteContext): Promise<PersonRecord> {
    const spec = checkPersonSpec(value);
    const by = checkAdmin(context.by);
    return this.transaction("write", async (client) => {
      const facts = await this.nextFacts(client, by);
      const { rows } = await client.query<{ record: PersonRecord }>("SELECT record FROM registry_people WHERE principal_id = $1", [
        spec.principalId,
      ]);
      const previous = rows[0]?.record;
      if (etag !== undefined && previous === undefined)
        throw new RegistryError("NOT_FOUND", `no person has principal id "${spec.principalId}"`);
      if (etag !== undefined && etag !== previous?.etag) {
        throw new RegistryError("ETAG_MISMATCH", `person ${spec.principalId} changed since etag ${etag} was read: read them again`);
      }
      const record = personVersion(spec, this.groups, facts);
      await client.query(
        `INSERT INTO registry_people (shard_group, principal_id, change_number, record) VALUES ($1, $2, $3, $4)
         ON CONFLICT (principal_id) DO UPDATE SET shard_group = excluded.shard_group, change_number = excluded.change_number, record = excluded.record`,
        [stored(record.shardGroup), record.principalId, facts.changeNumber, JSON.stringify(record)],
      );
      await this.audit(client, facts, "person.set", spec.principalId, record, [record.shardGroup]);
      return record;
    });
  }

  private async read<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    return this.withClient(work);
  }

  async getCalendar(id: string): Promise<CalendarRecord | undefined> {
    return this.read((client) => this.liveCalendar(client, id));
  }

  async getPerson(principalId: string): Promise<PersonRecord | undefined> {
    return this.read(async (client) => {
      const { rows } = await client.query<{ record: PersonRecord }>("SELECT record FROM registry_people WHERE principal_id = $1", [
        principalId,
      ]);
      return rows[0]?.record;
    });
  }

  async listCalendars(query: CalendarListQuery): Promise<CalendarPage> {
    const { pageSize, after } = readListQuery(query);
    return this.read(async (client) => {
      const conditions = ["live", "id > $1"];
      const values: unknown[] = [after];
      if (query.idPrefix !== undefined && query.idPrefix !== "") {
        values.push(query.idPrefix);
        // The range on the "C"-collated id starts the index scan at the prefix.
        conditions.push(`id >= $${values.length} AND starts_with(id, $${values.length})`);
      }
      if (query.shardGroup !== undefined) {
        values.push(query.shardGroup);
        conditions.push(`shard_group = $${values.length}`);
      }
      if (query.reader !== undefined) {
        values.push([query.reader]);
        conditions.push(`principals @> $${values.length}::text[]`);
      }
      values.push(pageSize + 1);
      const { rows } = await client.query<{ record: CalendarRecord }>(
        `SELECT record FROM registry_calendars WHERE ${conditions.join(" AND ")} ORDER BY id LIMIT $${values.length}`,
        values,
      );
      const calendars = rows.map((row) => row.record);
      if (calendars.length <= pageSize) return { calendars };
      calendars.length = pageSize;
      return { calendars, nextPageToken: pageTokenAfter(calendars[pageSize - 1].id, query) };
    });
  }

  async loadGroup(group: string | undefined): Promise<GroupSnapshot> {
    return this.transaction("snapshot", async (client, registryId) => {
      const state = await client.query<StateRow>("SELECT change_number FROM registry_state");
      const calendars = await client.query<{ record: CalendarRecord }>(
        "SELECT record FROM registry_calendars WHERE shard_group = $1 AND live",
        [stored(group)],
      );
      const people = await client.query<{ record: PersonRecord }>("SELECT record FROM registry_people WHERE shard_group = $1", [
        stored(group),
      ]);
      return {
        registryId,
        changeNumber: Number(state.rows[0].change_number),
        calendars: calendars.rows.map((row) => row.record),
        people: people.rows.map((row) => row.record),
      };
    });
  }

  async changesSince(changeNumber: number, group: string | undefined, limit = 1_000): Promise<ChangeBatch> {
    return this.transaction("snapshot", async (client, registryId) => {
      const state = await client.query<StateRow>("SELECT change_number FROM registry_state");
      const { rows } = await client.query<ChangeRow>(
        `SELECT 'calendar' AS entity, id, change_number, record FROM registry_calendars WHERE shard_group = $1 AND change_number > $2
         UNION ALL
         SELECT 'person', principal_id, change_number, record FROM registry_people WHERE shard_group = $1 AND change_number > $2
         ORDER BY change_number LIMIT $3`,
        [stored(group), changeNumber, limit + 1],
      );
      const complete = rows.length <= limit;
      const batch = complete ? rows : rows.slice(0, limit);
      return {
        registryId,
        changes: batch.map(changeOf),
        latest: complete ? Number(state.rows[0].change_number) : Number(batch[batch.length - 1].change_number),
        complete,
      };
    });
  }

  async subscribe(group: string | undefined, listener: SubscriptionListener): Promise<Subscription> {
    const subscription = new PostgresSubscription(this.clientConfig, channelOf(group), listener, {
      ...DEFAULT_LINK_TIMING,
      ...this.options.link,
    });
    this.subscriptions.add(subscription);
    await subscription.started;
    return {
      get state() {
        return subscription.state;
      },
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  async readAudit(changeNumber: number, limit = 1_000): Promise<AuditEntry[]> {
    return this.read(async (client) => {
      const { rows } = await client.query<{
        change_number: string;
        at_ms: number;
        by_principal: string;
        action: AuditAction;
        subject: string;
        after: CalendarRecord | PersonRecord | null;
      }>(
        `SELECT change_number, (extract(epoch FROM at) * 1000)::float8 AS at_ms, by_principal, action, subject, after
         FROM registry_audit WHERE change_number > $1 ORDER BY change_number LIMIT $2`,
        [changeNumber, limit],
      );
      return rows.map((row) => ({
        changeNumber: Number(row.change_number),
        at: Math.round(row.at_ms),
        by: row.by_principal,
        action: row.action,
        subject: row.subject,
        ...(row.after === null ? {} : { after: row.after }),
      }));
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    this.subscriptions.clear();
    await this.pool.end();
  }
}

function changeOf(row: ChangeRow): RegistryChange {
  const changeNumber = Number(row.change_number);
  if (row.entity === "person") return { kind: "person-upsert", changeNumber, person: row.record as PersonRecord };
  return row.record === null
    ? { kind: "calendar-removal", changeNumber, calendarId: row.id }
    : { kind: "calendar-upsert", changeNumber, calendar: row.record as CalendarRecord };
}

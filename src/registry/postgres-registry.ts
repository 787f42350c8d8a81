/**
 * The registry on PostgreSQL, for a fleet: every admin process writes to it
 * and every replica reads its own group's rows from it (docs/decisions.md,
 * "The calendar registry"). Each write is one call of a function of the
 * schema (postgres-migrations.ts), which locks the groups it touches, takes
 * the next number from a sequence and holds the locks until it commits:
 * within a group numbers are committed in order, so a replica that has seen
 * its group's number N has seen every change of the group before it, while
 * writes to different groups commit side by side.
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
import { refuseReservedId } from "./config-overlap.js";
import { migrate } from "./postgres-migrations.js";
import { channelOf, DEFAULT_LINK_TIMING, type LinkTiming, PostgresSubscription } from "./postgres-subscription.js";
import { calendarVersion, checkedVersion, personVersion, repeatsCreate, type VersionFacts } from "./record-versions.js";
import { RegistryError } from "./registry-error.js";
import { checkPlacement, Placement, pageTokenAfter, readListQuery } from "./registry-keys.js";
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
  /** Calendar ids calq.yaml declares, which a create refuses. */
  readonly reservedIds?: ReadonlySet<string>;
}

/** The one row of registry_state. */
interface StateRow {
  registry_id: string;
  shard_groups: string[] | null;
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

/** calq's SQLSTATEs, raised by the write functions (postgres-migrations.ts). */
const NO_SUCH_ROW = "CQ404";
const ID_TAKEN = "CQ409";
const VERSION_CHANGED = "CQ412";

/** True when `error` is the database refusing with SQLSTATE `code`. */
function refusedWith(error: unknown, code: string): boolean {
  return error instanceof pg.DatabaseError && error.code === code;
}

/** How often a delete without an etag reads again when another change to the calendar came between its read and its write. */
const DELETE_ATTEMPTS = 3;

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
  private readonly placement: Placement;
  private readonly pool: pg.Pool;
  private readonly clientConfig: pg.ClientConfig;
  private readonly subscriptions = new Set<PostgresSubscription>();
  private prepared: Promise<string> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: PostgresRegistryOptions) {
    const url = new URL(options.connectionString);
    this.description = `postgresql ${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname}`;
    this.groups = options.groups;
    this.placement = new Placement(options.groups);
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
      await client.query("INSERT INTO registry_state (registry_id, shard_groups) VALUES ($1, $2) ON CONFLICT (singleton) DO NOTHING", [
        randomUUID(),
        this.groups ?? null,
      ]);
      const { rows } = await client.query<StateRow>("SELECT registry_id, shard_groups FROM registry_state");
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

  /** Runs `work` in one read-only transaction that sees one snapshot of the database. */
  private async snapshot<T>(work: (client: pg.PoolClient, registryId: string) => Promise<T>): Promise<T> {
    const registryId = await this.ready();
    return this.withClient(async (client) => {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        const result = await work(client, registryId);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  /** Calls one write function of the schema (in its own transaction) and answers what it returns. */
  private async call<T>(sql: string, values: unknown[]): Promise<T> {
    await this.ready();
    return this.withClient(async (client) => (await client.query<{ result: T }>(sql, values)).rows[0].result);
  }

  /** Stores `draft` (its etag and change number are set by the database) over `expectedChange`, or as new when null. */
  private putCalendar(
    draft: CalendarRecord,
    expectedChange: number | null,
    groups: readonly (string | undefined)[],
  ): Promise<CalendarRecord> {
    return this.call("SELECT registry_put_calendar($1, $2, $3, $4, $5, $6, $7, $8, $9) AS result", [
      draft.id,
      stored(draft.shardGroup),
      [...draft.readers, ...draft.freeBusyReaders],
      JSON.stringify(draft),
      expectedChange,
      [...new Set(groups.map(stored))],
      draft.updatedBy,
      draft.updatedAt,
      channelsOf(groups),
    ]);
  }

  private async liveCalendar(client: pg.PoolClient, id: string): Promise<CalendarRecord | undefined> {
    const { rows } = await client.query<{ record: CalendarRecord }>("SELECT record FROM registry_calendars WHERE id = $1 AND live", [id]);
    return rows[0]?.record;
  }

  /** The version a write starts from: etag and change number are the database's to set. */
  private facts(by: string): VersionFacts {
    return { changeNumber: 0, by, at: this.now() };
  }

  async createCalendar(value: unknown, context: WriteContext): Promise<CreateOutcome> {
    const spec = checkCalendarSpec(value);
    const by = checkAdmin(context.by);
    refuseReservedId(spec.id, this.options.reservedIds);
    const draft = calendarVersion(spec, this.placement, this.facts(by));
    try {
      return { calendar: await this.putCalendar(draft, null, [draft.shardGroup]), created: true };
    } catch (error) {
      if (!refusedWith(error, ID_TAKEN)) throw error;
    }
    const existing = await this.getCalendar(spec.id);
    if (existing !== undefined && repeatsCreate(existing, spec)) return { calendar: existing, created: false };
    throw new RegistryError("CALENDAR_ALREADY_EXISTS", `calendar ${spec.id} already exists with other content; update it with its etag`);
  }

  async updateCalendar(value: unknown, etag: string, context: WriteContext): Promise<CalendarRecord> {
    const spec = checkCalendarSpec(value);
    const by = checkAdmin(context.by);
    const previous = checkedVersion(await this.getCalendar(spec.id), spec.id, etag);
    const draft = calendarVersion(spec, this.placement, this.facts(by), previous);
    try {
      return await this.putCalendar(draft, previous.changeNumber, [previous.shardGroup, draft.shardGroup]);
    } catch (error) {
      throw writeRefusal(error, `calendar ${spec.id}`, etag);
    }
  }

  async deleteCalendar(id: string, etag: string | undefined, context: WriteContext): Promise<DeleteOutcome> {
    const by = checkAdmin(context.by);
    for (let attempt = 1; ; attempt++) {
      const previous = checkedVersion(await this.getCalendar(id), id, etag);
      try {
        const changeNumber = Number(
          await this.call<string>("SELECT registry_delete_calendar($1, $2, $3, $4, $5, $6) AS result", [
            id,
            stored(previous.shardGroup),
            previous.changeNumber,
            by,
            this.now(),
            channelsOf([previous.shardGroup]),
          ]),
        );
        return { calendarId: id, changeNumber };
      } catch (error) {
        // Without an etag the admin asked for whatever version is there: read it again.
        if (etag !== undefined || !refusedWith(error, VERSION_CHANGED) || attempt === DELETE_ATTEMPTS)
          throw writeRefusal(error, `calendar ${id}`, etag);
      }
    }
  }

  async setPerson(value: unknown, etag: string | undefined, context: WriteContext): Promise<PersonRecord> {
    const spec = checkPersonSpec(value);
    const by = checkAdmin(context.by);
    let expectedChange: number | null = null;
    if (etag !== undefined) {
      const previous = await this.getPerson(spec.principalId);
      if (previous === undefined) throw new RegistryError("NOT_FOUND", `no person has principal id "${spec.principalId}"`);
      if (etag !== previous.etag) {
        throw new RegistryError("ETAG_MISMATCH", `person ${spec.principalId} changed since etag ${etag} was read: read them again`);
      }
      expectedChange = previous.changeNumber;
    }
    const draft = personVersion(spec, this.placement, this.facts(by));
    try {
      return await this.call("SELECT registry_set_person($1, $2, $3, $4, $5, $6, $7) AS result", [
        draft.principalId,
        stored(draft.shardGroup),
        JSON.stringify(draft),
        expectedChange,
        by,
        draft.updatedAt,
        channelsOf([draft.shardGroup]),
      ]);
    } catch (error) {
      throw writeRefusal(error, `person ${spec.principalId}`, etag);
    }
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
    return this.snapshot(async (client, registryId) => {
      // The group's own latest number: writes to other groups may be in flight with lower ones.
      const latest = await client.query<{ latest: string }>(
        `SELECT GREATEST(0, (SELECT max(change_number) FROM registry_calendars WHERE shard_group = $1),
                            (SELECT max(change_number) FROM registry_people WHERE shard_group = $1)) AS latest`,
        [stored(group)],
      );
      const calendars = await client.query<{ record: CalendarRecord }>(
        "SELECT record FROM registry_calendars WHERE shard_group = $1 AND live",
        [stored(group)],
      );
      const people = await client.query<{ record: PersonRecord }>("SELECT record FROM registry_people WHERE shard_group = $1", [
        stored(group),
      ]);
      return {
        registryId,
        changeNumber: Number(latest.rows[0].latest),
        calendars: calendars.rows.map((row) => row.record),
        people: people.rows.map((row) => row.record),
      };
    });
  }

  async changesSince(changeNumber: number, group: string | undefined, limit = 1_000): Promise<ChangeBatch> {
    const registryId = await this.ready();
    const rows = await this.withClient(
      async (client) =>
        (
          await client.query<ChangeRow>(
            `SELECT 'calendar' AS entity, id, change_number, record FROM registry_calendars WHERE shard_group = $1 AND change_number > $2
             UNION ALL
             SELECT 'person', principal_id, change_number, record FROM registry_people WHERE shard_group = $1 AND change_number > $2
             ORDER BY change_number LIMIT $3`,
            [stored(group), changeNumber, limit + 1],
          )
        ).rows,
    );
    const complete = rows.length <= limit;
    const batch = complete ? rows : rows.slice(0, limit);
    // The group's writes commit in number order (postgres-migrations.ts), so its last row read is as far as it is known to go.
    return {
      registryId,
      changes: batch.map(changeOf),
      latest: batch.length === 0 ? changeNumber : Number(batch[batch.length - 1].change_number),
      complete,
    };
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

/** The NOTIFY channels of the groups a write touches, each once. */
function channelsOf(groups: readonly (string | undefined)[]): string[] {
  return [...new Set(groups.map(channelOf))];
}

/** A write function's refusal as the registry's: the row is gone, or another change came after the version read. */
function writeRefusal(error: unknown, what: string, etag: string | undefined): unknown {
  if (refusedWith(error, NO_SUCH_ROW)) return new RegistryError("NOT_FOUND", `${what} no longer exists`, { cause: error });
  if (refusedWith(error, VERSION_CHANGED)) {
    return new RegistryError(
      "ETAG_MISMATCH",
      `${what} changed since etag ${etag ?? "(the version read)"} was read: read it again and reapply the change`,
      {
        cause: error,
      },
    );
  }
  return error;
}

/**
 * The PostgreSQL registry's schema, as numbered migrations run at start
 * (docs/operating.md, "The calendar registry"). Every replica and admin
 * process runs `migrate` when it opens the registry: one transaction under
 * an advisory lock, so processes starting together apply each migration
 * once, and a migration already applied is skipped. A database migrated by
 * a newer calq (a version this one does not know) is refused, never
 * written with an older idea of the schema. A migration, once released, is
 * never edited: a change is a new one.
 */
import type pg from "pg";
import { RegistryError } from "./registry-error.js";

interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "calendars, people, change numbers and the audit log",
    sql: `
      CREATE TABLE registry_state (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        registry_id text NOT NULL,
        shard_groups text[],
        change_number bigint NOT NULL
      );
      -- One row per calendar and group: live, or the tombstone that tells a group's replicas the calendar left it.
      CREATE TABLE registry_calendars (
        shard_group text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        change_number bigint NOT NULL,
        live boolean NOT NULL,
        principals text[] NOT NULL DEFAULT '{}',
        record jsonb,
        PRIMARY KEY (shard_group, id)
      );
      CREATE UNIQUE INDEX registry_calendars_live_id ON registry_calendars (id) WHERE live;
      CREATE INDEX registry_calendars_group_change ON registry_calendars (shard_group, change_number);
      CREATE INDEX registry_calendars_principals ON registry_calendars USING gin (principals) WHERE live;
      CREATE TABLE registry_people (
        shard_group text COLLATE "C" NOT NULL,
        principal_id text COLLATE "C" NOT NULL,
        change_number bigint NOT NULL,
        record jsonb NOT NULL,
        PRIMARY KEY (shard_group, principal_id)
      );
      CREATE UNIQUE INDEX registry_people_principal ON registry_people (principal_id);
      CREATE INDEX registry_people_group_change ON registry_people (shard_group, change_number);
      CREATE TABLE registry_audit (
        change_number bigint PRIMARY KEY,
        at timestamptz NOT NULL,
        by_principal text NOT NULL,
        action text NOT NULL,
        subject text NOT NULL,
        after jsonb
      );
    `,
  },
];

/** The advisory lock key that serialises migrations ("calq" in ASCII). */
const MIGRATION_LOCK = 0x63616c71;

/** Applies the migrations `client`'s database lacks; answers the versions applied now. */
export async function migrate(client: pg.ClientBase): Promise<number[]> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS registry_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await client.query<{ version: number }>("SELECT version FROM registry_migrations");
    const applied = new Set(rows.map((row) => row.version));
    const known = MIGRATIONS[MIGRATIONS.length - 1].version;
    const newest = Math.max(0, ...applied);
    if (newest > known) {
      throw new RegistryError(
        "DATA_LOSS",
        `the registry database is at schema version ${newest}, written by a newer calq; this one knows up to ${known}: upgrade it`,
      );
    }
    const now: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query("INSERT INTO registry_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
      now.push(migration.version);
    }
    await client.query("COMMIT");
    return now;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

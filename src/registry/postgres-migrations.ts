/**
 * The PostgreSQL registry's schema, as numbered migrations run at start
 * (docs/decisions.md, "The calendar registry"). Every replica and admin
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
        shard_groups text[]
      );
      CREATE SEQUENCE registry_change_numbers;
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

      -- Each write is one call of one of these functions. A write locks the groups it touches (a
      -- transaction-scoped advisory lock per group, taken in name order) before it takes its number
      -- from the sequence and holds them until it commits: within a group, numbers are committed in
      -- order, while writes to other groups commit alongside (and share their WAL flushes).
      -- A version's etag is the first 16 hex digits of md5(id ':' change number), as registry-keys.ts's etagOf.
      -- Refusals are raised with calq's own SQLSTATEs before a number is taken: CQ404 no such live
      -- row, CQ409 a live calendar has this id, CQ412 the row is no longer at the change number read.
      CREATE FUNCTION registry_lock_groups(p_groups text[]) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        name text;
      BEGIN
        FOR name IN SELECT DISTINCT g FROM unnest(p_groups) AS g ORDER BY 1 LOOP
          PERFORM pg_advisory_xact_lock(hashtext('calq_registry:' || name));
        END LOOP;
      END $$;

      CREATE FUNCTION registry_stamp(record jsonb, id text, n bigint) RETURNS jsonb LANGUAGE sql IMMUTABLE AS
        $$ SELECT record || jsonb_build_object('changeNumber', n, 'etag', left(md5(id || ':' || n), 16)) $$;

      -- Creates (expected_change NULL) or updates (the change number read) a calendar; answers the stored record.
      -- p_groups holds the group it was read in and the group it goes to.
      CREATE FUNCTION registry_put_calendar(p_id text, p_group text, p_principals text[], p_record jsonb,
          p_expected_change bigint, p_groups text[], p_by text, p_at_ms bigint, p_channels text[]) RETURNS jsonb LANGUAGE plpgsql AS $$
      DECLARE
        n bigint;
        previous registry_calendars;
        stamped jsonb;
      BEGIN
        PERFORM registry_lock_groups(p_groups);
        SELECT * INTO previous FROM registry_calendars WHERE id = p_id AND live FOR UPDATE;
        IF p_expected_change IS NULL AND FOUND THEN
          RAISE EXCEPTION 'calendar % exists', p_id USING ERRCODE = 'CQ409';
        ELSIF p_expected_change IS NOT NULL AND NOT FOUND THEN
          RAISE EXCEPTION 'no calendar %', p_id USING ERRCODE = 'CQ404';
        ELSIF p_expected_change IS NOT NULL AND previous.change_number <> p_expected_change THEN
          RAISE EXCEPTION 'calendar % changed', p_id USING ERRCODE = 'CQ412';
        END IF;
        n := nextval('registry_change_numbers');
        stamped := registry_stamp(p_record, p_id, n);
        IF previous.id IS NOT NULL AND previous.shard_group <> p_group THEN
          UPDATE registry_calendars SET change_number = n, live = false, principals = '{}', record = NULL
            WHERE shard_group = previous.shard_group AND id = p_id;
        END IF;
        BEGIN
          INSERT INTO registry_calendars (shard_group, id, change_number, live, principals, record)
            VALUES (p_group, p_id, n, true, p_principals, stamped)
            ON CONFLICT (shard_group, id) DO UPDATE SET change_number = n, live = true, principals = p_principals, record = stamped;
        EXCEPTION WHEN unique_violation THEN
          -- A create of the same id placed in another group committed first.
          RAISE EXCEPTION 'calendar % exists', p_id USING ERRCODE = 'CQ409';
        END;
        INSERT INTO registry_audit VALUES (n, to_timestamp(p_at_ms / 1000.0), p_by,
          CASE WHEN p_expected_change IS NULL THEN 'calendar.create' ELSE 'calendar.update' END, p_id, stamped);
        PERFORM pg_notify(channel, n::text) FROM unnest(p_channels) AS channel;
        RETURN stamped;
      END $$;

      -- Deletes the live calendar at the change number read, in its group p_group; answers the deletion's number.
      CREATE FUNCTION registry_delete_calendar(p_id text, p_group text, p_expected_change bigint, p_by text, p_at_ms bigint,
          p_channels text[]) RETURNS bigint LANGUAGE plpgsql AS $$
      DECLARE
        n bigint;
        previous registry_calendars;
      BEGIN
        PERFORM registry_lock_groups(ARRAY[p_group]);
        SELECT * INTO previous FROM registry_calendars WHERE id = p_id AND live FOR UPDATE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'no calendar %', p_id USING ERRCODE = 'CQ404';
        ELSIF previous.change_number <> p_expected_change OR previous.shard_group <> p_group THEN
          RAISE EXCEPTION 'calendar % changed', p_id USING ERRCODE = 'CQ412';
        END IF;
        n := nextval('registry_change_numbers');
        UPDATE registry_calendars SET change_number = n, live = false, principals = '{}', record = NULL
          WHERE shard_group = previous.shard_group AND id = p_id;
        INSERT INTO registry_audit VALUES (n, to_timestamp(p_at_ms / 1000.0), p_by, 'calendar.delete', p_id, NULL);
        PERFORM pg_notify(channel, n::text) FROM unnest(p_channels) AS channel;
        RETURN n;
      END $$;

      -- Sets a person in their group, over the change number read when one is given; answers the stored record.
      CREATE FUNCTION registry_set_person(p_id text, p_group text, p_record jsonb, p_expected_change bigint,
          p_by text, p_at_ms bigint, p_channels text[]) RETURNS jsonb LANGUAGE plpgsql AS $$
      DECLARE
        n bigint;
        previous registry_people;
        stamped jsonb;
      BEGIN
        PERFORM registry_lock_groups(ARRAY[p_group]);
        IF p_expected_change IS NOT NULL THEN
          SELECT * INTO previous FROM registry_people WHERE principal_id = p_id FOR UPDATE;
          IF NOT FOUND THEN
            RAISE EXCEPTION 'no person %', p_id USING ERRCODE = 'CQ404';
          ELSIF previous.change_number <> p_expected_change THEN
            RAISE EXCEPTION 'person % changed', p_id USING ERRCODE = 'CQ412';
          END IF;
        END IF;
        n := nextval('registry_change_numbers');
        stamped := registry_stamp(p_record, p_id, n);
        INSERT INTO registry_people (shard_group, principal_id, change_number, record) VALUES (p_group, p_id, n, stamped)
          ON CONFLICT (principal_id) DO UPDATE SET shard_group = p_group, change_number = n, record = stamped;
        INSERT INTO registry_audit VALUES (n, to_timestamp(p_at_ms / 1000.0), p_by, 'person.set', p_id, stamped);
        PERFORM pg_notify(channel, n::text) FROM unnest(p_channels) AS channel;
        RETURN stamped;
      END $$;
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

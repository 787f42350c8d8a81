/**
 * The embedded registry, the default: no server to run, its rows in one
 * journal file in the data folder (docs/decisions.md, "The calendar
 * registry", says why a journal rather than SQLite or PGlite). Every row is
 * held in memory, which costs little next to the calendars' snapshots the
 * same process holds; each change is appended and fsync'd before it is
 * applied and acknowledged, and the file is compacted when it has grown to
 * twice its live size, the compacted changes moving to an audit file.
 * One process opens a folder at a time (folder-lock.ts).
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CalendarRegistry, Subscription, SubscriptionListener, WriteContext } from "./calendar-registry.js";
import { refuseReservedId } from "./config-overlap.js";
import { type FolderLock, takeFolderLock } from "./folder-lock.js";
import { decodeEntries, JournalFile } from "./journal-file.js";
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

/** How the embedded registry is opened. */
export interface EmbeddedRegistryOptions {
  /** The folder of the registry's files (calq serve uses DATA/registry); created when missing. */
  readonly folder: string;
  /** The shard groups records are placed in; must match what the folder was created with. */
  readonly groups?: readonly string[];
  /** The clock of created/updated times; Date.now by default. */
  readonly now?: () => number;
  /** Calendar ids calq.yaml declares, which a create refuses. */
  readonly reservedIds?: ReadonlySet<string>;
  /** Compact once the journal passes this many bytes and twice its compacted size (default 4 MiB). */
  readonly compactAfterBytes?: number;
}

const FORMAT = 1;
const JOURNAL = "registry.journal";
const AUDIT = "registry-audit.journal";
const LOCK = "registry.lock";
const DEFAULT_COMPACT_AFTER_BYTES = 4 * 2 ** 20;
const ROWS_PER_ENTRY = 500;

/** A calendar's row in one group: live, or the tombstone that tells the group's replicas it left. */
interface CalendarRow {
  readonly entity: "calendar";
  readonly group: string | null;
  readonly id: string;
  readonly changeNumber: number;
  readonly record: CalendarRecord | null;
}

interface PersonRow {
  readonly entity: "person";
  readonly group: string | null;
  readonly id: string;
  readonly changeNumber: number;
  readonly record: PersonRecord;
}

type StoredRow = CalendarRow | PersonRow;

/** The journal's entries: its header, a change with its audit facts, or rows written by a compaction. */
type JournalEntry =
  | {
      readonly t: "header";
      readonly format: number;
      readonly registryId: string;
      readonly groups: readonly string[] | null;
      readonly changeNumber: number;
    }
  | {
      readonly t: "change";
      readonly n: number;
      readonly at: number;
      readonly by: string;
      readonly action: AuditAction;
      readonly subject: string;
      readonly rows: readonly StoredRow[];
    }
  | { readonly t: "rows"; readonly rows: readonly StoredRow[] };

type ChangeEntry = Extract<JournalEntry, { t: "change" }>;

const groupKey = (group: string | null | undefined) => group ?? "";

/** Opens (or creates) the embedded registry in `options.folder`. */
export async function openEmbeddedRegistry(options: EmbeddedRegistryOptions): Promise<CalendarRegistry> {
  await mkdir(options.folder, { recursive: true });
  const lock = await takeFolderLock(join(options.folder, LOCK));
  try {
    const { journal, entries } = await JournalFile.open(join(options.folder, JOURNAL));
    try {
      let header = entries[0] as JournalEntry | undefined;
      if (header === undefined) {
        header = { t: "header", format: FORMAT, registryId: randomUUID(), groups: options.groups ?? null, changeNumber: 0 };
        await journal.replace([header]);
      }
      if (header.t !== "header" || header.format !== FORMAT) {
        throw new RegistryError("DATA_LOSS", `${journal.path} is not a calq registry journal of format ${FORMAT}`);
      }
      checkPlacement(header.groups, options.groups, journal.path);
      const registry = new EmbeddedRegistry(options, lock, journal, header.registryId, header.groups ?? undefined, header.changeNumber);
      for (const entry of entries.slice(1) as JournalEntry[]) registry.replay(entry);
      return registry;
    } catch (error) {
      await journal.close();
      throw error;
    }
  } catch (error) {
    await lock.release();
    throw error;
  }
}

class EmbeddedRegistry implements CalendarRegistry {
  readonly description: string;
  /** Every row by group, then id: live calendars, tombstones and people. */
  private readonly calendarRows = new Map<string, Map<string, CalendarRow>>();
  private readonly personRows = new Map<string, Map<string, PersonRow>>();
  private readonly liveCalendars = new Map<string, CalendarRecord>();
  private readonly people = new Map<string, PersonRecord>();
  /** Changes since the last compaction, for the audit log. */
  private recentChanges: ChangeEntry[] = [];
  private sortedIds: string[] | undefined;
  private readonly subscribers = new Map<string, Set<SubscriptionListener>>();
  /** Writes run one at a time, in order. */
  private queue: Promise<unknown> = Promise.resolve();
  private compactedSize: number;
  private closed = false;
  private readonly now: () => number;
  private readonly placement: Placement;

  constructor(
    private readonly options: EmbeddedRegistryOptions,
    private readonly lock: FolderLock,
    private readonly journal: JournalFile,
    private readonly registryId: string,
    readonly groups: readonly string[] | undefined,
    private changeNumber: number,
  ) {
    this.description = `embedded ${options.folder}`;
    this.placement = new Placement(groups);
    this.now = options.now ?? Date.now;
    this.compactedSize = journal.size;
  }

  /** Applies one entry read at open. */
  replay(entry: JournalEntry): void {
    switch (entry.t) {
      case "header":
        throw new RegistryError("DATA_LOSS", `${this.journal.path} holds a second header`);
      case "rows":
        for (const row of entry.rows) this.applyRow(row);
        break;
      case "change":
        this.applyChange(entry);
        break;
    }
  }

  private applyChange(entry: ChangeEntry): void {
    for (const row of entry.rows) this.applyRow(row);
    this.changeNumber = entry.n;
    this.recentChanges.push(entry);
  }

  private applyRow(row: StoredRow): void {
    if (row.entity === "calendar") {
      rowsOf(this.calendarRows, row.group).set(row.id, row);
      if (row.record !== null) {
        if (!this.liveCalendars.has(row.id)) this.sortedIds = undefined;
        this.liveCalendars.set(row.id, row.record);
      } else if (this.liveCalendars.get(row.id)?.shardGroup === (row.group ?? undefined)) {
        this.liveCalendars.delete(row.id);
        this.sortedIds = undefined;
      }
    } else {
      rowsOf(this.personRows, row.group).set(row.id, row);
      this.people.set(row.id, row.record);
    }
  }

  /** Runs `write` after every earlier write; a closed registry refuses. */
  private serialized<T>(write: () => Promise<T>): Promise<T> {
    const next = this.queue.then(() => {
      if (this.closed) throw new RegistryError("UNAVAILABLE", `${this.description} is closed`);
      return write();
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Appends the change durably, then applies it and wakes the groups it touched. */
  private async commit(facts: VersionFacts, action: AuditAction, subject: string, rows: readonly StoredRow[]): Promise<void> {
    const entry: ChangeEntry = { t: "change", n: facts.changeNumber, at: facts.at, by: facts.by, action, subject, rows };
    try {
      await this.journal.append([entry]);
    } catch (error) {
      throw new RegistryError("UNAVAILABLE", `${this.description}: the change could not be written; nothing was applied`, { cause: error });
    }
    this.applyChange(entry);
    for (const group of new Set(rows.map((row) => groupKey(row.group)))) {
      for (const listener of this.subscribers.get(group) ?? []) queueMicrotask(() => listener.onWake());
    }
    if (this.journal.size > Math.max(this.options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES, 2 * this.compactedSize)) {
      await this.compact().catch(() => undefined);
    }
  }

  private facts(by: string): VersionFacts {
    return { changeNumber: this.changeNumber + 1, by: checkAdmin(by), at: this.now() };
  }

  /**
   * Moves the changes since the last compaction to the audit file, then
   * rewrites the journal as its header and live rows. A crash between the
   * two leaves those changes in both; readAudit shows each once.
   */
  private async compact(): Promise<void> {
    const { journal: audit } = await JournalFile.open(join(this.options.folder, AUDIT));
    try {
      await audit.append(this.recentChanges);
    } finally {
      await audit.close();
    }
    const rows: StoredRow[] = [];
    for (const byId of this.calendarRows.values()) rows.push(...byId.values());
    for (const byId of this.personRows.values()) rows.push(...byId.values());
    const entries: JournalEntry[] = [
      { t: "header", format: FORMAT, registryId: this.registryId, groups: this.groups ?? null, changeNumber: this.changeNumber },
    ];
    for (let i = 0; i < rows.length; i += ROWS_PER_ENTRY) entries.push({ t: "rows", rows: rows.slice(i, i + ROWS_PER_ENTRY) });
    await this.journal.replace(entries);
    this.recentChanges = [];
    this.compactedSize = this.journal.size;
  }

  async createCalendar(value: unknown, context: WriteContext): Promise<CreateOutcome> {
    const spec = checkCalendarSpec(value);
    refuseReservedId(spec.id, this.options.reservedIds);
    return this.serialized(async () => {
      const existing = this.liveCalendars.get(spec.id);
      if (existing !== undefined) {
        if (repeatsCreate(existing, spec)) return { calendar: existing, created: false };
        throw new RegistryError(
          "CALENDAR_ALREADY_EXISTS",
          `calendar ${spec.id} already exists with other content; update it with its etag`,
        );
      }
      const facts = this.facts(context.by);
      const record = calendarVersion(spec, this.placement, facts);
      await this.commit(facts, "calendar.create", spec.id, [calendarRow(record)]);
      return { calendar: record, created: true };
    });
  }

  async updateCalendar(value: unknown, etag: string, context: WriteContext): Promise<CalendarRecord> {
    const spec = checkCalendarSpec(value);
    return this.serialized(async () => {
      const previous = checkedVersion(this.liveCalendars.get(spec.id), spec.id, etag);
      const facts = this.facts(context.by);
      const record = calendarVersion(spec, this.placement, facts, previous);
      const rows: StoredRow[] = [calendarRow(record)];
      if (record.shardGroup !== previous.shardGroup) rows.unshift(tombstone(previous, facts.changeNumber));
      await this.commit(facts, "calendar.update", spec.id, rows);
      return record;
    });
  }

  async deleteCalendar(id: string, etag: string | undefined, context: WriteContext): Promise<DeleteOutcome> {
    return this.serialized(async () => {
      const previous = checkedVersion(this.liveCalendars.get(id), id, etag);
      const facts = this.facts(context.by);
      await this.commit(facts, "calendar.delete", id, [tombstone(previous, facts.changeNumber)]);
      return { calendarId: id, changeNumber: facts.changeNumber };
    });
  }

  async setPerson(value: unknown, etag: string | undefined, context: WriteContext): Promise<PersonRecord> {
    const spec = checkPersonSpec(value);
    return this.serialized(async () => {
      const previous = this.people.get(spec.principalId);
      if (etag !== undefined && previous === undefined)
        throw new RegistryError("NOT_FOUND", `no person has principal id "${spec.principalId}"`);
      if (etag !== undefined && etag !== previous?.etag) {
        throw new RegistryError("ETAG_MISMATCH", `person ${spec.principalId} changed since etag ${etag} was read: read them again`);
      }
      const facts = this.facts(context.by);
      const record = personVersion(spec, this.placement, facts);
      await this.commit(facts, "person.set", spec.principalId, [
        { entity: "person", group: record.shardGroup ?? null, id: record.principalId, changeNumber: facts.changeNumber, record },
      ]);
      return record;
    });
  }

  async getCalendar(id: string): Promise<CalendarRecord | undefined> {
    return this.liveCalendars.get(id);
  }

  async getPerson(principalId: string): Promise<PersonRecord | undefined> {
    return this.people.get(principalId);
  }

  async listCalendars(query: CalendarListQuery): Promise<CalendarPage> {
    const { pageSize, after } = readListQuery(query);
    this.sortedIds ??= [...this.liveCalendars.keys()].sort();
    const ids = this.sortedIds;
    let low = 0;
    let high = ids.length;
    const from = after === "" ? (query.idPrefix ?? "") : after;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ids[middle] < from || (after !== "" && ids[middle] === after)) low = middle + 1;
      else high = middle;
    }
    const calendars: CalendarRecord[] = [];
    for (let i = low; i < ids.length && calendars.length < pageSize + 1; i++) {
      if (query.idPrefix !== undefined && !ids[i].startsWith(query.idPrefix)) break;
      const record = this.liveCalendars.get(ids[i])!;
      if (query.shardGroup !== undefined && record.shardGroup !== query.shardGroup) continue;
      if (query.reader !== undefined && !record.readers.includes(query.reader) && !record.freeBusyReaders.includes(query.reader)) continue;
      calendars.push(record);
    }
    if (calendars.length <= pageSize) return { calendars };
    calendars.length = pageSize;
    return { calendars, nextPageToken: pageTokenAfter(calendars[pageSize - 1].id, query) };
  }

  async loadGroup(group: string | undefined): Promise<GroupSnapshot> {
    const calendars: CalendarRecord[] = [];
    for (const row of this.calendarRows.get(groupKey(group))?.values() ?? []) if (row.record !== null) calendars.push(row.record);
    const people = [...(this.personRows.get(groupKey(group))?.values() ?? [])].map((row) => row.record);
    return { registryId: this.registryId, changeNumber: this.changeNumber, calendars, people };
  }

  async changesSince(changeNumber: number, group: string | undefined, limit = 1_000): Promise<ChangeBatch> {
    const rows: StoredRow[] = [];
    for (const row of this.calendarRows.get(groupKey(group))?.values() ?? []) if (row.changeNumber > changeNumber) rows.push(row);
    for (const row of this.personRows.get(groupKey(group))?.values() ?? []) if (row.changeNumber > changeNumber) rows.push(row);
    rows.sort((a, b) => a.changeNumber - b.changeNumber);
    const complete = rows.length <= limit;
    const batch = complete ? rows : rows.slice(0, limit);
    return {
      registryId: this.registryId,
      changes: batch.map(changeOf),
      latest: complete ? this.changeNumber : batch[batch.length - 1].changeNumber,
      complete,
    };
  }

  async subscribe(group: string | undefined, listener: SubscriptionListener): Promise<Subscription> {
    const key = groupKey(group);
    const listeners = this.subscribers.get(key) ?? new Set<SubscriptionListener>();
    this.subscribers.set(key, listeners);
    listeners.add(listener);
    queueMicrotask(() => listener.onWake());
    return {
      state: "connected",
      close: async () => {
        listeners.delete(listener);
      },
    };
  }

  async readAudit(changeNumber: number, limit = 1_000): Promise<AuditEntry[]> {
    const archived = await readFile(join(this.options.folder, AUDIT)).catch(() => Buffer.alloc(0));
    const entries: AuditEntry[] = [];
    let last = changeNumber;
    for (const entry of [...(decodeEntries(archived).entries as ChangeEntry[]), ...this.recentChanges]) {
      // A compaction cut short by a crash archives its changes again; each is shown once.
      if (entry.n <= last) continue;
      last = entry.n;
      const after = entry.rows.find((row) => row.record !== null)?.record ?? undefined;
      entries.push({
        changeNumber: entry.n,
        at: entry.at,
        by: entry.by,
        action: entry.action,
        subject: entry.subject,
        ...(after ? { after } : {}),
      });
      if (entries.length === limit) break;
    }
    return entries;
  }

  async close(): Promise<void> {
    await this.serialized(async () => {
      this.closed = true;
      this.subscribers.clear();
      await this.journal.close();
      await this.lock.release();
    });
  }
}

function rowsOf<Row>(byGroup: Map<string, Map<string, Row>>, group: string | null): Map<string, Row> {
  let rows = byGroup.get(groupKey(group));
  if (rows === undefined) {
    rows = new Map();
    byGroup.set(groupKey(group), rows);
  }
  return rows;
}

function calendarRow(record: CalendarRecord): CalendarRow {
  return { entity: "calendar", group: record.shardGroup ?? null, id: record.id, changeNumber: record.changeNumber, record };
}

/** The row that tells `previous`'s group the calendar left it, at `changeNumber`. */
function tombstone(previous: CalendarRecord, changeNumber: number): CalendarRow {
  return { entity: "calendar", group: previous.shardGroup ?? null, id: previous.id, changeNumber, record: null };
}

function changeOf(row: StoredRow): RegistryChange {
  if (row.entity === "person") return { kind: "person-upsert", changeNumber: row.changeNumber, person: row.record };
  return row.record === null
    ? { kind: "calendar-removal", changeNumber: row.changeNumber, calendarId: row.id }
    : { kind: "calendar-upsert", changeNumber: row.changeNumber, calendar: row.record };
}

/**
 * The one interface of the live registry of calendars and people
 * (docs/decisions.md, "The calendar registry"), which two engines implement
 * and one test suite checks: embedded (a journal file in the data folder,
 * the default) and PostgreSQL (for a fleet). The admin service writes
 * through it; each replica loads its group's rows from it, then follows the
 * changes (registry-follower.ts).
 */
import type {
  AuditEntry,
  CalendarListQuery,
  CalendarPage,
  CalendarRecord,
  ChangeBatch,
  CreateOutcome,
  DeleteOutcome,
  GroupSnapshot,
  PersonRecord,
} from "./registry-records.js";

/** How a subscription's link to the registry stands. */
export type LinkState = "connected" | "disconnected";

/** What a subscription tells its replica. */
export interface SubscriptionListener {
  /**
   * Changes may have been made to the group: ask `changesSince` from the
   * last number applied. Called after each committed change of the group,
   * and once each time the link (re)connects, so changes made while it was
   * down are caught up. Wakes carry no data and may come more often than
   * changes; a replica that is already catching up may fold them into one.
   */
  onWake(): void;
  /** The link went down (with why) or came back; wakes stop while it is down. */
  onLinkState?(state: LinkState, cause?: unknown): void;
}

/** An open subscription; closing it stops its wakes and releases its connection. */
export interface Subscription {
  readonly state: LinkState;
  close(): Promise<void>;
}

/** Options of a write: who makes it (for the audit log) and, for updates, the version it was based on. */
export interface WriteContext {
  /** The admin principal making the change, recorded in the audit log. */
  readonly by: string;
}

/**
 * The registry. Every write is validated whole first (INVALID_SPEC with
 * every field violation, nothing applied), is atomic with its audit row, and
 * gets the next registry-wide change number. Failures are RegistryErrors:
 * UNAVAILABLE means the database could not be reached and nothing was
 * applied.
 */
export interface CalendarRegistry {
  /** Where the rows live, for logs and status: "embedded /data/registry" or "postgresql host:port/db". */
  readonly description: string;
  /** The shard groups records are placed in (stored with the registry); undefined: one group serves all. */
  readonly groups: readonly string[] | undefined;

  /**
   * Creates a calendar. Idempotent: the same spec sent again answers the
   * same calendar with `created: false` and changes nothing; a live calendar
   * with this id and other content is CALENDAR_ALREADY_EXISTS.
   */
  createCalendar(spec: unknown, context: WriteContext): Promise<CreateOutcome>;
  /**
   * Replaces a calendar's spec (every field; its id names it) when `etag` is
   * its current one: NOT_FOUND without it, ETAG_MISMATCH when another change
   * came first. A changed shard key may move it to another group.
   */
  updateCalendar(spec: unknown, etag: string, context: WriteContext): Promise<CalendarRecord>;
  /** Deletes a calendar; with an etag, only that version (ETAG_MISMATCH otherwise). NOT_FOUND when there is none. */
  deleteCalendar(id: string, etag: string | undefined, context: WriteContext): Promise<DeleteOutcome>;
  /** Creates or replaces a person's settings; with an etag, only over that version. */
  setPerson(spec: unknown, etag: string | undefined, context: WriteContext): Promise<PersonRecord>;

  getCalendar(id: string): Promise<CalendarRecord | undefined>;
  getPerson(principalId: string): Promise<PersonRecord | undefined>;
  /** One page of live calendars matching every filter given, in id order; INVALID_PAGE_TOKEN for another query's token. */
  listCalendars(query: CalendarListQuery): Promise<CalendarPage>;

  /** Every live calendar and person of `group` (undefined: the only group) as of one change number. */
  loadGroup(group: string | undefined): Promise<GroupSnapshot>;
  /** The changes of `group` after `changeNumber`, in order, at most `limit` (default 1,000) per batch. */
  changesSince(changeNumber: number, group: string | undefined, limit?: number): Promise<ChangeBatch>;
  /** Wakes `listener` when `group` may have changed; each subscription holds its own link to the registry. */
  subscribe(group: string | undefined, listener: SubscriptionListener): Promise<Subscription>;

  /** Audit rows after `changeNumber`, oldest first, at most `limit` (default 1,000). */
  readAudit(changeNumber: number, limit?: number): Promise<AuditEntry[]>;
  /** Releases files, connections and subscriptions; later calls fail. */
  close(): Promise<void>;
}

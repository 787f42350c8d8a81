/**
 * The registry's calendars and people as this replica serves them, kept live
 * (docs/decisions.md, "The calendar registry"): a follower of the replica's
 * shard group (src/registry) loads the group's rows at start, from the
 * registry or, while its database cannot be reached, from the local copy,
 * and then hears every change. Each calendar added, changed or removed is
 * applied at once to what the server reads: the shard map (who may read it,
 * where it lives), the store (its snapshots) and the refresh scheduler (its
 * polls). A removed calendar's state and snapshots are let go.
 *
 * calq.yaml's calendars are served beside the registry's, and an id names
 * one calendar: a start whose group holds an id calq.yaml declares is
 * refused, naming it. Secrets a registry calendar names (its headers' values)
 * are read from this process's environment when it is served.
 */
import { type CalendarConfig, ConfigError, type FeedSource } from "../config/config-model.js";
import { Secret } from "../config/secret.js";
import type { ShardMap } from "../config/shard-map.js";
import { assertNever } from "../exhaustive.js";
import type { Logger } from "../log.js";
import {
  type CalendarRecord,
  type CalendarRegistry,
  calendarIdsInBoth,
  type FollowerEvent,
  type FollowerStatus,
  followRegistry,
  isRegistryFailure,
  type PersonRecord,
  type RegistryFollower,
} from "../registry/index.js";
import type { CalendarStore } from "./calendar-store.js";
import type { RefreshScheduler } from "./refresh-scheduler.js";

/** What a replica follows and where it applies the changes. */
export interface LiveCalendarsOptions {
  readonly registry: CalendarRegistry;
  /** calq.yaml's calendars and groups, with this replica's group; registry calendars are placed in it as they come. */
  readonly shards: ShardMap;
  readonly store: CalendarStore;
  /** The local copy of the group's rows (the registry folder's registry-copy-GROUP.json). */
  readonly copyPath: string;
  /** Where the secrets registry calendars name are read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  readonly now?: () => number;
}

/** A registry calendar placed for access checks: what decides who may read it and where it lives. */
export interface RegistryPlacement {
  readonly calendar: Pick<CalendarConfig, "id" | "name" | "readers" | "freeBusyReaders" | "shardKey">;
  readonly group: string | undefined;
}

/** What the replica's registry link reports, for status. */
export interface LiveStatus extends FollowerStatus {
  readonly group: string | undefined;
  readonly calendarCount: number;
  readonly personCount: number;
}

/** How long an answer about another group's rows is remembered: changes there reach this replica within it. */
const MEMORY_MS = 1_000;
/** Answers remembered at most; past it, the memory starts over. */
const REMEMBERED = 10_000;

/**
 * Answers of the registry about rows this replica does not follow, each
 * remembered for a second and asked once at a time: a hundred calls a
 * second by one principal of another group cost one query a second, not a
 * hundred (and never a queue of them in front of the writes). While an
 * answer is asked again, the one before is given.
 */
class RegistryMemory<T> {
  private readonly answers = new Map<string, { at: number; value: T | undefined; asking?: Promise<T | undefined> }>();

  constructor(
    private readonly now: () => number,
    private readonly ask: (key: string) => Promise<T | undefined>,
  ) {}

  /** The answer for `key`: remembered, or asked; fails with the registry's error when there is no answer yet. */
  recall(key: string): Promise<T | undefined> {
    const known = this.answers.get(key);
    if (known !== undefined && known.at > Number.NEGATIVE_INFINITY && (known.asking !== undefined || this.now() - known.at < MEMORY_MS)) {
      return Promise.resolve(known.value);
    }
    if (known?.asking !== undefined) return known.asking;
    if (this.answers.size >= REMEMBERED) this.answers.clear();
    const asking = this.ask(key).then(
      (value) => {
        this.answers.set(key, { at: this.now(), value });
        return value;
      },
      (error: unknown) => {
        if (known === undefined) this.answers.delete(key);
        else this.answers.set(key, known);
        if (known === undefined || !isRegistryFailure(error, "UNAVAILABLE")) throw error;
        return known.value;
      },
    );
    this.answers.set(key, { at: known?.at ?? Number.NEGATIVE_INFINITY, value: known?.value, asking });
    return asking;
  }

  /** Forgets `key`, so the next recall asks (this replica heard it changed). */
  forget(key: string): void {
    this.answers.delete(key);
  }
}

/**
 * Starts following this replica's group and serving its registry calendars.
 * Fails with a ConfigError naming every id calq.yaml and the group both hold;
 * with the registry's UNAVAILABLE when neither the database nor a local copy
 * can be read.
 */
export async function followLiveCalendars(options: LiveCalendarsOptions): Promise<LiveCalendars> {
  const live = new LiveCalendars(options);
  await live.start();
  return live;
}

/** The registry calendars and people this replica serves, as the registry changes them. */
export class LiveCalendars {
  private follower: RegistryFollower | undefined;
  private scheduler: RefreshScheduler | undefined;
  /** calq.yaml's ids, which a registry calendar may not take. */
  private readonly configIds: ReadonlySet<string>;
  /** Set once the rows loaded at start are served: from then on each change is applied as it comes. */
  private live = false;
  /** Grows with each change to the group's people (what depends on them is worked out again). */
  private peopleVersion = 0;
  private readonly now: () => number;
  /** People and calendars of other groups, as the registry last answered. */
  private readonly otherPeople: RegistryMemory<PersonRecord>;
  private readonly otherCalendars: RegistryMemory<CalendarRecord>;

  constructor(private readonly options: LiveCalendarsOptions) {
    this.configIds = new Set(options.shards.calendars().map((calendar) => calendar.id));
    this.now = options.now ?? Date.now;
    this.otherPeople = new RegistryMemory(this.now, (principalId) => options.registry.getPerson(principalId));
    this.otherCalendars = new RegistryMemory(this.now, (calendarId) => options.registry.getCalendar(calendarId));
  }

  /** The replica's group: its shard group, or undefined when the deployment is not split. */
  get group(): string | undefined {
    return this.options.shards.localGroup;
  }

  /** @internal Loads the group and serves it; followLiveCalendars calls it once. */
  async start(): Promise<void> {
    const { shards, registry, copyPath, log } = this.options;
    this.follower = await followRegistry({
      registry,
      group: shards.localGroup,
      copyPath,
      onEvent: (event) => {
        if (this.live) this.apply(event);
      },
      onError: (error) =>
        log({ level: "warn", msg: "registry follower failed", error: error instanceof Error ? error.message : String(error) }),
      now: this.now,
    });
    const both = calendarIdsInBoth(this.configIds, this.follower.calendars().values());
    if (both.length > 0) {
      await this.follower.close();
      throw new ConfigError(
        `calq.yaml and the calendar registry both hold calendar ${both.length === 1 ? "id" : "ids"} ${both.join(", ")}: an id names one calendar; remove ${both.length === 1 ? "it" : "them"} from calq.yaml, or delete ${both.length === 1 ? "it" : "them"} from the registry (calq calendars rm ID)`,
      );
    }
    for (const calendar of this.follower.calendars().values()) this.serve(calendar, false);
    this.live = true;
    const status = this.follower.status();
    if (status.source === "local-copy") {
      log({
        level: "warn",
        msg: "the registry cannot be reached: serving its local copy until it answers",
        registry: registry.description,
        change_number: status.changeNumber,
        synced_at: new Date(status.syncedAt).toISOString(),
        why: status.lastError,
      });
    }
  }

  /** Hands changes to `scheduler` from now on (it is made once the first load is done). */
  attach(scheduler: RefreshScheduler): void {
    this.scheduler = scheduler;
  }

  /** True for an id calq.yaml declares, which the registry never holds. */
  declaredInConfig(calendarId: string): boolean {
    return this.configIds.has(calendarId);
  }

  /** The group's registry calendars this replica holds, by id (whether or not their feeds load). */
  calendars(): ReadonlyMap<string, CalendarRecord> {
    return this.follower?.calendars() ?? new Map();
  }

  status(): LiveStatus {
    const follower = this.follower!;
    return {
      ...follower.status(),
      group: this.group,
      calendarCount: follower.calendars().size,
      personCount: follower.people().size,
    };
  }

  /** The group's people by principal id, with a number that grows with each change to them. */
  people(): { readonly version: number; readonly people: ReadonlyMap<string, PersonRecord> } {
    return { version: this.peopleVersion, people: this.follower?.people() ?? new Map() };
  }

  /**
   * The registry's settings for a principal: from this group's rows, else,
   * in a deployment split into groups, from the registry (remembered for a
   * second). Undefined when there are none, or the registry cannot be asked.
   */
  async personOf(principalId: string): Promise<PersonRecord | undefined> {
    const local = this.follower?.people().get(principalId);
    if (local !== undefined || !this.options.shards.sharded) return local;
    try {
      return await this.otherPeople.recall(principalId);
    } catch (error) {
      // Without the registry, calq.yaml's settings apply: a call is never refused for want of them.
      if (!isRegistryFailure(error, "UNAVAILABLE")) throw error;
      return undefined;
    }
  }

  /**
   * A registry calendar this replica does not hold, looked up in the
   * registry: one of another group, with the group it was placed in
   * (remembered for a second, as people are). Undefined when there is none,
   * or when this replica holds every row (not split into groups). Fails
   * with the registry's UNAVAILABLE.
   */
  async lookUp(calendarId: string): Promise<RegistryPlacement | undefined> {
    if (!this.options.shards.sharded || this.configIds.has(calendarId)) return undefined;
    const record = await this.otherCalendars.recall(calendarId);
    if (record === undefined) return undefined;
    return {
      calendar: placementOf(record),
      group: record.shardGroup,
    };
  }

  /** Stops following; the calendars served stay served. */
  async close(): Promise<void> {
    await this.follower?.close();
  }

  private apply(event: FollowerEvent): void {
    switch (event.kind) {
      case "calendar-added":
      case "calendar-changed":
        this.serve(event.calendar, true);
        break;
      case "calendar-removed":
        this.withdraw(event.calendar.id, "removed from the registry or moved to another group");
        break;
      case "person-set":
        this.otherPeople.forget(event.person.principalId);
        this.peopleVersion++;
        break;
      default:
        assertNever(event, "follower event");
    }
  }

  /** Serves a registry calendar, or takes its changes; `load` reads its feed now (at start, the first load of all does). */
  private serve(record: CalendarRecord, load: boolean): void {
    const { shards, store, log } = this.options;
    if (this.configIds.has(record.id)) {
      log({ level: "error", msg: "registry calendar not served: calq.yaml declares its id", calendar_id: record.id });
      return;
    }
    const config = this.configOf(record);
    if (typeof config === "string") {
      log({ level: "warn", msg: "registry calendar not served", calendar_id: record.id, why: config });
      this.withdraw(record.id, config);
      return;
    }
    this.otherCalendars.forget(record.id);
    shards.place(config, record.shardGroup);
    const served = store.view(record.id) !== undefined;
    let reread = true;
    if (served) reread = store.replace(config);
    else store.add(config);
    this.scheduler?.add(config);
    if (reread && load) void store.reload(record.id);
    log({ level: "info", msg: served ? "registry calendar changed" : "registry calendar served", calendar_id: record.id, reread });
  }

  /** Stops serving a calendar and lets its memory go; nothing when it was not served. */
  private withdraw(calendarId: string, why: string): void {
    const { shards, store, log } = this.options;
    if (store.view(calendarId) === undefined || this.configIds.has(calendarId)) return;
    shards.unplace(calendarId);
    this.scheduler?.remove(calendarId);
    store.remove(calendarId);
    log({ level: "info", msg: "registry calendar no longer served", calendar_id: calendarId, why });
  }

  /** How the store reads a registry calendar, or why it cannot (a secret not set here, a source kind not read yet). */
  private configOf(record: CalendarRecord): CalendarConfig | string {
    const source = this.sourceOf(record);
    if (typeof source === "string") return source;
    return { ...placementOf(record), source, refreshMs: record.refreshMs, timezone: record.zone };
  }

  private sourceOf(record: CalendarRecord): FeedSource | string {
    const { source } = record;
    switch (source.kind) {
      case "file":
        return { kind: "file", path: source.path };
      case "http": {
        const headers = new Map<string, Secret>();
        for (const header of source.headers) {
          const value = this.options.env[header.value.env];
          if (value === undefined || value === "")
            return `environment variable ${header.value.env} (header ${header.name}) is not set here`;
          headers.set(header.name, new Secret(value));
        }
        return { kind: "http", url: new URL(source.url), headers };
      }
      case "caldav": {
        const value = this.options.env[source.credential.env];
        if (value === undefined || value === "")
          return `environment variable ${source.credential.env} (the CalDAV credential) is not set here`;
        // A record written before schemes were asked for has none: it is not guessed.
        if (source.scheme === undefined) return "the CalDAV source names no credential scheme: update it with basic or bearer";
        return { kind: "caldav", url: new URL(source.collectionUrl), credentials: { scheme: source.scheme, secret: new Secret(value) } };
      }
      default:
        return assertNever(source, "registry source kind");
    }
  }
}

/** What access and placement read of a registry calendar, as calq.yaml's calendars give it (an empty name is the id). */
function placementOf(record: CalendarRecord): RegistryPlacement["calendar"] {
  return {
    id: record.id,
    name: record.name === "" ? record.id : record.name,
    readers: record.readers,
    freeBusyReaders: record.freeBusyReaders,
    shardKey: record.shardKey,
  };
}

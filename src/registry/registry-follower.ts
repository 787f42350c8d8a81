/**
 * A replica's view of its shard group in the registry (docs/decisions.md,
 * "The calendar registry"): it loads the group's rows at start, then follows
 * the changes as the subscription wakes it, catching up by change number,
 * and tells its listener each calendar added, changed or removed and each
 * person set. After the batches it applies it keeps a local copy in the
 * data folder (written durably: the old copy or the new one, never a torn
 * file; at most once per copy interval, so a group of thousands under a
 * stream of changes is not rewritten for each), so a replica that starts
 * while the database is down serves from that copy and says so in its
 * status, and catches up from the copy's change number once the database
 * answers.
 */
import { readFile } from "node:fs/promises";
import { writeFileDurably } from "../feeds/durable-write.js";
import type { CalendarRegistry, LinkState, Subscription } from "./calendar-registry.js";
import { isRegistryFailure, RegistryError } from "./registry-error.js";
import type { CalendarRecord, GroupSnapshot, PersonRecord, RegistryChange } from "./registry-records.js";

/** What a replica's store hears, in change order. */
export type FollowerEvent =
  | { readonly kind: "calendar-added"; readonly calendar: CalendarRecord }
  | { readonly kind: "calendar-changed"; readonly calendar: CalendarRecord; readonly previous: CalendarRecord }
  /** The calendar was deleted, or moved to another group: the replica stops serving it and releases its memory. */
  | { readonly kind: "calendar-removed"; readonly calendar: CalendarRecord }
  | { readonly kind: "person-set"; readonly person: PersonRecord };

/** Where the rows a replica serves come from: the registry itself, or its local copy while the registry cannot be reached. */
export type FollowerSource = "registry" | "local-copy";

/** What health and status report about the registry. */
export interface FollowerStatus {
  readonly source: FollowerSource;
  /** The subscription's link; "disconnected" means changes are not arriving now. */
  readonly link: LinkState;
  /** The last change number applied. */
  readonly changeNumber: number;
  /** When the rows were last known to match the registry (a load or a catch-up), epoch ms; from the copy when serving it. */
  readonly syncedAt: number;
  /** Why the last load or catch-up failed, until one succeeds. */
  readonly lastError?: string;
}

/** What a replica follows, where it keeps its copy, and who hears the changes. */
export interface RegistryFollowerOptions {
  readonly registry: CalendarRegistry;
  /** The replica's group; undefined when the registry has no groups. */
  readonly group: string | undefined;
  /** The local copy's file (calq serve uses DATA/registry-copy.json). */
  readonly copyPath: string;
  /** Hears every calendar and person at start (as added and set), then every change. */
  readonly onEvent: (event: FollowerEvent) => void;
  /** Hears failures that are not the database being away (those are in the status); for the log. */
  readonly onError?: (error: unknown) => void;
  readonly now?: () => number;
  /** The least time between two writes of the local copy (default 1 s); a later batch is written when it has passed. */
  readonly copyIntervalMs?: number;
}

/** The local copy's content. */
interface LocalCopy {
  readonly format: 1;
  readonly registryId: string;
  readonly group: string | null;
  readonly changeNumber: number;
  readonly syncedAt: number;
  readonly calendars: readonly CalendarRecord[];
  readonly people: readonly PersonRecord[];
}

/**
 * Starts following `options.group`: the registry's rows when it answers,
 * else the local copy. Fails with the registry's UNAVAILABLE when neither
 * is there (a first start while the database is down).
 */
export async function followRegistry(options: RegistryFollowerOptions): Promise<RegistryFollower> {
  const follower = new RegistryFollower(options);
  await follower.start();
  return follower;
}

/** A group's calendars and people as this replica serves them. */
export class RegistryFollower {
  private readonly calendarsById = new Map<string, CalendarRecord>();
  private readonly peopleById = new Map<string, PersonRecord>();
  private registryId = "";
  private changeNumber = 0;
  private syncedAt = 0;
  private source: FollowerSource = "registry";
  private lastError: string | undefined;
  private subscription: Subscription | undefined;
  /** The catch-up running now; a wake during it asks for one more pass. */
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly now: () => number;
  /** Local copy writes: one at a time, at most one per interval, the last batch always written. */
  private copyDue = false;
  private copyTimer: NodeJS.Timeout | undefined;
  private copyWriting: Promise<void> | undefined;
  private lastCopyAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: RegistryFollowerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** @internal Loads the rows (or the copy) and subscribes; followRegistry calls it once. */
  async start(): Promise<void> {
    try {
      const snapshot = await this.options.registry.loadGroup(this.options.group);
      this.replaceAll(snapshot);
      this.syncedAt = this.now();
      await this.writeCopy();
    } catch (error) {
      if (!isRegistryFailure(error, "UNAVAILABLE")) throw error;
      const copy = await this.readCopy();
      if (copy === undefined) {
        throw new RegistryError("UNAVAILABLE", `${error.message}, and ${this.options.copyPath} holds no copy of the group to serve from`, {
          cause: error,
        });
      }
      this.source = "local-copy";
      this.lastError = error.message;
      this.replaceAll(copy);
      this.syncedAt = copy.syncedAt;
    }
    this.subscription = await this.options.registry.subscribe(this.options.group, {
      onWake: () => this.wake(),
      onLinkState: (state, cause) => {
        if (state === "disconnected") this.lastError = cause instanceof Error ? cause.message : "the registry link is down";
      },
    });
  }

  /** The group's live calendars by id. */
  calendars(): ReadonlyMap<string, CalendarRecord> {
    return this.calendarsById;
  }

  /** The group's people by principal id. */
  people(): ReadonlyMap<string, PersonRecord> {
    return this.peopleById;
  }

  status(): FollowerStatus {
    return {
      source: this.source,
      link: this.subscription?.state ?? "disconnected",
      changeNumber: this.changeNumber,
      syncedAt: this.syncedAt,
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
    };
  }

  /** Runs a catch-up, or asks the running one for another pass. */
  private wake(): void {
    if (this.closed) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.catchUp().finally(() => {
      this.running = undefined;
    });
  }

  private async catchUp(): Promise<void> {
    do {
      this.again = false;
      try {
        let complete = false;
        let applied = false;
        while (!complete && !this.closed) {
          const batch = await this.options.registry.changesSince(this.changeNumber, this.options.group);
          if (batch.registryId !== this.registryId) {
            // The copy came from another database (restored, recreated): its numbers mean nothing here.
            this.reloadFrom(await this.options.registry.loadGroup(this.options.group));
            applied = true;
            break;
          }
          for (const change of batch.changes) this.apply(change);
          applied ||= batch.changes.length > 0 || batch.latest !== this.changeNumber;
          this.changeNumber = batch.latest;
          complete = batch.complete;
        }
        if (this.closed) return;
        this.source = "registry";
        this.lastError = undefined;
        this.syncedAt = this.now();
        if (applied) this.scheduleCopy();
      } catch (error) {
        this.lastError = error instanceof Error ? error.message : String(error);
        if (!isRegistryFailure(error, "UNAVAILABLE")) this.options.onError?.(error);
        // The subscription wakes this again when its link comes back.
        return;
      }
    } while (this.again && !this.closed);
  }

  private apply(change: RegistryChange): void {
    switch (change.kind) {
      case "calendar-upsert": {
        const previous = this.calendarsById.get(change.calendar.id);
        this.calendarsById.set(change.calendar.id, change.calendar);
        this.options.onEvent(
          previous === undefined
            ? { kind: "calendar-added", calendar: change.calendar }
            : { kind: "calendar-changed", calendar: change.calendar, previous },
        );
        break;
      }
      case "calendar-removal": {
        const previous = this.calendarsById.get(change.calendarId);
        if (previous === undefined) break;
        this.calendarsById.delete(change.calendarId);
        this.options.onEvent({ kind: "calendar-removed", calendar: previous });
        break;
      }
      case "person-upsert":
        this.peopleById.set(change.person.principalId, change.person);
        this.options.onEvent({ kind: "person-set", person: change.person });
        break;
    }
  }

  /** Takes a whole snapshot at start: every calendar is added, every person set. */
  private replaceAll(snapshot: Pick<GroupSnapshot, "registryId" | "changeNumber" | "calendars" | "people">): void {
    this.registryId = snapshot.registryId;
    this.changeNumber = snapshot.changeNumber;
    for (const calendar of snapshot.calendars) this.apply({ kind: "calendar-upsert", changeNumber: calendar.changeNumber, calendar });
    for (const person of snapshot.people) this.apply({ kind: "person-upsert", changeNumber: person.changeNumber, person });
  }

  /** Takes a snapshot of another database over the rows held: what is gone is removed, what differs changes. */
  private reloadFrom(snapshot: GroupSnapshot): void {
    const kept = new Set(snapshot.calendars.map((calendar) => calendar.id));
    for (const id of [...this.calendarsById.keys()]) {
      if (!kept.has(id)) this.apply({ kind: "calendar-removal", changeNumber: snapshot.changeNumber, calendarId: id });
    }
    this.registryId = snapshot.registryId;
    this.changeNumber = snapshot.changeNumber;
    for (const calendar of snapshot.calendars) {
      if (this.calendarsById.get(calendar.id)?.etag !== calendar.etag) {
        this.apply({ kind: "calendar-upsert", changeNumber: calendar.changeNumber, calendar });
      }
    }
    for (const person of snapshot.people) {
      if (this.peopleById.get(person.principalId)?.etag !== person.etag) {
        this.apply({ kind: "person-upsert", changeNumber: person.changeNumber, person });
      }
    }
  }

  /** Asks for the copy to be written: now, or when the interval since the last write has passed. */
  private scheduleCopy(): void {
    this.copyDue = true;
    if (this.copyTimer !== undefined || this.copyWriting !== undefined || this.closed) return;
    const wait = Math.max(0, this.lastCopyAt + (this.options.copyIntervalMs ?? 1_000) - this.now());
    this.copyTimer = setTimeout(() => {
      this.copyTimer = undefined;
      void this.flushCopy();
    }, wait);
  }

  /** Writes the copy when one is due; a failure is reported and leaves the older copy in place. */
  private async flushCopy(): Promise<void> {
    if (!this.copyDue) return;
    this.copyDue = false;
    this.lastCopyAt = this.now();
    this.copyWriting = this.writeCopy().catch((error: unknown) => this.options.onError?.(error));
    await this.copyWriting;
    this.copyWriting = undefined;
    if (this.copyDue) this.scheduleCopy();
  }

  private async writeCopy(): Promise<void> {
    const copy: LocalCopy = {
      format: 1,
      registryId: this.registryId,
      group: this.options.group ?? null,
      changeNumber: this.changeNumber,
      syncedAt: this.syncedAt,
      calendars: [...this.calendarsById.values()],
      people: [...this.peopleById.values()],
    };
    await writeFileDurably(this.options.copyPath, Buffer.from(JSON.stringify(copy)));
  }

  /** The copy of this group, or undefined when there is none or it is of another group or format. */
  private async readCopy(): Promise<LocalCopy | undefined> {
    try {
      const copy = JSON.parse(await readFile(this.options.copyPath, "utf8")) as Partial<LocalCopy>;
      if (copy.format !== 1 || copy.group !== (this.options.group ?? null)) return undefined;
      return copy as LocalCopy;
    } catch {
      return undefined;
    }
  }

  /** Stops following; the rows held stay readable. */
  async close(): Promise<void> {
    this.closed = true;
    await this.subscription?.close();
    await this.running;
    clearTimeout(this.copyTimer);
    this.copyTimer = undefined;
    await this.copyWriting;
    await this.flushCopy();
  }
}

/**
 * What changed in one calendar from snapshot to snapshot, kept so a caller
 * can ask what changed since a snapshot it saw (calendar_service.proto:
 * ListChanges, WatchChanges). Each new snapshot is compared with the one it
 * replaces, event by event (expand/event-versions.ts), and only the
 * differences are kept, so history costs what changed, not the calendar's
 * size. Snapshot ids name their content, so any replica that has seen a
 * snapshot can answer from it; one it never saw, or saw too long ago, is not
 * in its history (docs/decisions.md, "Changes since a token").
 */
import { type EventVersion, type VersionChange, type VersionTable, versionChangesSteps } from "../expand/event-versions.js";
import { runAtOnce, type Steps } from "../stepwise.js";

/** Snapshots remembered per calendar. */
export const MAX_HISTORY_SNAPSHOTS = 1_000;
/** Event changes remembered per calendar, over all its snapshots; past it the oldest snapshots are forgotten. */
export const MAX_HISTORY_CHANGES = 200_000;
/** How long a snapshot is remembered after it was replaced. */
export const HISTORY_RETENTION_MS = 7 * 86_400_000;

/** How one event differs between two snapshots, composed over every snapshot between them. */
export interface EventChange {
  readonly key: string;
  /** Absent when the event was added. */
  readonly before?: EventVersion;
  /** Absent when the event was removed. */
  readonly after?: EventVersion;
}

/** What `compare` found: the changes from `against` (the current versions then) to `versions`. */
export interface ComparedVersions {
  readonly against?: VersionTable;
  readonly versions: VersionTable;
  readonly changes: readonly VersionChange[];
}

interface Entry {
  readonly snapshotId: string;
  /** When it was replaced by the next snapshot; undefined for the current one. */
  replacedAt?: number;
  /** The changes from the snapshot before it (none for the first one remembered). */
  changes: readonly VersionChange[];
}

export class ChangeHistory {
  private readonly entries: Entry[] = [];
  private current?: VersionTable;
  private changeCount = 0;

  constructor(private readonly now: () => number) {}

  /**
   * Compares `versions` with the current snapshot's, in steps (a caller can
   * let other work run between them), for `record` to keep.
   */
  *compare(versions: VersionTable): Steps<ComparedVersions> {
    const against = this.current;
    return { against, versions, changes: against === undefined ? [] : yield* versionChangesSteps(against, versions) };
  }

  /**
   * Records a snapshot that replaces the current one (the same id again is
   * no change), with its changes as `compare` found them when it compared
   * these versions with the current ones; otherwise it compares them now.
   */
  record(snapshotId: string, versions: VersionTable, compared?: ComparedVersions): void {
    const last = this.entries.at(-1);
    if (last?.snapshotId === snapshotId) return;
    const stillCurrent = compared !== undefined && compared.against === this.current && compared.versions === versions;
    const { changes } = stillCurrent ? compared : runAtOnce(this.compare(versions));
    if (last !== undefined) last.replacedAt = this.now();
    this.entries.push({ snapshotId, changes });
    this.changeCount += changes.length;
    this.current = versions;
    this.forget();
  }

  /** Whether `snapshotId` is remembered. */
  has(snapshotId: string): boolean {
    return this.entries.some((entry) => entry.snapshotId === snapshotId);
  }

  /** The current snapshot's id, once one was recorded. */
  get currentId(): string | undefined {
    return this.entries.at(-1)?.snapshotId;
  }

  /**
   * Every event that differs between snapshot `from` and snapshot `to` (the
   * current one by default), in key order; an event changed and changed back,
   * or added and removed, is not among them. Undefined when `from` or `to` is
   * not remembered, or `to` is older than `from`.
   */
  between(from: string, to: string | undefined = this.currentId): EventChange[] | undefined {
    const start = this.entries.findIndex((entry) => entry.snapshotId === from);
    const end = to === undefined ? -1 : this.entries.findIndex((entry) => entry.snapshotId === to);
    if (start < 0 || end < start) return undefined;
    const composed = new Map<string, { before?: EventVersion; after?: EventVersion }>();
    for (let i = start + 1; i <= end; i++) {
      for (const change of this.entries[i].changes) {
        const seen = composed.get(change.key);
        if (seen === undefined) composed.set(change.key, { before: change.before, after: change.after });
        else seen.after = change.after;
      }
    }
    const changes: EventChange[] = [];
    for (const [key, { before, after }] of composed) {
      if (before === undefined && after === undefined) continue;
      if (before !== undefined && after !== undefined && before.digest === after.digest) continue;
      changes.push({ key, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) });
    }
    return changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Forgets the oldest snapshots past the count, the changes kept, or the age a replaced one is kept for. */
  private forget(): void {
    const oldest = this.now() - HISTORY_RETENTION_MS;
    while (this.entries.length > 1) {
      const first = this.entries[0];
      const tooOld = first.replacedAt !== undefined && first.replacedAt < oldest;
      if (!tooOld && this.entries.length <= MAX_HISTORY_SNAPSHOTS && this.changeCount <= MAX_HISTORY_CHANGES) return;
      this.entries.shift();
      // The next one's changes were from the one forgotten: they count no more.
      this.changeCount -= this.entries[0].changes.length;
      this.entries[0].changes = [];
    }
  }
}

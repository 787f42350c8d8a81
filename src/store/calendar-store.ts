/**
 * The calendars being served: for each, the current snapshot, the snapshots it
 * replaced (kept for the cursor lifetime so paged searches finish on the data
 * they started on), and how its last loads went.
 *
 * A reload reads the whole feed, builds a new snapshot off to the side (in
 * an ingest worker) and swaps it in with one assignment, so a search sees the old snapshot or the
 * new one, never a mix. A failed reload keeps the last good snapshot and
 * marks the calendar stale. Reloads of one calendar run one at a time, so an
 * older read can never replace a newer one.
 */

import { readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { CalendarConfig, FeedLimits } from "../config/config-model.js";
import { DEFAULT_FEED_LIMITS } from "../config/config-model.js";
import { assertNever } from "../exhaustive.js";
import type { ExpansionLimits } from "../expand/expand-calendar.js";
import { type CalDavLogEvent, type CalDavState, readCalDavState } from "../feeds/caldav-collection.js";
import { CalDavFeed } from "../feeds/caldav-feed.js";
import { writeFileDurably } from "../feeds/durable-write.js";
import { FeedFailure, type FeedFailureClass, type FeedReader, type FeedVersion } from "../feeds/feed-read.js";
import { FileFeed } from "../feeds/file-feed.js";
import { HttpFeed } from "../feeds/http-feed.js";
import { type Diagnostic, diagnostic } from "../ics/diagnostic.js";
import { ingestFeed } from "../ingest/ingest.js";
import type { Snapshot } from "../ingest/snapshot.js";
import { runYielding } from "../stepwise.js";
import { ChangeHistory, type ComparedVersions, type EventChange } from "./change-history.js";

const DAY_MS = 86_400_000;
const YEAR_MS = 365.25 * DAY_MS;
/**
 * Replaced snapshots kept per calendar, however young: a feed that changes at
 * every read (a DTSTAMP of "now") with a short refresh would otherwise pile
 * up snapshots for a whole cursor lifetime. A cursor on a dropped snapshot
 * gets CURSOR_EXPIRED, as after the lifetime.
 */
const MAX_RETIRED = 8;

/** Why the last load of a calendar failed: a feed failure, or a fault of calq's own. */
export type LoadFailure = FeedFailureClass | "internal";

/** How the loads of one calendar have gone; for operators (admin API, logs, metrics). */
export interface LoadStatus {
  readonly lastAttemptAt?: number;
  /** Last time the source was read, or confirmed unchanged, without failure. */
  readonly lastSuccessAt?: number;
  /** Set while the most recent read has failed. */
  readonly lastFailure?: { readonly failure: LoadFailure; readonly at: number; readonly httpStatus?: number };
  /** Failures since the last success; drives the retry backoff. */
  readonly consecutiveFailures: number;
  /** What the source itself reported at its last read (a CalDAV resource it could not read), beside the snapshot's diagnostics. */
  readonly sourceDiagnostics?: readonly Diagnostic[];
}

/** One calendar as a search sees it. */
export interface CalendarView {
  readonly config: CalendarConfig;
  /** Undefined until the feed has loaded once. */
  readonly snapshot?: Snapshot;
  /** True when the last reload failed and `snapshot` is the last good one. */
  readonly stale: boolean;
  /** Set while the last reload has failed. */
  readonly lastFailure?: LoadFailure;
  readonly status: LoadStatus;
}

/**
 * When a snapshot's data was last known to be the feed's: for the current
 * snapshot, the last read that found it unchanged (a 304, an untouched
 * file); for a replaced one, when it was read.
 */
export function dataAsOf(view: CalendarView, snapshot: Snapshot): number {
  return view.snapshot === snapshot ? (view.status.lastSuccessAt ?? snapshot.dataAsOf) : snapshot.dataAsOf;
}

/** Whether a snapshot is served stale: only the current one can be (a replaced one a cursor pages is what it was). */
export function servedStale(view: CalendarView, snapshot: Snapshot): boolean {
  return view.stale && view.snapshot === snapshot;
}

export type ReloadOutcome =
  | { readonly outcome: "loaded"; readonly snapshot: Snapshot }
  | { readonly outcome: "unchanged" }
  | { readonly outcome: "failed"; readonly failure: LoadFailure };

export interface StoreOptions {
  /** How long replaced snapshots stay readable (the cursor lifetime). */
  readonly retentionMs: number;
  readonly feedLimits?: FeedLimits;
  /** Expansion bounds for a load at `now`; by default from feedLimits. */
  readonly limits?: (now: number) => ExpansionLimits;
  readonly now?: () => number;
  /** Reports failures for the operator's log (never shown to callers); an internal failure's detail is its stack. */
  readonly onLoadFailure?: (calendarId: string, failure: LoadFailure, detail: string) => void;
  /** Reports each new snapshot, diagnostics included, for the operator's log. */
  readonly onLoaded?: (snapshot: Snapshot) => void;
  /** Reports a read that found the feed unchanged (for metrics). */
  readonly onUnchanged?: (calendarId: string) => void;
  /**
   * Where a source keeps what it needs between reads, to survive a restart
   * (a CalDAV collection's sync token and resources): a folder of the data
   * folder's. Without it, a restart reads every CalDAV collection whole.
   */
  readonly stateFolder?: string;
  /** Reports what a source tells the operator (a CalDAV server that refused a sync token, or sync-collection). */
  readonly onSourceLog?: (calendarId: string, event: CalDavLogEvent) => void;
}

/**
 * Expansion bounds: a year back and two ahead of the load's day (UTC) are
 * materialised. By the day, not the instant, so the reloads of one day
 * index the same years and may reuse each other's occurrences
 * (docs/decisions.md, "Rebuilds in proportion to the change"); which years
 * are indexed never changes an answer.
 */
export function defaultLimits(now: number, feeds: FeedLimits = DEFAULT_FEED_LIMITS): ExpansionLimits {
  const day = Math.floor(now / DAY_MS) * DAY_MS;
  return {
    hotStart: day - YEAR_MS,
    hotEnd: day + 2 * YEAR_MS,
    maxOccurrencesPerSeries: feeds.maxOccurrencesPerSeries,
    maxOccurrencesPerFeed: feeds.maxOccurrencesPerFeed,
    maxExpansionWork: feeds.expansionWork,
  };
}

/** True once the calendar is no longer served (a read kept running across the removal checks this after each await). */
function removed(state: CalendarState): boolean {
  return state.removed === true;
}

/** True when two configurations of a calendar read its feed alike: the same source and zone. */
function sameFeed(a: CalendarConfig, b: CalendarConfig): boolean {
  if (a.timezone !== b.timezone) return false;
  const [x, y] = [a.source, b.source];
  switch (x.kind) {
    case "file":
      return y.kind === "file" && x.path === y.path;
    case "http":
      return (
        y.kind === "http" &&
        x.url.href === y.url.href &&
        x.headers.size === y.headers.size &&
        [...x.headers].every(([name, secret]) => y.headers.get(name)?.reveal() === secret.reveal())
      );
    case "caldav":
      return (
        y.kind === "caldav" &&
        x.url.href === y.url.href &&
        x.credentials?.scheme === y.credentials?.scheme &&
        x.credentials?.secret.reveal() === y.credentials?.secret.reveal()
      );
    default:
      return assertNever(x, "feed source kind");
  }
}

/** The reader for a calendar's source; one per calendar for as long as its source stays (a CalDAV reader keeps its sync state). */
function feedReader(config: CalendarConfig, limits: FeedLimits, options: StoreOptions): FeedReader {
  const { source } = config;
  switch (source.kind) {
    case "file":
      return new FileFeed(source.path, limits.maxBytes);
    case "http":
      return new HttpFeed({ url: source.url, headers: source.headers, maxBytes: limits.maxBytes, timeoutMs: limits.fetchTimeoutMs });
    case "caldav":
      return new CalDavFeed(
        {
          collection: source.url,
          credentials: source.credentials,
          maxBytes: limits.maxBytes,
          timeoutMs: limits.fetchTimeoutMs,
          onLog: (event) => options.onSourceLog?.(config.id, event),
        },
        readSourceState(options.stateFolder, config.id),
      );
    default:
      return assertNever(source, "feed source kind");
  }
}

/** Where a calendar's source state is kept, in the state folder. */
function statePath(folder: string, calendarId: string): string {
  return join(folder, `${encodeURIComponent(calendarId)}.caldav.json`);
}

/** A CalDAV source's saved state, when there is one that reads back whole; else none (the first read lists the collection). */
function readSourceState(folder: string | undefined, calendarId: string): CalDavState | undefined {
  if (folder === undefined) return undefined;
  try {
    return readCalDavState(JSON.parse(readFileSync(statePath(folder, calendarId), "utf8")));
  } catch {
    return undefined;
  }
}

interface CalendarState {
  view: CalendarView;
  reader: FeedReader;
  version?: FeedVersion;
  /** Set by a replace that changed how the feed is read: the next load reads it whole, whatever version was seen. */
  readAfresh?: boolean;
  /** Set once the calendar is removed: a load still running finishes into nothing. */
  removed?: boolean;
  retired: { snapshot: Snapshot; retiredAt: number }[];
  /** What changed from snapshot to snapshot (ListChanges, WatchChanges). */
  readonly history: ChangeHistory;
  /** The reload running now (or a settled one). */
  running: Promise<unknown>;
  /** A reload waiting for the running one; later requests join it. */
  queued?: Promise<ReloadOutcome>;
}

/** A CalDAV source's unreadable resources, each a diagnostic naming its href. */
function sourceDiagnosticsOf(reader: FeedReader): readonly Diagnostic[] | undefined {
  if (!(reader instanceof CalDavFeed)) return undefined;
  return reader
    .lastPoll()
    ?.diagnostics.map((unread) =>
      diagnostic(
        "RESOURCE_UNREADABLE",
        `${unread.href}: ${unread.problem} (${unread.detail})${unread.keptLastGood ? "; its last good version is served" : ""}`,
      ),
    );
}

export class CalendarStore {
  private readonly states = new Map<string, CalendarState>();
  /** Told of each snapshot served (onSnapshot). */
  private readonly listeners = new Set<(calendarId: string, snapshot: Snapshot) => void>();
  /** Told of each calendar no longer served (onRemoved). */
  private readonly removalListeners = new Set<(calendarId: string) => void>();
  private readonly now: () => number;
  private readonly feeds: FeedLimits;
  private readonly limits: (now: number) => ExpansionLimits;
  /** The expansion bounds a load at `now` uses (imports build with the same). */
  readonly expansionLimits = (now: number): ExpansionLimits => this.limits(now);

  constructor(
    calendars: readonly CalendarConfig[],
    private readonly options: StoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.feeds = options.feedLimits ?? DEFAULT_FEED_LIMITS;
    this.limits = options.limits ?? ((now) => defaultLimits(now, this.feeds));
    for (const config of calendars) this.add(config);
  }

  /**
   * Serves one more calendar while serving (a registry calendar created, or
   * moved into this replica's group); it answers PROVIDER_UNAVAILABLE until
   * its first load, which the caller starts with `reload`.
   */
  add(config: CalendarConfig): void {
    if (this.states.has(config.id)) throw new Error(`calendar ${config.id} is already served`);
    this.states.set(config.id, {
      view: { config, stale: false, status: { consecutiveFailures: 0 } },
      reader: feedReader(config, this.feeds, this.options),
      retired: [],
      history: new ChangeHistory(this.now),
      running: Promise.resolve(),
    });
  }

  /**
   * Takes a calendar's changed configuration at once. Readers and name
   * change who may read it and how it is shown from this call on. A changed
   * source or zone needs the feed read again: the answer is true, and the
   * next load (the caller starts it with `reload`) reads the new source
   * whole; until it is done the snapshot read before is served, and kept
   * after it like any replaced one, so cursors on it finish.
   */
  replace(config: CalendarConfig): boolean {
    const state = this.state(config.id);
    const before = state.view.config;
    state.view = { ...state.view, config };
    if (sameFeed(before, config)) return false;
    state.reader = feedReader(config, this.feeds, this.options);
    state.readAfresh = true;
    return true;
  }

  /**
   * Stops serving a calendar and lets go of everything it held: its
   * snapshots (the current one and those kept for cursors) and its load
   * state. A load still running finishes into nothing. False when no such
   * calendar is served.
   */
  remove(calendarId: string): boolean {
    const state = this.states.get(calendarId);
    if (state === undefined) return false;
    state.removed = true;
    state.retired = [];
    // A CalDAV source's saved state goes with it: a calendar made again under this id starts afresh.
    const folder = this.options.stateFolder;
    if (folder !== undefined && state.reader instanceof CalDavFeed) void rm(statePath(folder, calendarId), { force: true }).catch(() => {});
    state.view = { config: state.view.config, stale: false, status: { consecutiveFailures: 0 } };
    this.states.delete(calendarId);
    for (const listener of this.removalListeners) listener(calendarId);
    return true;
  }

  /** Loads every calendar once; failures leave that calendar unloaded, not the store. */
  async loadAll(): Promise<void> {
    await Promise.all([...this.states.keys()].map((id) => this.reload(id)));
  }

  /**
   * Reads the calendar's source and swaps in a new snapshot if it changed.
   * Calls made while a reload runs share the one queued after it, so a
   * burst of file events costs at most one extra read.
   */
  reload(calendarId: string): Promise<ReloadOutcome> {
    const state = this.state(calendarId);
    if (state.queued !== undefined) return state.queued;
    const queued = state.running.then(() => {
      state.queued = undefined;
      return this.load(state);
    });
    state.queued = queued;
    state.running = queued.catch(() => undefined);
    return queued;
  }

  /**
   * Swaps in a snapshot built elsewhere from text now on disk (an import),
   * in the same queue as reloads so no older read can replace it.
   */
  install(calendarId: string, build: () => Promise<{ snapshot: Snapshot; version?: FeedVersion }>): Promise<Snapshot> {
    const state = this.state(calendarId);
    const run = state.running.then(async () => {
      const { snapshot, version } = await build();
      const compared = await this.compared(state, snapshot);
      if (!removed(state)) this.swapIn(state, snapshot, version, this.now(), compared);
      return snapshot;
    });
    state.running = run.catch(() => undefined);
    return run;
  }

  private async load(state: CalendarState): Promise<ReloadOutcome> {
    const { config } = state.view;
    const attemptAt = this.now();
    if (state.readAfresh === true) {
      state.readAfresh = false;
      state.version = undefined;
    }
    try {
      const read = await state.reader.read(state.version);
      if (removed(state)) return { outcome: "unchanged" };
      await this.keepSourceState(state);
      if (!read.changed) {
        state.version = read.version ?? state.version;
        this.succeed(state, attemptAt, state.view.snapshot);
        this.options.onUnchanged?.(config.id);
        return { outcome: "unchanged" };
      }
      // A cut feed is served in part only while nothing whole has been served (docs/imperfect-feeds.md, the cut-feed row).
      const partialAllowed = state.view.snapshot === undefined || state.view.snapshot.partial === true;
      const snapshot = await ingestFeed(read.bytes, config, this.feeds, this.limits(attemptAt), attemptAt, {
        partialAllowed,
        feedDigest: read.version.digest,
        handOver: true,
        // Only the events that changed are read again (docs/decisions.md, "Rebuilds in proportion to the change").
        previous: state.view.snapshot,
      });
      const compared = await this.compared(state, snapshot);
      if (removed(state)) return { outcome: "unchanged" };
      if (snapshot.partial === true) {
        this.swapInPartial(state, snapshot, attemptAt, compared);
        return { outcome: "loaded", snapshot };
      }
      this.swapIn(state, snapshot, read.version, attemptAt, compared);
      return { outcome: "loaded", snapshot };
    } catch (error) {
      const failure: LoadFailure = error instanceof FeedFailure ? error.failure : "internal";
      if (removed(state)) return { outcome: "failed", failure };
      const httpStatus = error instanceof FeedFailure ? error.httpStatus : undefined;
      const { snapshot, status } = state.view;
      state.view = {
        // The configuration now, which a replace may have changed while the read ran.
        config: state.view.config,
        snapshot,
        stale: snapshot !== undefined,
        lastFailure: failure,
        status: {
          ...status,
          lastAttemptAt: attemptAt,
          lastFailure: { failure, at: attemptAt, httpStatus },
          consecutiveFailures: status.consecutiveFailures + 1,
        },
      };
      const detail = error instanceof Error ? ((failure === "internal" ? error.stack : undefined) ?? error.message) : String(error);
      this.options.onLoadFailure?.(config.id, failure, detail);
      return { outcome: "failed", failure };
    }
  }

  private swapIn(
    state: CalendarState,
    snapshot: Snapshot,
    version: FeedVersion | undefined,
    readAt: number,
    compared: ComparedVersions,
  ): void {
    const previous = state.view.snapshot;
    if (previous !== undefined) state.retired.push({ snapshot: previous, retiredAt: this.now() });
    state.version = version;
    this.succeed(state, readAt, snapshot);
    this.prune(state);
    this.served(state, snapshot, compared);
  }

  /**
   * How `snapshot` differs from the one served, event by event, worked out
   * a few thousand events a turn of the event loop: comparing a 100,000-event
   * feed at once held every call. Loads of a calendar run one at a time, so
   * the one served is still the one compared with when it is swapped in.
   */
  private compared(state: CalendarState, snapshot: Snapshot): Promise<ComparedVersions> {
    return runYielding(state.history.compare(snapshot.versions));
  }

  /** Records a newly served snapshot in the calendar's history and tells whoever listens. */
  private served(state: CalendarState, snapshot: Snapshot, compared: ComparedVersions): void {
    state.history.record(snapshot.id, snapshot.versions, compared);
    this.options.onLoaded?.(snapshot);
    for (const listener of this.listeners) listener(state.view.config.id, snapshot);
  }

  /** Calls `listener` with each snapshot served from now on, until the returned function is called. */
  onSnapshot(listener: (calendarId: string, snapshot: Snapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` with each calendar removed from now on; the answer stops it. */
  onRemoved(listener: (calendarId: string) => void): () => void {
    this.removalListeners.add(listener);
    return () => this.removalListeners.delete(listener);
  }

  /**
   * The events that differ between two snapshots of a calendar (the current
   * one when `to` is not given), composed over the snapshots between; undefined
   * when this server does not remember one of them (change-history.ts).
   */
  changes(calendarId: string, from: string, to?: string): EventChange[] | undefined {
    return this.states.get(calendarId)?.history.between(from, to);
  }

  /**
   * Serves a cut feed's complete components while the read still counts as
   * failed (truncated): the calendar shows stale, retries back off as after
   * any failure, and no version is kept, so the next read rebuilds.
   */
  private swapInPartial(state: CalendarState, snapshot: Snapshot, readAt: number, compared: ComparedVersions): void {
    const { config, status } = state.view;
    state.version = undefined;
    state.view = {
      config,
      snapshot,
      stale: true,
      lastFailure: "truncated",
      status: {
        ...status,
        lastAttemptAt: readAt,
        lastFailure: { failure: "truncated", at: readAt },
        consecutiveFailures: status.consecutiveFailures + 1,
      },
    };
    this.served(state, snapshot, compared);
  }

  private succeed(state: CalendarState, at: number, snapshot: Snapshot | undefined): void {
    const { status } = state.view;
    state.view = {
      config: state.view.config,
      snapshot,
      stale: false,
      status: {
        ...status,
        lastAttemptAt: at,
        lastSuccessAt: at,
        lastFailure: undefined,
        consecutiveFailures: 0,
        sourceDiagnostics: sourceDiagnosticsOf(state.reader),
      },
    };
  }

  /** Saves what a source needs to read on from where it stands after a restart (a CalDAV collection's sync state). */
  private async keepSourceState(state: CalendarState): Promise<void> {
    const folder = this.options.stateFolder;
    if (folder === undefined || !(state.reader instanceof CalDavFeed)) return;
    // A poll that found nothing new leaves the state as it was saved.
    const poll = state.reader.lastPoll();
    if (poll === undefined || (!poll.changed && poll.kind !== "first_read" && poll.kind !== "resync")) return;
    await mkdir(folder, { recursive: true });
    await writeFileDurably(statePath(folder, state.view.config.id), Buffer.from(JSON.stringify(state.reader.state())));
  }

  private state(calendarId: string): CalendarState {
    const state = this.states.get(calendarId);
    if (state === undefined) throw new Error(`unknown calendar ${calendarId}`);
    return state;
  }

  /** The calendar's current state, or undefined when no such calendar is configured. */
  view(calendarId: string): CalendarView | undefined {
    return this.states.get(calendarId)?.view;
  }

  /** Every configured calendar's view. */
  views(): CalendarView[] {
    return [...this.states.values()].map((state) => state.view);
  }

  /** A snapshot by id: the current one, or a replaced one still within retention. */
  snapshot(calendarId: string, snapshotId: string): Snapshot | undefined {
    const state = this.states.get(calendarId);
    if (state === undefined) return undefined;
    if (state.view.snapshot?.id === snapshotId) return state.view.snapshot;
    this.prune(state);
    return state.retired.find((entry) => entry.snapshot.id === snapshotId)?.snapshot;
  }

  /** Drops replaced snapshots older than the retention, and all but the newest few of the rest. */
  private prune(state: CalendarState): void {
    const oldest = this.now() - this.options.retentionMs;
    state.retired = state.retired.filter((entry) => entry.retiredAt >= oldest).slice(-MAX_RETIRED);
  }
}

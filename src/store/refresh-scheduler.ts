/**
 * Keeps each calendar current: every `refresh` interval its source is read
 * again (a conditional request or a stat, so an unchanged feed is cheap),
 * and a file source is also watched, since waiting a whole interval for a
 * local edit would surprise an operator. Watchers miss events (editors that
 * replace files, network filesystems), so the periodic check stays.
 *
 * After a failure the next try comes sooner than a refresh at first, then
 * later and later, with jitter so that many calendars failing together (one
 * upstream down) do not retry in step.
 */
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";
import type { CalendarConfig } from "../config/config-model.js";
import type { CalendarStore } from "./calendar-store.js";

/** First retry after a failure is at most this long. */
const FIRST_RETRY_MS = 30_000;
/** Retries never wait longer than this (or the refresh interval, if longer). */
const MAX_RETRY_MS = 3_600_000;
/** File events within this long of each other cost one reload. */
const SETTLE_MS = 50;

/**
 * How long to wait before the next read: about one refresh interval (±10%)
 * after a success; after the n-th failure in a row, min(refresh, 30 s)
 * doubled n−1 times, capped at max(refresh, 1 h), then scaled by a random
 * factor in [0.5, 1).
 */
export function nextDelay(refreshMs: number, consecutiveFailures: number, random: () => number = Math.random): number {
  if (consecutiveFailures === 0) return Math.round(refreshMs * (0.9 + 0.2 * random()));
  const first = Math.min(refreshMs, FIRST_RETRY_MS);
  const cap = Math.max(refreshMs, MAX_RETRY_MS);
  const backoff = Math.min(cap, first * 2 ** Math.min(consecutiveFailures - 1, 30));
  return Math.round(backoff * (0.5 + 0.5 * random()));
}

export class RefreshScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly watchers = new Map<string, FSWatcher>();
  /** The calendars kept current, by id, as last configured. */
  private readonly current = new Map<string, CalendarConfig>();
  private started = false;
  private stopped = false;

  constructor(
    private readonly store: CalendarStore,
    calendars: readonly CalendarConfig[],
    private readonly random: () => number = Math.random,
  ) {
    for (const calendar of calendars) this.current.set(calendar.id, calendar);
  }

  start(): void {
    this.started = true;
    for (const calendar of this.current.values()) this.follow(calendar);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    for (const watcher of this.watchers.values()) watcher.close();
  }

  /**
   * Keeps one more calendar current, or a changed one by its new refresh
   * interval and source (a registry calendar added or changed while
   * serving); its first read is the caller's.
   */
  add(calendar: CalendarConfig): void {
    this.remove(calendar.id);
    this.current.set(calendar.id, calendar);
    if (this.started) this.follow(calendar);
  }

  /** Stops keeping a calendar current: its timer and its file watch end. */
  remove(calendarId: string): void {
    this.current.delete(calendarId);
    clearTimeout(this.timers.get(calendarId));
    this.timers.delete(calendarId);
    this.watchers.get(calendarId)?.close();
    this.watchers.delete(calendarId);
  }

  private follow(calendar: CalendarConfig): void {
    this.schedule(calendar);
    if (calendar.source.kind === "file") this.watchFile(calendar, calendar.source.path);
  }

  /** Reads the calendar now, then schedules the next read from how it went. */
  private refresh(calendar: CalendarConfig): void {
    if (this.stopped || this.current.get(calendar.id) !== calendar) return;
    clearTimeout(this.timers.get(calendar.id));
    void this.store.reload(calendar.id).then(() => this.schedule(calendar));
  }

  private schedule(calendar: CalendarConfig): void {
    // A calendar removed or replaced meanwhile is scheduled by its own entry, if any.
    if (this.stopped || this.current.get(calendar.id) !== calendar) return;
    const failures = this.store.view(calendar.id)?.status.consecutiveFailures ?? 0;
    clearTimeout(this.timers.get(calendar.id));
    const timer = setTimeout(() => this.refresh(calendar), nextDelay(calendar.refreshMs, failures, this.random));
    // A scheduled read never keeps the process alive on its own.
    timer.unref();
    this.timers.set(calendar.id, timer);
  }

  /** Watches the folder, not the file: a file replaced by rename is a new inode a file watch would lose. */
  private watchFile(calendar: CalendarConfig, path: string): void {
    const name = basename(path);
    let settle: NodeJS.Timeout | undefined;
    try {
      const watcher = watch(dirname(path), { persistent: false }, (_event, changed) => {
        if (changed !== null && changed !== name) return;
        clearTimeout(settle);
        settle = setTimeout(() => this.refresh(calendar), SETTLE_MS);
        settle.unref();
      });
      // A folder that disappears ends the watch; the periodic check carries on.
      watcher.on("error", () => watcher.close());
      this.watchers.set(calendar.id, watcher);
    } catch {
      // No watch (a missing folder, no inotify room): the periodic check still runs.
    }
  }
}

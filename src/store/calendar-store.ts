/**
 * The calendars being served: for each, the current snapshot, the snapshots it
 * replaced (kept for the cursor lifetime so paged searches finish on the data
 * they started on), and whether the last reload failed.
 *
 * A reload reads the whole feed, builds a new snapshot off to the side and
 * swaps it in with one assignment; a failed reload keeps the last good
 * snapshot and marks the calendar stale.
 */
import { readFile } from "node:fs/promises";
import type { CalendarConfig } from "../config/calq-config.js";
import type { ExpansionLimits } from "../expand/expand-calendar.js";
import { NotICalendarError } from "../ics/parse-calendar.js";
import { buildSnapshot, type Snapshot } from "./snapshot.js";

const YEAR_MS = 365.25 * 86_400_000;

/** Why the last load of a calendar failed. */
export type LoadFailure = "unreadable_source" | "not_icalendar" | "internal";

/** One calendar as a search sees it. */
export interface CalendarView {
  readonly config: CalendarConfig;
  /** Undefined until the feed has loaded once. */
  readonly snapshot?: Snapshot;
  /** True when the last reload failed and `snapshot` is the last good one. */
  readonly stale: boolean;
  readonly lastFailure?: LoadFailure;
}

export interface StoreOptions {
  /** How long replaced snapshots stay readable (the cursor lifetime). */
  readonly retentionMs: number;
  /** Expansion bounds for a load at `now`. */
  readonly limits?: (now: number) => ExpansionLimits;
  readonly now?: () => number;
  /** Reports failures for the operator's log (never shown to callers). */
  readonly onLoadFailure?: (calendarId: string, failure: LoadFailure, detail: string) => void;
  /** Reports each new snapshot, diagnostics included, for the operator's log. */
  readonly onLoaded?: (snapshot: Snapshot) => void;
}

/** Default expansion bounds: a year back and two ahead are materialised. */
export function defaultLimits(now: number): ExpansionLimits {
  return {
    hotStart: now - YEAR_MS,
    hotEnd: now + 2 * YEAR_MS,
    maxOccurrencesPerSeries: 20_000,
    maxOccurrencesPerFeed: 1_000_000,
    budgetMs: 2_000,
  };
}

interface CalendarState {
  view: CalendarView;
  retired: { snapshot: Snapshot; retiredAt: number }[];
}

export class CalendarStore {
  private readonly states = new Map<string, CalendarState>();
  private readonly now: () => number;
  private readonly limits: (now: number) => ExpansionLimits;

  constructor(
    calendars: readonly CalendarConfig[],
    private readonly options: StoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.limits = options.limits ?? defaultLimits;
    for (const config of calendars) this.states.set(config.id, { view: { config, stale: false }, retired: [] });
  }

  /** Loads every calendar once; failures leave that calendar unloaded, not the store. */
  async loadAll(): Promise<void> {
    await Promise.all([...this.states.keys()].map((id) => this.reload(id)));
  }

  /** Reads and swaps in a new snapshot of one calendar. Returns false when it failed. */
  async reload(calendarId: string): Promise<boolean> {
    const state = this.states.get(calendarId);
    if (state === undefined) throw new Error(`unknown calendar ${calendarId}`);
    const { config } = state.view;
    const readAt = this.now();
    let text: string;
    try {
      text = await readFile(config.source, "utf8");
    } catch (error) {
      return this.fail(state, "unreadable_source", error);
    }
    let snapshot: Snapshot;
    try {
      snapshot = buildSnapshot(text, {
        calendarId,
        configuredZone: config.timezone,
        limits: this.limits(readAt),
        readAt,
      });
    } catch (error) {
      return this.fail(state, error instanceof NotICalendarError ? "not_icalendar" : "internal", error);
    }
    const previous = state.view.snapshot;
    if (previous !== undefined) state.retired.push({ snapshot: previous, retiredAt: this.now() });
    state.view = { config, snapshot, stale: false };
    this.prune(state);
    this.options.onLoaded?.(snapshot);
    return true;
  }

  private fail(state: CalendarState, failure: LoadFailure, error: unknown): false {
    state.view = { ...state.view, stale: state.view.snapshot !== undefined, lastFailure: failure };
    this.options.onLoadFailure?.(state.view.config.id, failure, error instanceof Error ? error.message : String(error));
    return false;
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

  private prune(state: CalendarState): void {
    const oldest = this.now() - this.options.retentionMs;
    state.retired = state.retired.filter((entry) => entry.retiredAt >= oldest);
  }
}

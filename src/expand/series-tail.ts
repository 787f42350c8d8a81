/**
 * The part of a recurring series that was not materialised for the index
 * (far past, far future, or past a cap), expanded per search a few
 * occurrences at a time. It can travel between threads as a recipe (plain
 * data), so a snapshot built in a worker keeps its on-demand series.
 */

import type { ZoneRules } from "../time/zone-rules.js";
import type { Budget } from "./budget.js";
import type { Occurrence } from "./occurrence.js";
import { type Cut, Series, type SeriesRecipe } from "./series.js";

/** What one search asks of the series expanded on demand. */
export interface TailRequest {
  /** The window [start, endExclusive). */
  readonly start: number;
  readonly endExclusive: number;
  /** Occurrences starting before this are not wanted (the cursor's start). */
  readonly startingFrom: number;
  /** The search's own test: window, mode and cursor. */
  readonly accepts: (occurrence: Occurrence) => boolean;
  /**
   * Shared by every tail of the search, so hostile series cannot stall it;
   * a step of it (Budget.step) bounds one call of `next`.
   */
  readonly budget: Budget;
}

/** How one call of SeriesTail.next went. */
export interface TailBatch {
  /** "cap" or "budget" when expansion was cut short (what came before the cut is exact). */
  readonly cut: Cut;
  /** False when nothing after the occurrences returned remains for this request. */
  readonly more: boolean;
  /**
   * With cut "budget": the first slot instant not looked at. Every slot
   * before it was, and its occurrences the request accepts were appended
   * (past the first `wanted`, only if no rule of the series stopped early).
   */
  readonly resumeAt?: number;
}

/**
 * Expands, on demand, the slots of one series that were not materialised,
 * a few at a time, so that a search merging many series pays for about the
 * occurrences it returns, not for every one in its window.
 */
export interface SeriesTail {
  /** The UID digest of the series' event, when known: a look-up by event_id (GetEvent) passes other series by. */
  readonly uidKey?: string;
  /** True when THISANDFUTURE overrides can move starts out of slot order. */
  readonly reordered: boolean;
  /** The longest time an occurrence can start before its slot. */
  readonly reachAhead: number;
  /** No occurrence `next` appends for this request starts before this instant (Infinity: none can). */
  earliestStart(request: TailRequest): number;
  /**
   * Appends the occurrences outside the materialised range that start after
   * `after` and that the request accepts: at least the first `wanted` of them
   * in (start, event_id) order, or all when fewer. It may append more, and
   * ones the request does not accept; callers filter, sort and keep the
   * first `wanted` when `more` is true.
   */
  next(request: TailRequest, after: number, wanted: number, out: Occurrence[]): TailBatch;
}

/** An OnDemandSeries as plain data (JSON). */
export interface OnDemandRecipe {
  readonly series: SeriesRecipe;
  readonly indexedFrom: number;
  readonly indexedTo: number;
  readonly cap: number;
}

/** A series whose slots in [indexedFrom, indexedTo) are in the index: the rest is expanded here. */
export class OnDemandSeries implements SeriesTail {
  constructor(
    readonly series: Series,
    /** Slots from here... */
    private readonly indexedFrom: number,
    /** ...to here (excluded) were materialised. */
    private readonly indexedTo: number,
    /** Occurrences one expansion may produce (the feed's per-series cap). */
    private readonly cap: number,
  ) {}

  get uidKey(): string {
    return this.series.uidKey;
  }

  get reordered(): boolean {
    return this.series.reordered;
  }

  get reachAhead(): number {
    return this.series.reachAhead;
  }

  /**
   * Every slot whose occurrence may end after the window's start and start at
   * or after the cursor's. An occurrence starts at its slot unless a
   * THISANDFUTURE override moves it (reordered), so only then may a slot
   * before the cursor's start give an occurrence after it.
   */
  private reach(request: TailRequest): number {
    const { reachBehind, reordered } = this.series;
    return Math.max(request.start - reachBehind, request.startingFrom - (reordered ? reachBehind : 0));
  }

  earliestStart(request: TailRequest): number {
    const { series, indexedFrom, indexedTo } = this;
    const from = Math.max(this.reach(request), series.firstSlot);
    const to = Math.min(request.endExclusive + series.reachAhead, series.lastSlot + 1);
    // Slots the index holds are not this tail's: a window inside them asks nothing of it.
    if (from < Math.min(to, indexedFrom)) {
      const slot = series.slotBoundFrom(from);
      if (slot < Math.min(to, indexedFrom)) return slot - series.reachAhead;
    }
    const after = series.slotBoundFrom(Math.max(from, indexedTo));
    return after < to ? after - series.reachAhead : Number.POSITIVE_INFINITY;
  }

  next(request: TailRequest, after: number, wanted: number, out: Occurrence[]): TailBatch {
    const { series, indexedFrom, indexedTo, cap } = this;
    // Slots are starts here, unless THISANDFUTURE overrides shift them; then
    // `expand` ignores `page` and returns the whole range, so nothing is left for later.
    const from = Math.max(this.reach(request), Math.floor(after) + 1);
    const to = request.endExclusive + series.reachAhead;
    const ranges = [
      [from, Math.min(to, indexedFrom)],
      [Math.max(from, indexedTo), to],
    ];
    let found = 0;
    for (const [rangeFrom, rangeTo] of ranges) {
      if (rangeTo <= rangeFrom) continue;
      const before = out.length;
      const page = { accepts: request.accepts, wanted: wanted - found };
      const { cut, resumeAt } = series.expand(rangeFrom, rangeTo, cap, request.budget, out, page);
      // Only what the request accepts counts towards `wanted`: DTSTART and RDATEs are pushed unfiltered,
      // and counting them could end a batch before the second range was looked at.
      for (let i = before; i < out.length; i++) if (request.accepts(out[i])) found++;
      if (cut === "budget") return { cut, more: false, resumeAt };
      if (cut !== "none") return { cut, more: false };
      if (found >= wanted && !series.reordered) return { cut, more: true };
    }
    return { cut: "none", more: false };
  }

  /** This tail as plain data; `fromRecipe` rebuilds it. */
  recipe(): OnDemandRecipe {
    return { series: this.series.recipe(), indexedFrom: this.indexedFrom, indexedTo: this.indexedTo, cap: this.cap };
  }

  /** Rebuilds a tail from `recipe()`; undefined when one of its zones is unknown here. */
  static fromRecipe(recipe: OnDemandRecipe, zoneNamed: (name: string) => ZoneRules | undefined): OnDemandSeries | undefined {
    const series = Series.fromRecipe(recipe.series, zoneNamed);
    return series === undefined ? undefined : new OnDemandSeries(series, recipe.indexedFrom, recipe.indexedTo, recipe.cap);
  }
}

/**
 * A recurrence set (RFC 5545 §3.8.5): DTSTART, RRULEs, RDATEs, minus EXDATEs
 * and EXRULEs, minus slots that have their own override, with
 * RANGE=THISANDFUTURE overrides applied to the slots after them.
 *
 * Slots are generated as local wall times in the series' zone and turned into
 * instants by RFC 5545 §3.3.5 (a time in a gap moves forward by the gap, a
 * time in a fold takes the earlier instant). All-day series live in the
 * calendar's zone, one slot per local date.
 */
import { DAY_MS, floorTo } from "../time/units.js";
import { FixedOffsetZone, instantToLocal, localToInstant, type ZoneRules } from "../time/zone-rules.js";
import type { Budget } from "./budget.js";
import { type EventDetails, LAST_INSTANT, type Occurrence } from "./occurrence.js";
import { RecurrenceRule, type RuleRecipe } from "./recurrence-rule.js";

/** How long an occurrence lasts. */
export type Length =
  | { readonly kind: "exact"; readonly ms: number }
  /** Nominal days (wall-clock days, 23 to 25 hours) then exact milliseconds. */
  | { readonly kind: "nominal"; readonly days: number; readonly exactMs: number };

/** Where and how an event's occurrences sit in time. */
export interface Shape {
  readonly allDay: boolean;
  /** The zone DTSTART's wall clock is kept in (the calendar's for floating and all-day). */
  readonly zone: ZoneRules;
  readonly length: Length;
}

/**
 * The start and end instants of an occurrence beginning at local wall time
 * `local`. An all-day occurrence ends at the start of its end date, even when
 * its own day started late (a DST jump at midnight).
 */
export function intervalAt(shape: Shape, local: number): { start: number; end: number } {
  const start = localToInstant(shape.zone, local);
  const { length } = shape;
  if (shape.allDay && length.kind === "nominal") {
    return { start, end: Math.min(LAST_INSTANT, localToInstant(shape.zone, local + length.days * DAY_MS) + length.exactMs) };
  }
  return { start, end: endOf(shape, start) };
}

/** The end of a timed occurrence of `shape` that starts at instant `start`; never after LAST_INSTANT. */
export function endOf(shape: Shape, start: number): number {
  const { length } = shape;
  if (length.kind === "exact") return Math.min(LAST_INSTANT, start + length.ms);
  const wallEnd = instantToLocal(shape.zone, start) + length.days * DAY_MS;
  return Math.min(LAST_INSTANT, localToInstant(shape.zone, wallEnd) + length.exactMs);
}

/** The longest an occurrence of `shape` can last, in milliseconds. */
export function maxLengthMs(shape: Shape): number {
  const { length } = shape;
  return length.kind === "exact" ? length.ms : length.days * 25 * 3_600_000 + length.exactMs;
}

/**
 * An RDATE slot: its instant (exact, even inside a fold), its wall time in
 * the series' zone, and for RDATE;VALUE=PERIOD its own end.
 */
export interface RdateSlot {
  readonly instant: number;
  readonly local: number;
  readonly end?: number;
}

/** One slot of an expansion before it becomes an occurrence. */
interface Candidate {
  readonly local: number;
  readonly instant: number;
  /** A period's own end (RDATE;VALUE=PERIOD). */
  readonly end?: number;
  /** Already built, when a page had to judge it. */
  readonly occurrence?: Occurrence;
}

/** A RANGE=THISANDFUTURE override: slots from `slot` on take its changes. */
export interface FutureOverride {
  /** The overridden slot's instant. */
  readonly slotInstant: number;
  /**
   * Shift of each later start in wall-clock milliseconds: a series moved from
   * Saturday 09:00 to Sunday 09:00 stays at 09:00 across a DST change.
   */
  readonly shift: number;
  readonly shape: Shape;
  readonly details: EventDetails;
  readonly cancelled: boolean;
}

/**
 * What one page needs from an expansion: the occurrences it `accepts` (the
 * window, the mode and the cursor decide), and how many. Each rule stops once
 * it has produced `wanted` accepted occurrences, so a page of a dense or
 * long-lasting series costs about a page of work; what comes before that
 * point is exact.
 */
export interface PageNeed {
  readonly accepts: (occurrence: Occurrence) => boolean;
  readonly wanted: number;
}

/** What cut an expansion short, if anything. */
export type Cut = "none" | "cap" | "budget";

export interface SeriesParts {
  readonly shape: Shape;
  readonly details: EventDetails;
  readonly startLocal: number;
  readonly rules: readonly RecurrenceRule[];
  readonly exrules: readonly RecurrenceRule[];
  readonly rdates: readonly RdateSlot[];
  /** Excluded slot keys (instants for timed series, local dates for all-day ones). */
  readonly exdates: ReadonlySet<number>;
  /** Local dates whose timed slots are all excluded (EXDATE;VALUE=DATE on a timed series). */
  readonly exdateDays: ReadonlySet<number>;
  /** Slot keys that have their own override. */
  readonly overridden: ReadonlySet<number>;
  /** Sorted by slotInstant. */
  readonly futures: readonly FutureOverride[];
}

/** A shape as plain data: its zone by name. */
export interface ShapeRecipe {
  readonly allDay: boolean;
  readonly zone: string;
  readonly length: Length;
}

/**
 * A series as plain data (JSON), to rebuild it on another thread: rules as
 * recipes (not checked again), sets as lists, zones by name.
 */
export interface SeriesRecipe {
  readonly shape: ShapeRecipe;
  readonly details: EventDetails;
  readonly startLocal: number;
  readonly rules: readonly RuleRecipe[];
  readonly exrules: readonly RuleRecipe[];
  readonly rdates: readonly RdateSlot[];
  readonly exdates: readonly number[];
  readonly exdateDays: readonly number[];
  readonly overridden: readonly number[];
  readonly futures: readonly (Omit<FutureOverride, "shape"> & { readonly shape: ShapeRecipe })[];
}

const shapeRecipe = (shape: Shape): ShapeRecipe => ({ allDay: shape.allDay, zone: shape.zone.name, length: shape.length });

/** A recurrence set that can expand any range of slots. */
export class Series {
  /** The first slot instant (DTSTART, or an earlier RDATE). */
  readonly firstSlot: number;
  /** The last slot instant, or Infinity when a rule has no end. */
  readonly lastSlot: number;
  /** The longest time from a slot to the end of its occurrence. */
  readonly reachBehind: number;
  /** The longest time an occurrence can start before its slot. */
  readonly reachAhead: number;
  /** True when THISANDFUTURE overrides can move starts out of slot order (then `page` is ignored). */
  readonly reordered: boolean;
  /** The step between slots, for a series whose slots are just firstSlot plus whole steps (slotBoundFrom). */
  private readonly fixedStep: number | undefined;

  /** The UID digest of the series' event (overrides of it share the UID). */
  get uidKey(): string {
    return this.parts.details.uidKey;
  }

  /** What the series' own occurrences show (overrides have their own). */
  get details(): EventDetails {
    return this.parts.details;
  }

  constructor(private readonly parts: SeriesParts) {
    const { shape, startLocal, rdates, futures } = parts;
    const zone = shape.zone;
    // Loops, not spread arguments: a feed may hold hundreds of thousands of RDATEs.
    let firstRdate = Infinity;
    let lastRdate = -Infinity;
    for (const rdate of rdates) {
      firstRdate = Math.min(firstRdate, rdate.instant);
      lastRdate = Math.max(lastRdate, rdate.instant);
    }
    this.firstSlot = Math.min(localToInstant(zone, startLocal), firstRdate);
    this.lastSlot = this.findLastSlot(lastRdate);
    let behind = maxLengthMs(shape);
    let ahead = 0;
    for (const rdate of rdates) {
      if (rdate.end !== undefined) behind = Math.max(behind, rdate.end - rdate.instant);
    }
    for (const future of futures) {
      // A wall-clock shift may differ from elapsed time by a DST change; a day covers any.
      behind = Math.max(behind, maxLengthMs(future.shape) + Math.max(0, future.shift) + DAY_MS);
      ahead = Math.max(ahead, Math.max(0, -future.shift) + DAY_MS);
    }
    this.reachBehind = behind;
    this.reachAhead = ahead;
    this.reordered = futures.length > 0;
    // One fixed-step rule, no RDATE, no THISANDFUTURE override, in a zone of one offset: slots are instants a step apart.
    const fixed =
      parts.rules.length === 1 && rdates.length === 0 && futures.length === 0 && !shape.allDay && zone instanceof FixedOffsetZone;
    this.fixedStep = fixed ? parts.rules[0].fixedStepMs : undefined;
  }

  /**
   * A lower bound on the first slot at or after `from`: `from` itself, or,
   * for a series of one fixed-step rule (rule.fixedStepMs) with no RDATE and
   * no THISANDFUTURE override in a zone of one offset (UTC), that slot
   * exactly, found by arithmetic. A search merging 10,000 hourly series then
   * opens the few whose next occurrence comes first, not every one. EXDATEs
   * and COUNT only remove slots, so the bound never passes the first real one.
   */
  slotBoundFrom(from: number): number {
    const step = this.fixedStep;
    if (step === undefined) return from;
    if (from <= this.firstSlot) return this.firstSlot;
    return this.firstSlot + Math.ceil((from - this.firstSlot) / step) * step;
  }

  /** This series as plain data; `fromRecipe` rebuilds it. */
  recipe(): SeriesRecipe {
    const { shape, details, startLocal, rules, exrules, rdates, exdates, exdateDays, overridden, futures } = this.parts;
    return {
      shape: shapeRecipe(shape),
      details,
      startLocal,
      rules: rules.map((rule) => rule.recipe()),
      exrules: exrules.map((rule) => rule.recipe()),
      rdates,
      exdates: [...exdates],
      exdateDays: [...exdateDays],
      overridden: [...overridden],
      futures: futures.map((future) => ({ ...future, shape: shapeRecipe(future.shape) })),
    };
  }

  /** The zones the series reads wall times in: its own and its THISANDFUTURE overrides'. */
  zones(): ZoneRules[] {
    return [this.parts.shape.zone, ...this.parts.futures.map((future) => future.shape.zone)];
  }

  /** Rebuilds a series from `recipe()`, finding zones by name; undefined when a zone is unknown here. */
  static fromRecipe(recipe: SeriesRecipe, zoneNamed: (name: string) => ZoneRules | undefined): Series | undefined {
    const shapeOf = (shape: ShapeRecipe): Shape | undefined => {
      const zone = zoneNamed(shape.zone);
      return zone === undefined ? undefined : { allDay: shape.allDay, zone, length: shape.length };
    };
    const shape = shapeOf(recipe.shape);
    if (shape === undefined) return undefined;
    const futures: FutureOverride[] = [];
    for (const future of recipe.futures) {
      const futureShape = shapeOf(future.shape);
      if (futureShape === undefined) return undefined;
      futures.push({ ...future, shape: futureShape });
    }
    return new Series({
      shape,
      details: recipe.details,
      startLocal: recipe.startLocal,
      rules: recipe.rules.map((rule) => RecurrenceRule.fromRecipe(rule)),
      exrules: recipe.exrules.map((rule) => RecurrenceRule.fromRecipe(rule)),
      rdates: recipe.rdates,
      exdates: new Set(recipe.exdates),
      exdateDays: new Set(recipe.exdateDays),
      overridden: new Set(recipe.overridden),
      futures,
    });
  }

  private findLastSlot(lastRdate: number): number {
    const { rules, shape, startLocal } = this.parts;
    let last = Math.max(localToInstant(shape.zone, startLocal), lastRdate);
    for (const rule of rules) {
      if (rule.lastLocal === undefined) return Infinity;
      last = Math.max(last, localToInstant(shape.zone, rule.lastLocal));
    }
    return last;
  }

  /**
   * Occurrences of the slots whose instants lie in [from, to), at most `cap`
   * of them, in slot order. Returns what cut the expansion short and, when
   * cut, the first slot instant not expanded (everything before it is exact).
   * With `page`, each rule stops once it has `page.wanted` accepted slots,
   * and only accepted slots count against `cap` (see PageNeed); not for
   * series whose THISANDFUTURE overrides can reorder starts.
   */
  expand(
    from: number,
    to: number,
    cap: number,
    budget: Budget | undefined,
    out: Occurrence[],
    page?: PageNeed,
  ): { cut: Cut; resumeAt: number } {
    from = Math.max(from, this.firstSlot);
    to = Math.min(to, this.lastSlot + 1);
    if (to <= from) return { cut: "none", resumeAt: to };
    const { shape, startLocal, rules, exrules, rdates, futures } = this.parts;
    const zone = shape.zone;
    // The wall times whose instants can fall in [from, to), with the offsets
    // in force around each end (a DST change near an end moves the bound).
    const fromLocal = from + Math.min(zone.offsetAt(from - DAY_MS), zone.offsetAt(from), zone.offsetAt(from + DAY_MS));
    const toLocal = to + Math.max(zone.offsetAt(to - DAY_MS), zone.offsetAt(to), zone.offsetAt(to + DAY_MS)) + 1;
    const need = futures.length === 0 ? page : undefined;
    let cut: Cut = "none";
    const spend = () => {
      if (budget === undefined || budget.allows()) return true;
      cut = "budget";
      return false;
    };

    // Nothing at or after stopLocal is exact: an exclusion or a rule stopped there.
    let stopLocal = Infinity;
    const excludedByRule = new Set<number>();
    for (const rule of exrules) {
      rule.each(fromLocal, toLocal, (local) => {
        if (spend()) return excludedByRule.add(local) !== undefined;
        stopLocal = Math.min(stopLocal, local);
        return false;
      });
    }
    const kept = (local: number, instant: number) =>
      instant >= from && instant < to && !excludedByRule.has(local) && !this.isExcluded(local, instant);

    const candidates: Candidate[] = [];
    const startInstant = localToInstant(zone, startLocal);
    if (kept(startLocal, startInstant)) candidates.push({ local: startLocal, instant: startInstant });
    const periodEnds = new Map<number, number>();
    for (const rdate of rdates) {
      if (!kept(rdate.local, rdate.instant)) continue;
      candidates.push(rdate);
      if (rdate.end !== undefined) periodEnds.set(rdate.instant, rdate.end);
    }
    for (const rule of rules) {
      let produced = 0;
      const accepted = new Set<number>();
      rule.each(fromLocal, toLocal, (local) => {
        if (local >= stopLocal || !spend()) {
          stopLocal = Math.min(stopLocal, local);
          return false;
        }
        const instant = localToInstant(zone, local);
        if (!kept(local, instant)) return true;
        const candidate = { local, instant, end: periodEnds.get(instant) };
        if (need !== undefined) {
          // Only what the page accepts is kept; one slot per instant (a wall
          // time moved out of a DST gap counts once).
          const occurrence = this.occurrenceOf(candidate);
          if (occurrence === undefined || !need.accepts(occurrence)) return true;
          candidates.push({ ...candidate, occurrence });
          accepted.add(occurrence.slot);
          return accepted.size < Math.min(need.wanted, cap);
        }
        if (++produced > cap) {
          if (cut === "none") cut = "cap";
          stopLocal = Math.min(stopLocal, local);
          return false;
        }
        candidates.push(candidate);
        return true;
      });
    }

    candidates.sort((a, b) => a.instant - b.instant || (b.end !== undefined ? 1 : 0) - (a.end !== undefined ? 1 : 0));
    let resumeAt = stopLocal === Infinity ? to : Math.min(to, localToInstant(zone, stopLocal));
    let emitted = 0;
    const seen = new Set<number>();
    for (const candidate of candidates) {
      if (candidate.instant >= resumeAt) break;
      // Two wall times can name one instant (one moved out of a DST gap): one slot.
      const slot = shape.allDay ? candidate.local : candidate.instant;
      if (seen.has(slot)) continue;
      seen.add(slot);
      if (emitted === cap) {
        cut = "cap";
        resumeAt = candidate.instant;
        break;
      }
      const occurrence = candidate.occurrence ?? this.occurrenceOf(candidate);
      if (occurrence !== undefined) out.push(occurrence);
      emitted++;
    }
    return { cut, resumeAt };
  }

  private isExcluded(local: number, slotInstant: number): boolean {
    const { shape, exdates, exdateDays, overridden } = this.parts;
    const key = shape.allDay ? local : slotInstant;
    if (exdates.has(key) || overridden.has(key)) return true;
    return exdateDays.size > 0 && exdateDays.has(floorTo(local, DAY_MS));
  }

  private occurrenceOf({ local, instant, end }: Candidate): Occurrence | undefined {
    const { shape, details, futures } = this.parts;
    const slot = shape.allDay ? local : instant;
    const future = latestFuture(futures, instant);
    if (future === undefined) {
      if (shape.allDay) return { ...intervalAt(shape, local), slot, details };
      return { start: instant, end: end ?? endOf(shape, instant), slot, details };
    }
    if (future.cancelled) return undefined;
    const moved = local + future.shift;
    if (shape.allDay) return { ...intervalAt(future.shape, moved), slot, details: future.details };
    const start = localToInstant(shape.zone, moved);
    return { start, end: endOf(future.shape, start), slot, details: future.details };
  }
}

/** The THISANDFUTURE override in force at a slot: the last one at or before it. */
function latestFuture(futures: readonly FutureOverride[], slotInstant: number): FutureOverride | undefined {
  let found: FutureOverride | undefined;
  for (const future of futures) {
    if (future.slotInstant > slotInstant) break;
    found = future;
  }
  return found;
}

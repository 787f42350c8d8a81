/**
 * Free slots: the first times, in a window, when a meeting of a given length
 * fits around blocked time, with one written meaning for every clock.
 *
 * - A slot is a half-open interval [start, start + duration) of instants:
 *   the duration is exact, also across a DST change.
 * - Slots start at local wall times of the request's zone that are whole
 *   multiples of `step` from that day's local midnight (09:00, 09:30, ...).
 *   A wall time that does not exist (a spring-forward gap) starts no slot.
 *   A wall time that happens twice (a fall-back fold) starts two candidate
 *   slots, one at each instant, each reported with its own offset.
 * - A slot lies inside the window, overlaps no blocked time (touching is
 *   fine: a slot may start when a meeting ends), and, with working hours,
 *   every instant of it has a local wall time in [start, end) of one
 *   working day (a weekday listed in `days`).
 * - Slots come in start order, at most `limit` of them.
 */

import { runAtOnce, type Steps } from "../stepwise.js";
import { DAY_MS, floorTo, MINUTE_MS } from "../time/units.js";
import { instantToLocal, resolveLocal, type ZoneRules } from "../time/zone-rules.js";

/** Local working hours: the same wall-clock span on each listed weekday. */
export interface WorkingHours {
  /** ISO weekdays: 1 is Monday, 7 is Sunday. */
  readonly days: ReadonlySet<number>;
  /** Minutes after local midnight when work starts (0 to 1439). */
  readonly startMinute: number;
  /** Minutes after local midnight when work ends, after startMinute (at most 1440, midnight at the day's end). */
  readonly endMinute: number;
}

export interface FreeSlotQuery {
  /** The window [start, endExclusive) of instants. */
  readonly start: number;
  readonly endExclusive: number;
  readonly zone: ZoneRules;
  readonly durationMs: number;
  /** Whole minutes; slot starts are local multiples of it from midnight. */
  readonly stepMs: number;
  readonly workingHours?: WorkingHours;
  readonly limit: number;
}

/** A free slot: the half-open interval [start, end) of instants. */
export interface FreeSlot {
  readonly start: number;
  readonly end: number;
}

/** Blocked time, in start order, not overlapping (mergeBusy's result). */
export interface Blocked {
  readonly start: number;
  readonly end: number;
}

/** ISO weekday (1 Monday to 7 Sunday) of a local wall time. */
function isoWeekday(local: number): number {
  const day = new Date(floorTo(local, DAY_MS)).getUTCDay();
  return day === 0 ? 7 : day;
}

/** The candidate slot starts of the local day beginning at `dayStart`, in instant order. */
function* candidateStarts(dayStart: number, query: Pick<FreeSlotQuery, "zone" | "stepMs" | "workingHours">): Generator<number> {
  const { zone, stepMs, workingHours } = query;
  const first = workingHours === undefined ? 0 : Math.ceil((workingHours.startMinute * MINUTE_MS) / stepMs) * stepMs;
  const last = workingHours === undefined ? DAY_MS : workingHours.endMinute * MINUTE_MS;
  const starts: number[] = [];
  for (let offset = first; offset < last; offset += stepMs) {
    const resolution = resolveLocal(zone, dayStart + offset);
    switch (resolution.kind) {
      case "unique":
        starts.push(resolution.instant);
        break;
      case "fold":
        starts.push(resolution.earlier, resolution.later);
        break;
      case "gap":
        break;
    }
  }
  // A fold's later instants can come after the next wall times' instants.
  starts.sort((a, b) => a - b);
  yield* starts;
}

/** The first instant in (from, to] at which the zone's offset differs from its offset at `from`, if any. */
function transitionIn(zone: ZoneRules, from: number, to: number): number | undefined {
  const offset = zone.offsetAt(from);
  if (zone.offsetAt(to) === offset) return undefined;
  let low = from;
  let high = to;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (zone.offsetAt(middle) === offset) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * True when every instant of [start, end) has a local wall time within the
 * working hours of the working day `dayStart`. Slots are at most a day long,
 * and zones change offset at most once in a day, so the lowest local time in
 * the slot is at its start or just after its one transition, and the highest
 * just before its end or just before that transition.
 */
function withinWorkingHours(start: number, end: number, dayStart: number, query: FreeSlotQuery, hours: WorkingHours): boolean {
  if (!hours.days.has(isoWeekday(dayStart))) return false;
  const open = dayStart + hours.startMinute * MINUTE_MS;
  const close = dayStart + hours.endMinute * MINUTE_MS;
  const { zone } = query;
  const locals = [instantToLocal(zone, start), instantToLocal(zone, end - 1)];
  const transition = transitionIn(zone, start, end - 1);
  if (transition !== undefined) locals.push(instantToLocal(zone, transition), instantToLocal(zone, transition - 1));
  return locals.every((local) => local >= open && local < close);
}

/** Index of the first blocked interval ending after `instant` (binary search). */
function firstEndingAfter(blocked: readonly Blocked[], instant: number): number {
  let low = 0;
  let high = blocked.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (blocked[middle].end <= instant) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first `limit` free slots of the query around `blocked`. */
export function findFreeSlots(blocked: readonly Blocked[], query: FreeSlotQuery): FreeSlot[] {
  return runAtOnce(findFreeSlotsSteps(blocked, query)).slots;
}

/** Candidate starts looked at between two pauses of the steps. */
const STARTS_PER_STEP = 512;

/** What a slot search found, and whether the caller's deadline stopped it first (then `slots` are the first ones, exactly). */
export interface SlotsFound {
  readonly slots: FreeSlot[];
  readonly interrupted: boolean;
}

/**
 * The same search as steps that pause every few hundred candidate starts:
 * a year at a 5-minute step looks at some 100,000 starts, which a server
 * runs with others' requests in between. `interrupted` is asked at each
 * pause (the caller's deadline): the slots found by then are returned.
 */
export function* findFreeSlotsSteps(blocked: readonly Blocked[], query: FreeSlotQuery, interrupted?: () => boolean): Steps<SlotsFound> {
  const { zone, durationMs, limit } = query;
  const slots: FreeSlot[] = [];
  // Local days from the one holding the window's start to the one holding its last instant.
  const firstDay = floorTo(instantToLocal(zone, query.start), DAY_MS);
  const lastDay = floorTo(instantToLocal(zone, query.endExclusive - 1), DAY_MS);
  let previous = Number.NEGATIVE_INFINITY;
  let looked = 0;
  for (let day = firstDay - DAY_MS; day <= lastDay + DAY_MS && slots.length < limit; day += DAY_MS) {
    if (looked >= STARTS_PER_STEP) {
      yield;
      looked = 0;
      if (interrupted?.() === true) return { slots, interrupted: true };
    }
    for (const start of candidateStarts(day, query)) {
      looked++;
      // Around a fold, one instant can be a candidate of two local days: take it once.
      if (start <= previous) continue;
      const end = start + durationMs;
      if (start < query.start || end > query.endExclusive) continue;
      const hours = query.workingHours;
      if (hours !== undefined && !withinWorkingHours(start, end, day, query, hours)) continue;
      const next = blocked[firstEndingAfter(blocked, start)];
      if (next !== undefined && next.start < end) continue;
      slots.push({ start, end });
      previous = start;
      if (slots.length === limit) break;
    }
  }
  return { slots, interrupted: false };
}

/** What fixes the starts of slots: the window, the zone and its step, and the slot's length. */
export type SlotGrid = Pick<FreeSlotQuery, "start" | "endExclusive" | "zone" | "durationMs" | "stepMs">;

/**
 * Every start of a slot of the grid that lies in its window, in instant
 * order, each instant once: the rules above without working hours or
 * blocked time (a DST gap starts none, a fold one per instant). Meeting
 * times (meeting-times.ts) look at each of them.
 */
export function* slotStarts(grid: SlotGrid): Generator<number> {
  const { zone, durationMs } = grid;
  if (grid.endExclusive - grid.start < durationMs) return;
  const firstDay = floorTo(instantToLocal(zone, grid.start), DAY_MS);
  const lastDay = floorTo(instantToLocal(zone, grid.endExclusive - 1), DAY_MS);
  let previous = Number.NEGATIVE_INFINITY;
  for (let day = firstDay - DAY_MS; day <= lastDay + DAY_MS; day += DAY_MS) {
    for (const start of candidateStarts(day, grid)) {
      if (start <= previous || start < grid.start || start + durationMs > grid.endExclusive) continue;
      previous = start;
      yield start;
    }
  }
}

/**
 * Free/busy and free slots (calendar_service.proto: QueryFreeBusy and
 * FindFreeSlots): the blocked time of 1 to 50 calendars in a window, each
 * merged and all combined by the rules of search/busy-time.ts, and the first
 * free slots around it (search/free-slots.ts).
 *
 * The calendars are read together, in the window's order (one merge over
 * every calendar, as a search across calendars reads them), so whatever
 * stops the read (the work budget, the caller's deadline, or the caps on
 * what one answer holds) stops it at one instant for all of them: the busy
 * time before `completeUntil` is exact in every calendar, and slots are only
 * looked for before it.
 */
import { CalqError } from "../calq-error.js";
import type { Snapshot } from "../ingest/snapshot.js";
import { type BusyInterval, blockedTime, busyKindOf, mergeBusy } from "../search/busy-time.js";
import { type FreeSlot, findFreeSlotsSteps, type WorkingHours } from "../search/free-slots.js";
import { type Position, searchCalendarsPageSteps } from "../search/search-occurrences.js";
import type { Steps } from "../stepwise.js";
import type { CalendarView } from "../store/calendar-store.js";
import { localTimeMinutes } from "../time/civil.js";
import type { RequestWindow } from "../time/request-window.js";
import { MINUTE_MS } from "../time/units.js";
import { type WindowArguments, windowOf } from "./arguments.js";
import { type CalendarAccess, openCalendars } from "./calendar-access.js";
import type { Call } from "./call.js";
import { currentSnapshots } from "./snapshots.js";

/** Occurrences one call reads at most, over all its calendars; past it the answer is exact only before the next one. */
export const MAX_OCCURRENCES_READ = 50_000;
/** Merged busy intervals one calendar's answer holds at most. */
export const MAX_BUSY_INTERVALS_PER_CALENDAR = 1_000;
/** Busy intervals one answer holds at most, every calendar's and the combined ones together. */
export const MAX_BUSY_INTERVALS_PER_ANSWER = 10_000;

/** Occurrences read per page of the merged read. */
const PAGE = 1_000;

export interface FreeBusyDeps {
  readonly access: CalendarAccess;
  readonly maxWindowMs: number;
  /** Units of work one call may do (calq.yaml search.work_budget). */
  readonly workBudget: number;
}

/** Why a read stopped before the window's end: the work budget, the caller's deadline, or the caps on an answer's size. */
export type BusyCut = "budget" | "deadline" | "size";

/** One calendar's blocked time. */
export interface CalendarBusy {
  readonly view: CalendarView;
  readonly snapshot: Snapshot;
  /** Merged, in start order, within [window start, completeUntil). */
  readonly busy: readonly BusyInterval[];
}

/** What a read of blocked time found. */
export interface BusyRead {
  readonly window: RequestWindow;
  /** In the order asked. */
  readonly calendars: readonly CalendarBusy[];
  /** Every calendar's blocked time merged. */
  readonly combined: readonly BusyInterval[];
  /** Set when the read stopped early: busy time before this instant is exact, after it unknown. */
  readonly completeUntil?: number;
  readonly cut?: BusyCut;
  /** Units of work the read did. */
  readonly work: number;
}

/** QueryFreeBusy: the blocked time of the calendars in the window. */
export async function queryFreeBusy(
  deps: FreeBusyDeps,
  call: Call,
  calendarIds: readonly string[],
  args: WindowArguments,
): Promise<BusyRead> {
  const window = windowOf(args, deps.maxWindowMs);
  return readBusy(deps, call, calendarIds, window, "QueryFreeBusy");
}

/** What FindFreeSlots takes beyond the window and the calendars. */
/** What FindFreeSlots takes beyond the window and the calendars; the numbers within the contract's bounds (the transport checked them). */
export interface SlotArguments extends WindowArguments {
  readonly durationMinutes: number;
  readonly stepMinutes: number;
  /** Slots at most. */
  readonly limit: number;
  /** Whether tentative time blocks; undefined when the request names no policy (refused: there is no default). */
  readonly tentativeBlocks: boolean | undefined;
  /** "HH:MM" local times, both "" for none. */
  readonly workingHoursStart: string;
  readonly workingHoursEnd: string;
  /** ISO weekdays; none with working hours: Monday to Friday. */
  readonly workingDays: readonly number[];
}

export interface SlotsFound {
  readonly window: RequestWindow;
  readonly slots: readonly FreeSlot[];
  /** Set when fewer slots than asked may have been found because the read or the slot search stopped early: slots were looked for only before it. */
  readonly completeUntil?: number;
  readonly cut?: BusyCut;
}

/** FindFreeSlots: the first free slots of the calendars together. */
export async function findFreeSlots(
  deps: FreeBusyDeps,
  call: Call,
  calendarIds: readonly string[],
  args: SlotArguments,
): Promise<SlotsFound> {
  const { durationMinutes, stepMinutes, limit } = args;
  if (args.tentativeBlocks === undefined) {
    throw invalidSlots("tentative is required: TENTATIVE_POLICY_BUSY or TENTATIVE_POLICY_FREE", "tentative");
  }
  const workingHours = workingHoursOf(args);
  const window = windowOf(args, deps.maxWindowMs);
  const read = await readBusy(deps, call, calendarIds, window, "FindFreeSlots");
  const searchedUntil = read.completeUntil ?? window.endExclusive;
  // The combined time is every calendar's merged (busy wherever any is busy): its blocking parts are everyone's.
  const blocked = blockedTime(read.combined, args.tentativeBlocks, window.start, searchedUntil);
  const found = await call.run(
    findFreeSlotsSteps(
      blocked,
      {
        start: window.start,
        endExclusive: searchedUntil,
        zone: window.zone,
        durationMs: durationMinutes * MINUTE_MS,
        stepMs: stepMinutes * MINUTE_MS,
        workingHours,
        limit,
      },
      () => call.interrupted(),
    ),
  );
  if (found.interrupted) {
    // Slots come in start order: the search looked at every start before the last slot it found.
    const last = found.slots.at(-1);
    return { window, slots: found.slots, completeUntil: last === undefined ? window.start : last.start, cut: "deadline" };
  }
  if (read.completeUntil === undefined || found.slots.length === limit) return { window, slots: found.slots };
  return { window, slots: found.slots, completeUntil: read.completeUntil, cut: read.cut };
}

/**
 * Opens the named calendars together (calendar-access.ts: any the caller
 * may not see the busy time of, or a set spanning shard groups, refuses the
 * whole request) and reads their blocked time in one merge, in the window's
 * order, within `deps.workBudget`.
 */
export async function readBusy(
  deps: FreeBusyDeps,
  call: Call,
  ids: readonly string[],
  window: RequestWindow,
  method: string,
): Promise<BusyRead> {
  const views = await openCalendars(deps.access, call.principal, ids, method, call.correlationId, "busy");
  const snapshots = currentSnapshots(views);
  const order = views.map((_, i) => i).sort((a, b) => (views[a].config.id < views[b].config.id ? -1 : 1));
  // Reading and combining both take turns: a year of 49 calendars is tens of thousands of intervals to merge.
  return call.run(busySteps(deps, call, views, snapshots, order, window));
}

/**
 * Reads the calendars' blocking time, then merges it and applies the caps
 * on an answer's size, pausing between calendars. No closure here captures
 * a variable of this generator: V8 keeps such variables in a context the
 * young generation's collections cannot see is dead, and these are a whole
 * read's intervals (each collection copied them again; the week's
 * free/busy of 50 calendars met one in every 11 queries).
 */
function* busySteps(
  deps: FreeBusyDeps,
  call: Call,
  views: readonly CalendarView[],
  snapshots: readonly Snapshot[],
  order: readonly number[],
  window: RequestWindow,
): Steps<BusyRead> {
  const read = yield* readBlockingSteps(deps, call, views, snapshots, order, window);
  const merged = yield* mergeEach(read.blocking, window.start, read.completeUntil ?? window.endExclusive);
  const sizeCut = sizeCutOf(merged);
  yield;
  // Merging commutes with cutting at an instant: the merged lists, cut, are the busy time before it.
  const clipped = sizeCut === undefined ? merged : cutEach(merged, sizeCut);
  const until = sizeCut ?? read.completeUntil ?? window.endExclusive;
  const cut = sizeCut === undefined ? read.cut : "size";
  const combined = mergeBusy(clipped.flat(), window.start, until);
  return {
    window,
    calendars: calendarsRead(views, snapshots, clipped),
    combined,
    ...(cut === undefined ? {} : { completeUntil: until, cut }),
    work: read.work,
  };
}

/** Each calendar's blocking time merged within [start, end), one calendar a step. */
function* mergeEach(blocking: readonly BusyInterval[][], start: number, end: number): Steps<BusyInterval[][]> {
  const merged: BusyInterval[][] = [];
  for (const intervals of blocking) {
    merged.push(mergeBusy(intervals, start, end));
    yield;
  }
  return merged;
}

/**
 * The caps on what one answer holds: the earliest interval past a cap ends
 * the exact part for all. Half the answer goes to the calendars' own lists,
 * half to the combined one, which is never longer than all of them. Each
 * list is in start order, so the answer's cap is found by walking the lists
 * together up to it, not by sorting every start.
 */
function sizeCutOf(merged: readonly (readonly BusyInterval[])[]): number | undefined {
  let sizeCut = Infinity;
  let count = 0;
  for (const intervals of merged) {
    if (intervals.length > MAX_BUSY_INTERVALS_PER_CALENDAR) sizeCut = Math.min(sizeCut, intervals[MAX_BUSY_INTERVALS_PER_CALENDAR].start);
    count += intervals.length;
  }
  if (count <= MAX_BUSY_INTERVALS_PER_ANSWER / 2) return sizeCut === Infinity ? undefined : sizeCut;
  // The start of the interval that would be the cap's first past it, over every list.
  const next = merged.map(() => 0);
  for (let taken = 0; ; taken++) {
    let first = -1;
    for (let i = 0; i < merged.length; i++) {
      if (next[i] < merged[i].length && (first < 0 || merged[i][next[i]].start < merged[first][next[first]].start)) first = i;
    }
    if (taken === MAX_BUSY_INTERVALS_PER_ANSWER / 2) return Math.min(sizeCut, merged[first][next[first]].start);
    next[first]++;
  }
}

/** Each calendar's merged intervals (in start order) before `until`, the last cut there if it runs past it. */
function cutEach(merged: readonly (readonly BusyInterval[])[], until: number): BusyInterval[][] {
  return merged.map((intervals) => {
    let end = 0;
    while (end < intervals.length && intervals[end].start < until) end++;
    const kept = intervals.slice(0, end);
    const last = kept.at(-1);
    if (last !== undefined && last.end > until) kept[end - 1] = { ...last, end: until };
    return kept;
  });
}

function calendarsRead(
  views: readonly CalendarView[],
  snapshots: readonly Snapshot[],
  busy: readonly BusyInterval[][],
): BusyRead["calendars"] {
  return views.map((view, i) => ({ view, snapshot: snapshots[i], busy: busy[i] }));
}

/** What the merged read found: each calendar's blocking occurrences (in the order asked), and where it stopped, if early. */
interface BlockingRead {
  readonly blocking: BusyInterval[][];
  readonly completeUntil?: number;
  readonly cut?: BusyCut;
  readonly work: number;
}

/**
 * Reads every calendar's occurrences in the window, merged in (start,
 * calendar_id, event_id) order, a page at a time within one work budget,
 * keeping those that block time. `order` lists the calendars (by their
 * index in `views`) in id order, as the merge requires.
 */
function* readBlockingSteps(
  deps: FreeBusyDeps,
  call: Call,
  views: readonly CalendarView[],
  snapshots: readonly Snapshot[],
  order: readonly number[],
  window: RequestWindow,
): Steps<BlockingRead> {
  const blocking: BusyInterval[][] = views.map(() => []);
  const calendars = order.map((i) => ({ id: views[i].config.id, occurrences: snapshots[i] }));
  let after: Position | undefined;
  let work = deps.workBudget;
  let read = 0;
  for (;;) {
    const limits = { work, interrupted: () => call.interrupted() };
    const page = yield* searchCalendarsPageSteps(calendars, { window, mode: "overlap", limit: PAGE, after }, limits);
    work -= page.work;
    for (const [k, occurrence] of page.occurrences.entries()) {
      if (read === MAX_OCCURRENCES_READ) {
        return { blocking, completeUntil: Math.max(window.start, occurrence.start), cut: "size", work: deps.workBudget - work };
      }
      read++;
      const { start, end, details } = occurrence;
      const kind = busyKindOf(start, end, details.status, details.transparent);
      if (kind !== undefined) blocking[order[page.sources[k]]].push({ start, end, kind });
    }
    if (page.partial !== undefined) {
      // Every occurrence starting before the last one read was read; ties at its start may not have been.
      const until = page.next === undefined || page.next.start < window.start ? window.start : page.next.start;
      return { blocking, completeUntil: until, cut: page.partial, work: deps.workBudget - work };
    }
    if (page.next === undefined) return { blocking, work: deps.workBudget - work };
    after = page.next;
  }
}

/** Minutes after midnight of "HH:MM" ("24:00" allowed as an end). */
function minutesOf(text: string, field: string, end: boolean, refuse: (message: string, field: string) => CalqError): number {
  const minutes = localTimeMinutes(text, end);
  if (minutes === undefined) throw refuse(`${field} must be a local time "HH:MM"${end ? ' (or "24:00")' : ""}, not "${text}"`, field);
  return minutes;
}

function workingHoursOf(args: SlotArguments): WorkingHours | undefined {
  return requestWorkingHours(args, "INVALID_SLOT_QUERY");
}

/**
 * The working hours a request names (FindFreeSlots' and FindMeetingTimes'
 * three fields), or undefined for none; refused with `reason` when they
 * cannot be read.
 */
export function requestWorkingHours(
  args: Pick<SlotArguments, "workingHoursStart" | "workingHoursEnd" | "workingDays">,
  reason: "INVALID_SLOT_QUERY" | "INVALID_MEETING_QUERY",
): WorkingHours | undefined {
  const refuse = (message: string, field: string) => new CalqError(reason, message, field);
  const { workingHoursStart: start, workingHoursEnd: end } = args;
  if (start === "" && end === "") {
    if (args.workingDays.length > 0) throw refuse("working_days goes with working_hours_start and working_hours_end", "working_days");
    return undefined;
  }
  const startMinute = minutesOf(start, "working_hours_start", false, refuse);
  const endMinute = minutesOf(end, "working_hours_end", true, refuse);
  if (endMinute <= startMinute) throw refuse("working_hours_end must come after working_hours_start", "working_hours_end");
  const days = args.workingDays.length === 0 ? [1, 2, 3, 4, 5] : args.workingDays;
  // Each a weekday 1 to 7 by the contract's bounds; named twice is a slip the schema cannot state.
  if (new Set(days).size !== days.length) throw refuse("working_days must name each weekday once", "working_days");
  return { days: new Set(days), startMinute, endMinute };
}

function invalidSlots(message: string, field: string): CalqError {
  return new CalqError("INVALID_SLOT_QUERY", message, field);
}

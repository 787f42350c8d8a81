/**
 * Meeting times: for several attendees, each required or optional, with
 * their busy time and working hours, the candidate times ranked by who can
 * come, and, when none fits, why, and what comes closest. Pure: busy time
 * and working time come in as instants (busy-time.ts, working-time.ts).
 *
 * The rules (calendar_service.proto: FindMeetingTimesRequest):
 * - A candidate is [s, s + duration) at each slot start of the window
 *   (free-slots.ts: slotStarts, so exact across DST changes).
 * - For each attendee it is "outside" when no stretch of their working time
 *   holds it; else "busy" when busy time overlaps [s - before, s + duration
 *   + after), else "tentative" when tentative time does, else "free". An
 *   attendee is available when free, or tentative while tentative time is
 *   free.
 * - It fits when every required attendee is available and at least
 *   ceil(percent x optional / 100) optional ones are.
 * - Fits rank by optional attendees available (more first), then start.
 * - When nothing fits, the reason is the first that holds of: the window is
 *   shorter than the meeting; it holds no candidate; at every candidate
 *   some required attendee is outside their hours; at every candidate where
 *   all are within them someone required is unavailable; the optional ones
 *   fall short. The candidate missing the fewest required attendees (then
 *   the most optional ones available, then the earliest) comes with it.
 *
 * The search runs in steps and counts its work, a unit per candidate, never
 * time (docs/decisions.md, "Budgets count work"): it pauses every few
 * hundred candidates, and stops where its budget or the caller's deadline
 * says, with exactly what it looked at before.
 */
import type { Steps } from "../stepwise.js";
import type { ZoneRules } from "../time/zone-rules.js";
import type { BusyInterval } from "./busy-time.js";
import { slotStarts } from "./free-slots.js";
import { holds, type Span } from "./working-time.js";

/** How one attendee stands at one candidate. */
export type Availability = "free" | "busy" | "tentative" | "outside";

/** One attendee as the search reads them. */
export interface MeetingAttendee {
  readonly required: boolean;
  /** Their merged busy time (busy-time.ts: mergeBusy), in order; it must cover the candidates widened by the buffers. */
  readonly busy: readonly BusyInterval[];
  /** Their working time (working-time.ts), in order; undefined when they have no working hours (any time is within them). */
  readonly working?: readonly Span[];
}

export interface MeetingQuery {
  /** The window [start, endExclusive) every candidate lies in. */
  readonly start: number;
  readonly endExclusive: number;
  /** The zone whose local multiples of `stepMs` start candidates. */
  readonly zone: ZoneRules;
  readonly durationMs: number;
  readonly stepMs: number;
  readonly bufferBeforeMs: number;
  readonly bufferAfterMs: number;
  /** Whether tentative time keeps an attendee away. */
  readonly tentativeBlocks: boolean;
  /** 0 to 100: the share of optional attendees who must be available, rounded up. */
  readonly minOptionalPercent: number;
  /** Candidates returned at most. */
  readonly limit: number;
}

/** One candidate and how every attendee stands (in the order given). */
export interface MeetingCandidate {
  readonly start: number;
  readonly end: number;
  readonly availability: readonly Availability[];
  /** Optional attendees available. */
  readonly optionalAvailable: number;
  /** Indices of the required attendees not available. */
  readonly unavailableRequired: readonly number[];
}

/** Why nothing fits. */
export type NoFit =
  | "window_shorter_than_duration"
  | "no_start_in_window"
  | "outside_working_hours"
  | "no_common_free_time"
  | "too_few_optional";

/** What a search of the window found. */
export interface MeetingSearch {
  /** The best fits, ranked, at most `limit`. */
  readonly fits: readonly MeetingCandidate[];
  readonly fitCount: number;
  /** Set when nothing fits. */
  readonly noFit?: NoFit;
  /** When nothing fits: the candidate missing the fewest required attendees. */
  readonly fewestMissing?: MeetingCandidate;
  /** Set when the search stopped early: every candidate starting before this was looked at, none after. */
  readonly stoppedAt?: number;
  readonly stoppedBy?: "budget" | "deadline";
  /** Units of work done: candidates looked at. */
  readonly work: number;
}

/** How much the search may do, and when it must stop. */
export interface MeetingLimits {
  /** Candidates it may look at. */
  readonly work: number;
  /** Asked at each pause: true once the caller's deadline has passed. */
  readonly interrupted?: () => boolean;
}

/** Candidates looked at between two pauses. */
const CANDIDATES_PER_STEP = 256;

/** Optional attendees who must be available: the percent of them, rounded up. */
export function optionalNeeded(attendees: readonly MeetingAttendee[], percent: number): number {
  const optional = attendees.filter((attendee) => !attendee.required).length;
  return Math.ceil((optional * percent) / 100);
}

/** The ranked meeting times of the query's window, as steps (see the file comment). */
export function* findMeetingTimesSteps(
  attendees: readonly MeetingAttendee[],
  query: MeetingQuery,
  limits: MeetingLimits,
): Steps<MeetingSearch> {
  if (query.endExclusive - query.start < query.durationMs) return { fits: [], fitCount: 0, noFit: "window_shorter_than_duration", work: 0 };
  const judge = new Judge(attendees, query);
  const fits: MeetingCandidate[] = [];
  let fitCount = 0;
  let looked = 0;
  let anyStart = false;
  let anyWithinHours = false;
  let anyRequiredAvailable = false;
  let fewestMissing: MeetingCandidate | undefined;
  let stoppedAt: number | undefined;
  let stoppedBy: "budget" | "deadline" | undefined;
  for (const start of slotStarts(query)) {
    if (looked > 0 && looked % CANDIDATES_PER_STEP === 0) {
      yield;
      if (limits.interrupted?.() === true) stoppedBy = "deadline";
    }
    if (stoppedBy === undefined && looked >= limits.work) stoppedBy = "budget";
    if (stoppedBy !== undefined) {
      stoppedAt = start;
      break;
    }
    looked++;
    anyStart = true;
    const candidate = judge.candidate(start);
    if (candidate.availability.every((availability, i) => !attendees[i].required || availability !== "outside")) anyWithinHours = true;
    if (candidate.unavailableRequired.length === 0) anyRequiredAvailable = true;
    if (judge.fits(candidate)) {
      fitCount++;
      rankInto(fits, candidate, query.limit);
    } else if (fewestMissing === undefined || missesLess(candidate, fewestMissing)) {
      fewestMissing = candidate;
    }
  }
  const stopped = stoppedAt === undefined ? {} : { stoppedAt, stoppedBy };
  if (fitCount > 0) return { fits, fitCount, work: looked, ...stopped };
  const noFit: NoFit = !anyStart
    ? "no_start_in_window"
    : !anyWithinHours
      ? "outside_working_hours"
      : !anyRequiredAvailable
        ? "no_common_free_time"
        : "too_few_optional";
  return { fits, fitCount, noFit, ...(fewestMissing === undefined ? {} : { fewestMissing }), work: looked, ...stopped };
}

/** The earliest fit of the query's window (its ranking aside), as steps; undefined when none fits or the work ran out first. */
export function* firstFitSteps(
  attendees: readonly MeetingAttendee[],
  query: MeetingQuery,
  limits: MeetingLimits,
): Steps<MeetingCandidate | undefined> {
  const judge = new Judge(attendees, query);
  let looked = 0;
  for (const start of slotStarts(query)) {
    if (looked > 0 && looked % CANDIDATES_PER_STEP === 0) {
      yield;
      if (limits.interrupted?.() === true) return undefined;
    }
    if (looked >= limits.work) return undefined;
    looked++;
    const candidate = judge.candidate(start);
    if (judge.fits(candidate)) return candidate;
  }
  return undefined;
}

/** Judges candidates: each attendee's availability, and whether the whole fits. */
class Judge {
  private readonly busy: Span[][];
  private readonly tentative: Span[][];
  private readonly needed: number;

  constructor(
    private readonly attendees: readonly MeetingAttendee[],
    private readonly query: MeetingQuery,
  ) {
    this.busy = attendees.map((attendee) => attendee.busy.filter((interval) => interval.kind === "busy"));
    this.tentative = attendees.map((attendee) => attendee.busy.filter((interval) => interval.kind === "tentative"));
    this.needed = optionalNeeded(attendees, query.minOptionalPercent);
  }

  candidate(start: number): MeetingCandidate {
    const { durationMs, bufferBeforeMs, bufferAfterMs, tentativeBlocks } = this.query;
    const end = start + durationMs;
    const from = start - bufferBeforeMs;
    const to = end + bufferAfterMs;
    const availability: Availability[] = [];
    const unavailableRequired: number[] = [];
    let optionalAvailable = 0;
    for (const [i, attendee] of this.attendees.entries()) {
      const working = attendee.working;
      const status: Availability =
        working !== undefined && !holds(working, start, end)
          ? "outside"
          : overlaps(this.busy[i], from, to)
            ? "busy"
            : overlaps(this.tentative[i], from, to)
              ? "tentative"
              : "free";
      availability.push(status);
      const available = status === "free" || (status === "tentative" && !tentativeBlocks);
      if (attendee.required && !available) unavailableRequired.push(i);
      if (!attendee.required && available) optionalAvailable++;
    }
    return { start, end, availability, optionalAvailable, unavailableRequired };
  }

  fits(candidate: MeetingCandidate): boolean {
    return candidate.unavailableRequired.length === 0 && candidate.optionalAvailable >= this.needed;
  }
}

/** Whether any span of `spans` (in order, not overlapping) overlaps [from, to). */
function overlaps(spans: readonly Span[], from: number, to: number): boolean {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (spans[middle].end <= from) low = middle + 1;
    else high = middle;
  }
  const next = spans[low];
  return next !== undefined && next.start < to;
}

/** Puts a fit in its place among the best (candidates arrive in start order, so a tie goes after). */
function rankInto(best: MeetingCandidate[], candidate: MeetingCandidate, limit: number): void {
  let at = best.length;
  while (at > 0 && best[at - 1].optionalAvailable < candidate.optionalAvailable) at--;
  if (at >= limit) return;
  best.splice(at, 0, candidate);
  if (best.length > limit) best.pop();
}

/** Whether `a` misses fewer required attendees than `b`, then has more optional ones; `b` is earlier, so a tie keeps it. */
function missesLess(a: MeetingCandidate, b: MeetingCandidate): boolean {
  if (a.unavailableRequired.length !== b.unavailableRequired.length) return a.unavailableRequired.length < b.unavailableRequired.length;
  return a.optionalAvailable > b.optionalAvailable;
}

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
import type { Span } from "./working-time.js";

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
    const tally = judge.judge(start);
    if (!tally.requiredOutside) anyWithinHours = true;
    if (tally.requiredMissing === 0) anyRequiredAvailable = true;
    if (judge.fits(tally)) {
      fitCount++;
      // Only a fit that makes the list is written out in full.
      if (fits.length < query.limit || fits[fits.length - 1].optionalAvailable < tally.optionalAvailable) {
        rankInto(fits, judge.candidate(start), query.limit);
      }
    } else if (fewestMissing === undefined || missesLess(tally, fewestMissing)) {
      fewestMissing = judge.candidate(start);
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
    if (judge.fits(judge.judge(start))) return judge.candidate(start);
  }
  return undefined;
}

/** What a candidate comes to, counted without writing it out: who is missing, and how many optional attendees can come. */
interface Tally {
  readonly requiredMissing: number;
  /** Some required attendee is outside their working hours. */
  readonly requiredOutside: boolean;
  readonly optionalAvailable: number;
}

/**
 * Judges candidates, which arrive in start order: each attendee's
 * availability, and whether the whole fits. Each attendee's busy,
 * tentative and working time is walked with a cursor that only moves
 * forward, so a candidate costs a few comparisons per attendee, and
 * nothing is allocated unless a candidate is written out.
 */
class Judge {
  private readonly busy: Span[][];
  private readonly tentative: Span[][];
  private readonly needed: number;
  private readonly busyAt: Int32Array;
  private readonly tentativeAt: Int32Array;
  private readonly workingAt: Int32Array;
  /** The availability of each attendee at the last candidate judged. */
  private readonly standing: Availability[];
  private judged = Number.NaN;

  constructor(
    private readonly attendees: readonly MeetingAttendee[],
    private readonly query: MeetingQuery,
  ) {
    this.busy = attendees.map((attendee) => attendee.busy.filter((interval) => interval.kind === "busy"));
    this.tentative = attendees.map((attendee) => attendee.busy.filter((interval) => interval.kind === "tentative"));
    this.needed = optionalNeeded(attendees, query.minOptionalPercent);
    this.busyAt = new Int32Array(attendees.length);
    this.tentativeAt = new Int32Array(attendees.length);
    this.workingAt = new Int32Array(attendees.length);
    this.standing = attendees.map(() => "free");
  }

  /** Judges the candidate starting at `start`, no earlier than the last one judged. */
  judge(start: number): Tally {
    const { durationMs, bufferBeforeMs, bufferAfterMs, tentativeBlocks } = this.query;
    const end = start + durationMs;
    const from = start - bufferBeforeMs;
    const to = end + bufferAfterMs;
    let requiredMissing = 0;
    let requiredOutside = false;
    let optionalAvailable = 0;
    for (let i = 0; i < this.attendees.length; i++) {
      const attendee = this.attendees[i];
      const working = attendee.working;
      let status: Availability;
      if (working !== undefined && !this.withinHours(i, working, start, end)) status = "outside";
      else if (this.overlaps(this.busy[i], this.busyAt, i, from, to)) status = "busy";
      else if (this.overlaps(this.tentative[i], this.tentativeAt, i, from, to)) status = "tentative";
      else status = "free";
      this.standing[i] = status;
      const available = status === "free" || (status === "tentative" && !tentativeBlocks);
      if (attendee.required) {
        if (!available) requiredMissing++;
        if (status === "outside") requiredOutside = true;
      } else if (available) {
        optionalAvailable++;
      }
    }
    this.judged = start;
    return { requiredMissing, requiredOutside, optionalAvailable };
  }

  /** The candidate last judged (at `start`), written out. */
  candidate(start: number): MeetingCandidate {
    if (start !== this.judged) throw new Error("a candidate is written out right after it is judged");
    const availability = [...this.standing];
    const unavailableRequired: number[] = [];
    let optionalAvailable = 0;
    for (const [i, attendee] of this.attendees.entries()) {
      const status = availability[i];
      const available = status === "free" || (status === "tentative" && !this.query.tentativeBlocks);
      if (attendee.required && !available) unavailableRequired.push(i);
      if (!attendee.required && available) optionalAvailable++;
    }
    return { start, end: start + this.query.durationMs, availability, optionalAvailable, unavailableRequired };
  }

  fits(tally: Tally): boolean {
    return tally.requiredMissing === 0 && tally.optionalAvailable >= this.needed;
  }

  /** Whether one stretch of working time holds [start, end): the one holding `start`, found by moving the cursor on. */
  private withinHours(i: number, working: readonly Span[], start: number, end: number): boolean {
    let at = this.workingAt[i];
    while (at < working.length && working[at].end <= start) at++;
    this.workingAt[i] = at;
    const span = working[at];
    return span !== undefined && span.start <= start && end <= span.end;
  }

  /** Whether any span overlaps [from, to), moving attendee i's cursor past the spans that end by `from`. */
  private overlaps(spans: readonly Span[], cursors: Int32Array, i: number, from: number, to: number): boolean {
    let at = cursors[i];
    while (at < spans.length && spans[at].end <= from) at++;
    cursors[i] = at;
    const next = spans[at];
    return next !== undefined && next.start < to;
  }
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
function missesLess(a: Tally, b: MeetingCandidate): boolean {
  if (a.requiredMissing !== b.unavailableRequired.length) return a.requiredMissing < b.unavailableRequired.length;
  return a.optionalAvailable > b.optionalAvailable;
}

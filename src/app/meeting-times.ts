/**
 * Meeting times (calendar_service.proto: FindMeetingTimes): the times when
 * required and optional attendees can meet, ranked, each attendee's
 * standing at each, and, when nothing fits, why, the first fit after the
 * window and the time missing the fewest required attendees.
 *
 * It reads what free/busy reads, busy time only, so a free/busy reader of
 * a calendar may ask (docs/decisions.md, "Busy time only"), and each
 * attendee's working hours: their feed's VAVAILABILITY, else the settings
 * of the person whose primary calendar it is, else the request's. The
 * calendars are read together in the window's order (free-busy.ts), the
 * candidates judged by search/meeting-times.ts, all within one work budget
 * and the caller's deadline; where a read or the judging stops early the
 * answer says until when it is exact.
 */
import { CalqError } from "../calq-error.js";
import { zoneRules } from "../ics/availability.js";
import type { Snapshot } from "../ingest/snapshot.js";
import {
  findMeetingTimesSteps,
  firstFitSteps,
  type MeetingAttendee,
  type MeetingCandidate,
  type MeetingQuery,
  type NoFit,
} from "../search/meeting-times.js";
import { availableWorkingTime, type Span, weeklyWorkingTime } from "../search/working-time.js";
import type { CalendarView } from "../store/calendar-store.js";
import { type RequestWindow, requestZone } from "../time/request-window.js";
import { DAY_MS, MINUTE_MS } from "../time/units.js";
import type { ZoneRules } from "../time/zone-rules.js";
import type { WindowArguments } from "./arguments.js";
import { windowOf } from "./arguments.js";
import type { Call } from "./call.js";
import { type BusyCut, type BusyRead, type FreeBusyDeps, readBusy, requestWorkingHours } from "./free-busy.js";
import type { People } from "./people.js";

/** How far after the window the first fit is looked for. */
export const FIRST_FIT_HORIZON_MS = 14 * DAY_MS;

export interface MeetingDeps extends FreeBusyDeps {
  readonly people: People;
}

/** What FindMeetingTimes takes, the numbers within the contract's bounds (the transport checked them and put in the defaults). */
export interface MeetingArguments extends WindowArguments {
  readonly requiredCalendarIds: readonly string[];
  readonly optionalCalendarIds: readonly string[];
  readonly durationMinutes: number;
  readonly stepMinutes: number;
  readonly bufferBeforeMinutes: number;
  readonly bufferAfterMinutes: number;
  /** Whether tentative time keeps an attendee away; undefined when the request names no policy (refused: there is no default). */
  readonly tentativeBlocks: boolean | undefined;
  readonly minOptionalPercent: number;
  /** "HH:MM" local times, both "" for none: for attendees calq knows no working hours of. */
  readonly workingHoursStart: string;
  readonly workingHoursEnd: string;
  readonly workingDays: readonly number[];
  readonly limit: number;
}

/** Where an attendee's working hours come from. */
export type HoursSource = "feed" | "settings" | "request" | "none";

/** One attendee as read. */
export interface AttendeeRead {
  readonly view: CalendarView;
  readonly snapshot: Snapshot;
  readonly required: boolean;
  /** The zone their working hours are read in, and their local times shown in. */
  readonly zone: ZoneRules;
  readonly source: HoursSource;
}

/** What FindMeetingTimes found. */
export interface MeetingTimesFound {
  readonly window: RequestWindow;
  /** Required ones first, each in the order asked; candidates' standings follow this order. */
  readonly attendees: readonly AttendeeRead[];
  readonly fits: readonly MeetingCandidate[];
  readonly fitCount: number;
  readonly noFit?: NoFit;
  readonly fewestMissing?: MeetingCandidate;
  readonly firstFitAfter?: MeetingCandidate;
  /** Set when not every candidate could be looked at: every one starting before this was. */
  readonly completeUntil?: number;
  readonly cut?: BusyCut;
}

/** The working hours an attendee's calendar says, as a function of the range to lay them out in. */
interface Hours {
  readonly zone: ZoneRules;
  readonly source: HoursSource;
  readonly spans?: (from: number, to: number) => Span[];
}

/** FindMeetingTimes for `call`'s caller. */
export async function findMeetingTimes(deps: MeetingDeps, call: Call, args: MeetingArguments): Promise<MeetingTimesFound> {
  const { tentativeBlocks } = args;
  if (tentativeBlocks === undefined) {
    throw new CalqError("INVALID_MEETING_QUERY", "tentative is required: TENTATIVE_POLICY_BUSY or TENTATIVE_POLICY_FREE", "tentative");
  }
  const ids = [...args.requiredCalendarIds, ...args.optionalCalendarIds];
  if (ids.length > 50) {
    throw new CalqError("INVALID_CALENDAR_IDS", `send at most 50 attendees in all, not ${ids.length}`, "optional_calendar_ids");
  }
  const requestHours = requestWorkingHours(args, "INVALID_MEETING_QUERY");
  const window = windowOf(args, deps.maxWindowMs);
  const before = args.bufferBeforeMinutes * MINUTE_MS;
  const after = args.bufferAfterMinutes * MINUTE_MS;
  const durationMs = args.durationMinutes * MINUTE_MS;
  const read = await readBusy(deps, call, ids, widened(window, window.start, window.endExclusive, before, after), "FindMeetingTimes");
  const required = (i: number) => i < args.requiredCalendarIds.length;
  const hours = read.calendars.map(({ view, snapshot }) => hoursOf(deps.people, view, snapshot, window, requestHours));
  const attendees: AttendeeRead[] = read.calendars.map(({ view, snapshot }, i) => ({
    view,
    snapshot,
    required: required(i),
    zone: hours[i].zone,
    source: hours[i].source,
  }));
  const query = (start: number, endExclusive: number, limit: number): MeetingQuery => ({
    start,
    endExclusive,
    zone: window.zone,
    durationMs,
    stepMs: args.stepMinutes * MINUTE_MS,
    bufferBeforeMs: before,
    bufferAfterMs: after,
    tentativeBlocks,
    minOptionalPercent: args.minOptionalPercent,
    limit,
  });
  // Busy time is exact before the read's end: a candidate must end, with its buffer, by then.
  const searchEnd = read.completeUntil === undefined ? window.endExclusive : Math.min(window.endExclusive, read.completeUntil - after);
  const judged = attendeesOf(read, hours, required, window.start, searchEnd);
  const found = await call.run(
    findMeetingTimesSteps(judged, query(window.start, Math.max(window.start, searchEnd), args.limit), {
      work: deps.workBudget - read.work,
      interrupted: () => call.interrupted(),
    }),
  );
  const base = { window, attendees, fits: found.fits, fitCount: found.fitCount };
  const closest = { ...(found.noFit === undefined ? {} : { noFit: found.noFit }), ...definedFewest(found.fewestMissing) };
  if (found.stoppedAt !== undefined) return { ...base, ...closest, completeUntil: found.stoppedAt, cut: found.stoppedBy };
  if (read.completeUntil !== undefined) {
    return { ...base, ...closest, completeUntil: Math.max(window.start, searchEnd - durationMs), cut: read.cut };
  }
  if (found.noFit === undefined || found.noFit === "window_shorter_than_duration") return { ...base, ...closest };
  const firstFitAfter = await firstFitAfterWindow({ ...deps, workBudget: deps.workBudget - read.work - found.work }, call, ids, window, {
    before,
    after,
    durationMs,
    required,
    hours,
    query,
  });
  return { ...base, ...closest, ...(firstFitAfter === undefined ? {} : { firstFitAfter }) };
}

function definedFewest(candidate: MeetingCandidate | undefined): { fewestMissing?: MeetingCandidate } {
  return candidate === undefined ? {} : { fewestMissing: candidate };
}

/** What the search after the window reuses of the first. */
interface Judging {
  readonly before: number;
  readonly after: number;
  readonly durationMs: number;
  readonly required: (i: number) => boolean;
  readonly hours: readonly Hours[];
  readonly query: (start: number, endExclusive: number, limit: number) => MeetingQuery;
}

/** The earliest fit within FIRST_FIT_HORIZON_MS after the window, read and judged with what the call has left. */
async function firstFitAfterWindow(
  deps: FreeBusyDeps,
  call: Call,
  ids: readonly string[],
  window: RequestWindow,
  judging: Judging,
): Promise<MeetingCandidate | undefined> {
  if (deps.workBudget <= 0) return undefined;
  const start = window.endExclusive;
  const end = start + FIRST_FIT_HORIZON_MS;
  const read = await readBusy(deps, call, ids, widened(window, start, end, judging.before, judging.after), "FindMeetingTimes");
  const searchEnd = read.completeUntil === undefined ? end : Math.min(end, read.completeUntil - judging.after);
  if (searchEnd - start < judging.durationMs) return undefined;
  const judged = attendeesOf(read, judging.hours, judging.required, start, searchEnd);
  return call.run(
    firstFitSteps(judged, judging.query(start, searchEnd, 1), {
      work: deps.workBudget - read.work,
      interrupted: () => call.interrupted(),
    }),
  );
}

/** The window [start, end) widened by the buffers, as the read it takes. */
function widened(window: RequestWindow, start: number, end: number, before: number, after: number): RequestWindow {
  return { ...window, start: start - before, endExclusive: end + after };
}

/** The attendees as the judging reads them: busy time from the read, working time laid out over [from, to). */
function attendeesOf(
  read: BusyRead,
  hours: readonly Hours[],
  required: (i: number) => boolean,
  from: number,
  to: number,
): MeetingAttendee[] {
  return read.calendars.map(({ busy }, i): MeetingAttendee => {
    const spans = hours[i].spans;
    return { required: required(i), busy, ...(spans === undefined ? {} : { working: spans(from, to) }) };
  });
}

/**
 * An attendee's working hours: the feed's VAVAILABILITY, else the settings
 * of the calendar's person, else the request's (in its zone), else none.
 */
function hoursOf(
  people: People,
  view: CalendarView,
  snapshot: Snapshot,
  window: RequestWindow,
  requestHours: ReturnType<typeof requestWorkingHours>,
): Hours {
  const owner = people.ownerOf(view.config.id);
  const personZone = owner?.timezone === undefined ? undefined : requestZone(owner.timezone);
  const availability = snapshot.availability ?? [];
  if (availability.length > 0) {
    // Shown in the zone the feed writes its periods in.
    const feedZone = availability
      .flatMap((component) => component.available)
      .map((period) => zoneRules(period.zone))
      .find((zone) => zone !== undefined);
    return {
      zone: feedZone ?? personZone ?? snapshot.zone,
      source: "feed",
      spans: (from, to) => availableWorkingTime(availability, snapshot.zone, from, to),
    };
  }
  const settings = owner?.workingHours;
  if (settings !== undefined) {
    const zone = personZone ?? snapshot.zone;
    const weekly = { zone, days: new Set(settings.days), startMinute: settings.startMinute, endMinute: settings.endMinute };
    return { zone, source: "settings", spans: (from, to) => weeklyWorkingTime(weekly, from, to) };
  }
  if (requestHours !== undefined) {
    const weekly = { zone: window.zone, ...requestHours };
    return { zone: window.zone, source: "request", spans: (from, to) => weeklyWorkingTime(weekly, from, to) };
  }
  return { zone: personZone ?? snapshot.zone, source: "none" };
}

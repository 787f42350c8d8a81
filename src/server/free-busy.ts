/**
 * QueryFreeBusy and FindFreeSlots (calendar_service.proto): the blocked
 * time of 1 to 50 calendars in a window, each merged and all combined, by
 * the rules of search/busy-time.ts, and the first free slots around it
 * (search/free-slots.ts). Every calendar is opened as SearchEvents opens one,
 * so any calendar the caller may not read refuses the whole request; so do
 * calendars of several shard groups (calq does not fan a call out).
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import {
  type BusyInterval as BusyIntervalMessage,
  BusyIntervalSchema,
  BusyKind,
  CalendarBusySchema,
  type FindFreeSlotsRequest,
  type FindFreeSlotsResponse,
  FindFreeSlotsResponseSchema,
  FreeSlotSchema,
  type QueryFreeBusyRequest,
  type QueryFreeBusyResponse,
  QueryFreeBusyResponseSchema,
  TentativePolicy,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqError } from "../calq-error.js";
import type { Occurrence } from "../expand/occurrence.js";
import type { Logger } from "../logging/logger.js";
import { DEFAULT_SLOTS, MAX_SLOT_MINUTES, MAX_SLOTS, MIN_SLOT_MINUTES } from "../page-size.js";
import { type BusyInterval, blockedTime, busyKindOf, mergeBusy } from "../search/busy-time.js";
import { findFreeSlotsSteps, type WorkingHours } from "../search/free-slots.js";
import { type Position, type SearchLimits, searchPageSteps } from "../search/search-occurrences.js";
import { runYielding } from "../stepwise.js";
import { type CalendarView, dataAsOf } from "../store/calendar-store.js";
import type { Snapshot } from "../store/snapshot.js";
import { formatInZone } from "../time/civil.js";
import { type RequestWindow, resolveWindow } from "../time/request-window.js";
import { MINUTE_MS } from "../time/units.js";
import type { ZoneRules } from "../time/zone-rules.js";
import type { Principal } from "./authenticator.js";
import { type CalendarAccess, checkCalendarCount, openCalendars } from "./calendar-access.js";
import { callInfo } from "./call-info.js";

/** Occurrences read per calendar at most; past it the calendar's busy time is marked incomplete. */
const MAX_OCCURRENCES_PER_CALENDAR = 10_000;
const PAGE = 1_000;

export interface FreeBusyDeps {
  readonly access: CalendarAccess;
  readonly maxWindowMs: number;
  readonly log: Logger;
  readonly searchBudgetMs: number;
  readonly clock: () => number;
}

/** One calendar's blocked time in a window, as read from its current snapshot. */
interface CalendarBlocked {
  readonly view: CalendarView;
  readonly snapshot: Snapshot;
  /** Merged, clipped to the window. */
  readonly busy: readonly BusyInterval[];
  /** False when the calendar was read only in part (its work budget, or too many occurrences). */
  readonly complete: boolean;
}

/**
 * Opens the named calendars together (calendar-access.ts: any the caller
 * may not read, or a set spanning shard groups, refuses the whole request)
 * and reads each one's blocked time.
 */
async function blockedTimeOf(
  deps: FreeBusyDeps,
  principal: Principal,
  ids: readonly string[],
  window: RequestWindow,
  context: HandlerContext,
  method: string,
): Promise<CalendarBlocked[]> {
  const views = openCalendars(deps.access, principal, ids, method, callInfo(context)?.correlationId);
  const read: CalendarBlocked[] = [];
  for (const view of views) {
    const snapshot = view.snapshot;
    if (snapshot === undefined) throw new CalqError("PROVIDER_UNAVAILABLE", "a calendar's feed has not loaded yet; retry later");
    const limits: SearchLimits = { budgetMs: deps.searchBudgetMs, signal: context.signal, clock: deps.clock };
    const blocking: BusyInterval[] = [];
    let after: Position | undefined;
    let complete = true;
    let count = 0;
    for (;;) {
      const page = await runYielding(searchPageSteps(snapshot, { window, mode: "overlap", limit: PAGE, after }, limits));
      count += page.occurrences.length;
      for (const occurrence of page.occurrences) {
        const kind = busyKindOf(blockingFacts(occurrence));
        if (kind !== undefined) blocking.push({ start: occurrence.start, end: occurrence.end, kind });
      }
      if (page.partial !== undefined || !page.complete) complete = false;
      if (page.next === undefined || page.partial !== undefined) break;
      if (count >= MAX_OCCURRENCES_PER_CALENDAR) {
        complete = false;
        break;
      }
      after = page.next;
    }
    read.push({ view, snapshot, busy: mergeBusy(blocking, window.start, window.endExclusive), complete });
  }
  return read;
}

/** Answers one QueryFreeBusy call for `principal`. */
export async function queryFreeBusy(
  deps: FreeBusyDeps,
  principal: Principal,
  request: QueryFreeBusyRequest,
  context: HandlerContext,
): Promise<QueryFreeBusyResponse> {
  checkCalendarCount(request.calendarIds);
  const window = resolveWindow({ start: request.start, endExclusive: request.endExclusive, timezone: request.timezone }, deps.maxWindowMs);
  const read = await blockedTimeOf(deps, principal, request.calendarIds, window, context, "QueryFreeBusy");
  return create(QueryFreeBusyResponseSchema, {
    startTime: timestampFromMs(window.start),
    endExclusiveTime: timestampFromMs(window.endExclusive),
    timezone: window.timezone,
    calendars: read.map(({ view, snapshot, busy, complete }) =>
      create(CalendarBusySchema, {
        calendarId: view.config.id,
        busy: busy.map((interval) => intervalMessage(interval, window.zone)),
        snapshotId: snapshot.id,
        dataAsOf: timestampFromMs(dataAsOf(view, snapshot)),
        stale: view.stale,
        complete,
      }),
    ),
    combined: mergeBusy(
      read.flatMap((calendar) => calendar.busy),
      window.start,
      window.endExclusive,
    ).map((interval) => intervalMessage(interval, window.zone)),
  });
}

/** The default and the bounds of a FindFreeSlots request (calendar_service.proto). */
const DEFAULT_STEP_MINUTES = 30;

/** Answers one FindFreeSlots call for `principal`. */
export async function findFreeSlotsFor(
  deps: FreeBusyDeps,
  principal: Principal,
  request: FindFreeSlotsRequest,
  context: HandlerContext,
): Promise<FindFreeSlotsResponse> {
  checkCalendarCount(request.calendarIds);
  const durationMinutes = request.durationMinutes;
  if (!(durationMinutes >= MIN_SLOT_MINUTES && durationMinutes <= MAX_SLOT_MINUTES))
    throw invalidSlots(`duration_minutes must be ${MIN_SLOT_MINUTES} to ${MAX_SLOT_MINUTES}, not ${durationMinutes}`, "duration_minutes");
  const stepMinutes = request.stepMinutes === 0 ? DEFAULT_STEP_MINUTES : request.stepMinutes;
  if (!(stepMinutes >= MIN_SLOT_MINUTES && stepMinutes <= MAX_SLOT_MINUTES))
    throw invalidSlots(`step_minutes must be 0 or ${MIN_SLOT_MINUTES} to ${MAX_SLOT_MINUTES}, not ${request.stepMinutes}`, "step_minutes");
  const limit = request.limit === 0 ? DEFAULT_SLOTS : request.limit;
  if (!(limit >= 1 && limit <= MAX_SLOTS)) throw invalidSlots(`limit must be 0 to ${MAX_SLOTS}, not ${request.limit}`, "limit");
  const tentativeBlocks = tentativePolicy(request.tentative);
  const workingHours = workingHoursOf(request);
  const window = resolveWindow({ start: request.start, endExclusive: request.endExclusive, timezone: request.timezone }, deps.maxWindowMs);
  const read = await blockedTimeOf(deps, principal, request.calendarIds, window, context, "FindFreeSlots");
  const blocked = blockedTime(
    read.flatMap((calendar) => calendar.busy),
    tentativeBlocks,
    window.start,
    window.endExclusive,
  );
  const slots = await runYielding(
    findFreeSlotsSteps(
      blocked,
      {
        start: window.start,
        endExclusive: window.endExclusive,
        zone: window.zone,
        durationMs: durationMinutes * MINUTE_MS,
        stepMs: stepMinutes * MINUTE_MS,
        workingHours,
        limit,
      },
      deps.clock,
    ),
  );
  return create(FindFreeSlotsResponseSchema, {
    slots: slots.map((slot) =>
      create(FreeSlotSchema, {
        startTime: timestampFromMs(slot.start),
        endTime: timestampFromMs(slot.end),
        startLocal: formatInZone(slot.start, window.zone),
        endLocal: formatInZone(slot.end, window.zone),
      }),
    ),
    timezone: window.timezone,
    complete: read.every((calendar) => calendar.complete),
  });
}

/** Whether tentative time blocks, as the request says; there is no default. */
function tentativePolicy(policy: TentativePolicy): boolean {
  switch (policy) {
    case TentativePolicy.BUSY:
      return true;
    case TentativePolicy.FREE:
      return false;
    case TentativePolicy.UNSPECIFIED:
      throw invalidSlots("tentative is required: TENTATIVE_POLICY_BUSY or TENTATIVE_POLICY_FREE", "tentative");
    default:
      policy satisfies never;
      throw invalidSlots("tentative is required: TENTATIVE_POLICY_BUSY or TENTATIVE_POLICY_FREE", "tentative");
  }
}

const LOCAL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of "HH:MM" ("24:00" allowed as an end). */
function minutesOf(text: string, field: string, end: boolean): number {
  if (end && text === "24:00") return 1440;
  const match = LOCAL_TIME.exec(text);
  if (match === null) throw invalidSlots(`${field} must be a local time "HH:MM"${end ? ' (or "24:00")' : ""}, not "${text}"`, field);
  return Number(match[1]) * 60 + Number(match[2]);
}

function workingHoursOf(request: FindFreeSlotsRequest): WorkingHours | undefined {
  const { workingHoursStart: start, workingHoursEnd: end } = request;
  if (start === "" && end === "") {
    if (request.workingDays.length > 0)
      throw invalidSlots("working_days goes with working_hours_start and working_hours_end", "working_days");
    return undefined;
  }
  const startMinute = minutesOf(start, "working_hours_start", false);
  const endMinute = minutesOf(end, "working_hours_end", true);
  if (endMinute <= startMinute) throw invalidSlots("working_hours_end must come after working_hours_start", "working_hours_end");
  const days = request.workingDays.length === 0 ? [1, 2, 3, 4, 5] : request.workingDays;
  if (days.some((day) => !Number.isInteger(day) || day < 1 || day > 7) || new Set(days).size !== days.length) {
    throw invalidSlots("working_days must be weekdays 1 (Monday) to 7 (Sunday), each once", "working_days");
  }
  return { days: new Set(days), startMinute, endMinute };
}

function invalidSlots(message: string, field: string): CalqError {
  return new CalqError("INVALID_SLOT_QUERY", message, field);
}

/** What decides whether an occurrence blocks time (cancelled occurrences are never served). */
function blockingFacts(occurrence: Occurrence) {
  return { start: occurrence.start, end: occurrence.end, status: occurrence.details.status, transparent: occurrence.details.transparent };
}

const KINDS: Record<BusyInterval["kind"], BusyKind> = { busy: BusyKind.BUSY, tentative: BusyKind.TENTATIVE };

function intervalMessage(interval: BusyInterval, zone: ZoneRules): BusyIntervalMessage {
  return create(BusyIntervalSchema, {
    startTime: timestampFromMs(interval.start),
    endTime: timestampFromMs(interval.end),
    kind: KINDS[interval.kind],
    startLocal: formatInZone(interval.start, zone),
    endLocal: formatInZone(interval.end, zone),
  });
}

/**
 * QueryFreeBusy (calendar_service.proto): the blocked time of 1 to 50
 * calendars in a window, each merged and all combined, by the rules of
 * search/busy-time.ts. Every calendar is opened as SearchEvents opens one,
 * so any calendar the caller may not read refuses the whole request.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import {
  type BusyInterval as BusyIntervalMessage,
  BusyIntervalSchema,
  BusyKind,
  CalendarBusySchema,
  type QueryFreeBusyRequest,
  type QueryFreeBusyResponse,
  QueryFreeBusyResponseSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqError } from "../calq-error.js";
import type { Occurrence } from "../expand/occurrence.js";
import type { Logger } from "../logging/logger.js";
import { MAX_FREE_BUSY_CALENDARS } from "../page-size.js";
import { type BusyInterval, busyKindOf, mergeBusy } from "../search/busy-time.js";
import { type Position, type SearchLimits, searchPageSteps } from "../search/search-occurrences.js";
import { runYielding } from "../stepwise.js";
import type { CalendarStore } from "../store/calendar-store.js";
import { formatInZone } from "../time/civil.js";
import { resolveWindow } from "../time/request-window.js";
import type { ZoneRules } from "../time/zone-rules.js";
import type { Principal } from "./authenticator.js";
import { openCalendar } from "./calendar-access.js";
import { callInfo } from "./call-info.js";

/** Occurrences read per calendar at most; past it the calendar's busy time is marked incomplete. */
const MAX_OCCURRENCES_PER_CALENDAR = 10_000;
const PAGE = 1_000;

export interface FreeBusyDeps {
  readonly store: CalendarStore;
  readonly maxWindowMs: number;
  readonly log: Logger;
  readonly searchBudgetMs: number;
  readonly clock: () => number;
}

/** Answers one QueryFreeBusy call for `principal`. */
export async function queryFreeBusy(
  deps: FreeBusyDeps,
  principal: Principal,
  request: QueryFreeBusyRequest,
  context: HandlerContext,
): Promise<QueryFreeBusyResponse> {
  const ids = request.calendarIds;
  if (ids.length === 0 || ids.length > MAX_FREE_BUSY_CALENDARS) {
    throw invalidIds(`send 1 to ${MAX_FREE_BUSY_CALENDARS} calendar ids, not ${ids.length}`);
  }
  const window = resolveWindow({ start: request.start, endExclusive: request.endExclusive, timezone: request.timezone }, deps.maxWindowMs);
  const correlationId = callInfo(context)?.correlationId;
  const views = ids.map((id) => openCalendar(deps.store, principal, id, "QueryFreeBusy", deps.log, correlationId));
  const seen = new Set<string>();
  for (const view of views) {
    if (seen.has(view.config.id))
      throw invalidIds(`calendar ${view.config.id} is named twice (as "primary" and by its id, or twice by its id)`);
    seen.add(view.config.id);
  }

  const everyone: BusyInterval[] = [];
  const calendars = [];
  for (const view of views) {
    const snapshot = view.snapshot;
    if (snapshot === undefined) throw new CalqError("PROVIDER_UNAVAILABLE", "a calendar's feed has not loaded yet; retry later");
    const limits: SearchLimits = { budgetMs: deps.searchBudgetMs, signal: context.signal, clock: deps.clock };
    const blocking: BusyInterval[] = [];
    let after: Position | undefined;
    let complete = true;
    let read = 0;
    for (;;) {
      const page = await runYielding(searchPageSteps(snapshot, { window, mode: "overlap", limit: PAGE, after }, limits));
      read += page.occurrences.length;
      for (const occurrence of page.occurrences) {
        const kind = busyKindOf(blockingFacts(occurrence));
        if (kind !== undefined) blocking.push({ start: occurrence.start, end: occurrence.end, kind });
      }
      if (page.partial !== undefined || !page.complete) complete = false;
      if (page.next === undefined || page.partial !== undefined) break;
      if (read >= MAX_OCCURRENCES_PER_CALENDAR) {
        complete = false;
        break;
      }
      after = page.next;
    }
    const merged = mergeBusy(blocking, window.start, window.endExclusive);
    everyone.push(...merged);
    calendars.push(
      create(CalendarBusySchema, {
        calendarId: view.config.id,
        busy: merged.map((interval) => intervalMessage(interval, window.zone)),
        snapshotId: snapshot.id,
        dataAsOf: timestampFromMs(view.snapshot === snapshot ? (view.status.lastSuccessAt ?? snapshot.dataAsOf) : snapshot.dataAsOf),
        stale: view.stale,
        complete,
      }),
    );
  }
  return create(QueryFreeBusyResponseSchema, {
    startTime: timestampFromMs(window.start),
    endExclusiveTime: timestampFromMs(window.endExclusive),
    timezone: window.timezone,
    calendars,
    combined: mergeBusy(everyone, window.start, window.endExclusive).map((interval) => intervalMessage(interval, window.zone)),
  });
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

function invalidIds(message: string): CalqError {
  return new CalqError("INVALID_CALENDAR_IDS", message, "calendar_ids");
}

/**
 * calq.v1.CalendarService over Connect, gRPC and gRPC-Web: each method maps
 * its request message to domain values, calls its use case (src/app), and
 * maps the answer back to messages. What a method does lives in its use
 * case; what is here is the contract's shapes, and the bounds the contract
 * declares on request fields (checkBounds, which also puts in the defaults
 * that a 0 stands for). Credentials come first, so an unauthenticated call
 * learns nothing from its arguments.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  type BusyInterval as BusyIntervalMessage,
  BusyIntervalSchema,
  BusyKind,
  CalendarBusySchema,
  CalendarInfoSchema,
  CalendarReadSchema,
  type CalendarService,
  Consistency,
  CursorSnapshot,
  FindFreeSlotsRequestSchema,
  FindFreeSlotsResponseSchema,
  FreeSlotSchema,
  GetCallerContextResponseSchema,
  ListCalendarsResponseSchema,
  MatchMode,
  MatchModeSchema,
  PartialReason,
  QueryFreeBusyRequestSchema,
  QueryFreeBusyResponseSchema,
  ResolvedQuerySchema,
  SearchEventsAcrossCalendarsRequestSchema,
  SearchEventsAcrossCalendarsResponseSchema,
  SearchEventsRequestSchema,
  SearchEventsResponseSchema,
  TentativePolicy,
} from "../../gen/calq/v1/calendar_service_pb.js";
import type { CalendarsElsewhere } from "../app/calendar-access.js";
import { callerContext } from "../app/caller-context.js";
import type { BusyCut, BusyRead, FreeBusyDeps } from "../app/free-busy.js";
import { findFreeSlots, queryFreeBusy } from "../app/free-busy.js";
import { getEvent } from "../app/get-event.js";
import { type ListCalendarsDeps, listCalendars } from "../app/list-calendars.js";
import {
  type SearchArguments,
  type SearchDeps,
  type SearchResult,
  searchEvents,
  searchEventsAcrossCalendars,
} from "../app/search-events.js";
import type { SnapshotOrigin } from "../app/snapshots.js";
import type { Turns } from "../app/turns.js";
import type { Authenticator } from "../auth/authenticator.js";
import type { ShardMap } from "../config/shard-map.js";
import { checkBounds } from "../contract/index.js";
import type { Logger } from "../log.js";
import type { BusyInterval } from "../search/busy-time.js";
import type { CursorCodec } from "../search/cursor.js";
import type { MatchMode as EngineMatchMode } from "../search/match.js";
import { type CalendarStore, dataAsOf, servedStale } from "../store/calendar-store.js";
import { formatInZone } from "../time/civil.js";
import type { ZoneRules } from "../time/zone-rules.js";
import { callOfContext } from "./call-context.js";
import { eventResponse } from "./event-message.js";
import { occurrenceMessage } from "./occurrence-message.js";

export interface CalendarServiceDeps {
  readonly store: CalendarStore;
  /** Every configured calendar with its shard group; the store holds this replica's group only. */
  readonly shards: ShardMap;
  /** Registry calendars of other groups (app/calendar-access.ts); absent without a registry. */
  readonly elsewhere?: CalendarsElsewhere;
  readonly authenticator: Authenticator;
  readonly cursors: CursorCodec;
  readonly turns: Turns;
  readonly maxWindowMs: number;
  readonly log: Logger;
  readonly now: () => number;
  /** Units of work one call may do (calq.yaml search.work_budget). */
  readonly workBudget: number;
}

/** The modes a request may send, as the contract spells them. */
const MODE_NAMES = MatchModeSchema.values
  .filter((value) => value.number !== MatchMode.UNSPECIFIED)
  .map((value) => value.name)
  .join(" or ");

export function calendarService(deps: CalendarServiceDeps): ServiceImpl<typeof CalendarService> {
  const { store, shards, authenticator, cursors, log, now, turns } = deps;
  const access = { store, shards, log, elsewhere: deps.elsewhere };
  const searchDeps: SearchDeps = {
    access,
    cursors,
    maxWindowMs: deps.maxWindowMs,
    log,
    now,
    workBudget: deps.workBudget,
    modeNames: MODE_NAMES,
  };
  const freeBusyDeps: FreeBusyDeps = { access, maxWindowMs: deps.maxWindowMs, workBudget: deps.workBudget };
  const listDeps: ListCalendarsDeps = { store, shards, log };
  const callOf = callOfContext(authenticator, turns);

  return {
    async searchEvents(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(SearchEventsRequestSchema, sent);
      const found = await searchEvents(searchDeps, call, request.calendarId, searchArguments(request));
      const [read] = found.calendars;
      return create(SearchEventsResponseSchema, {
        events: eventsOf(found),
        nextCursor: found.nextCursor,
        query: resolvedQuery(found, request.matchMode, { calendarId: read.view.config.id }),
        consistency: Consistency.SNAPSHOT,
        snapshotId: read.snapshot.id,
        dataAsOf: timestampFromMs(dataAsOf(read.view, read.snapshot)),
        stale: servedStale(read.view, read.snapshot),
        ...partialFields(found.page.partial),
        cursorSnapshot: CURSOR_SNAPSHOTS[found.snapshotOrigin],
      });
    },

    async searchEventsAcrossCalendars(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(SearchEventsAcrossCalendarsRequestSchema, sent);
      const found = await searchEventsAcrossCalendars(searchDeps, call, request.calendarIds, searchArguments(request));
      return create(SearchEventsAcrossCalendarsResponseSchema, {
        events: eventsOf(found),
        nextCursor: found.nextCursor,
        query: resolvedQuery(found, request.matchMode, { calendarIds: found.calendars.map((read) => read.view.config.id) }),
        calendars: found.calendars.map(({ view, snapshot }) =>
          create(CalendarReadSchema, {
            calendarId: view.config.id,
            snapshotId: snapshot.id,
            dataAsOf: timestampFromMs(dataAsOf(view, snapshot)),
            stale: servedStale(view, snapshot),
          }),
        ),
        ...partialFields(found.page.partial),
        cursorSnapshot: CURSOR_SNAPSHOTS[found.snapshotOrigin],
      });
    },

    async getEvent(request, context) {
      const call = await callOf(context);
      const found = await getEvent({ access, workBudget: deps.workBudget }, call, request);
      return eventResponse(found);
    },

    async listCalendars(_request, context) {
      const call = await callOf(context);
      const calendars = listCalendars(listDeps, call).map(({ config, view, primary, shardGroup, shardKey }) =>
        create(CalendarInfoSchema, {
          id: config.id,
          displayName: config.name,
          timezone: view?.snapshot?.zone.name ?? config.timezone ?? "",
          primary,
          dataAsOf: view?.snapshot === undefined ? undefined : timestampFromMs(dataAsOf(view, view.snapshot)),
          stale: view?.stale ?? false,
          shardGroup,
          shardKey,
        }),
      );
      return create(ListCalendarsResponseSchema, { calendars });
    },

    async queryFreeBusy(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(QueryFreeBusyRequestSchema, sent);
      const read = await queryFreeBusy(freeBusyDeps, call, request.calendarIds, request);
      const zone = read.window.zone;
      return create(QueryFreeBusyResponseSchema, {
        startTime: timestampFromMs(read.window.start),
        endExclusiveTime: timestampFromMs(read.window.endExclusive),
        timezone: read.window.timezone,
        calendars: read.calendars.map(({ view, snapshot, busy }) =>
          create(CalendarBusySchema, {
            calendarId: view.config.id,
            busy: busy.map((interval) => intervalMessage(interval, zone)),
            snapshotId: snapshot.id,
            dataAsOf: timestampFromMs(dataAsOf(view, snapshot)),
            stale: view.stale,
            complete: read.completeUntil === undefined,
          }),
        ),
        combined: read.combined.map((interval) => intervalMessage(interval, zone)),
        ...cutFields(read),
      });
    },

    async findFreeSlots(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(FindFreeSlotsRequestSchema, sent);
      const found = await findFreeSlots(freeBusyDeps, call, request.calendarIds, {
        ...request,
        tentativeBlocks: TENTATIVE_BLOCKS[request.tentative],
      });
      const zone = found.window.zone;
      return create(FindFreeSlotsResponseSchema, {
        slots: found.slots.map((slot) =>
          create(FreeSlotSchema, {
            startTime: timestampFromMs(slot.start),
            endTime: timestampFromMs(slot.end),
            startLocal: formatInZone(slot.start, zone),
            endLocal: formatInZone(slot.end, zone),
          }),
        ),
        timezone: found.window.timezone,
        complete: found.completeUntil === undefined,
        ...cutFields(found),
      });
    },

    async getCallerContext(_request, context) {
      const call = await callOf(context);
      const caller = callerContext(call, now());
      return create(GetCallerContextResponseSchema, {
        principalId: caller.principalId,
        timezone: caller.timezone ?? "",
        currentTime: timestampFromMs(caller.now),
        primaryCalendarId: caller.primaryCalendarId ?? "",
      });
    },
  };
}

/** The fields both search requests share, as domain values. */
function searchArguments(request: {
  start: string;
  endExclusive: string;
  timezone: string;
  matchMode: MatchMode;
  limit: number;
  cursor: string;
  textQuery: string;
}): SearchArguments {
  const { start, endExclusive, timezone, limit, cursor, textQuery } = request;
  return { start, endExclusive, timezone, mode: engineMode(request.matchMode), limit, cursor, textQuery };
}

/** The engine's mode for a mode of the contract; undefined for UNSPECIFIED and values the contract does not define. */
function engineMode(mode: MatchMode): EngineMatchMode | undefined {
  switch (mode) {
    case MatchMode.OVERLAP:
      return "overlap";
    case MatchMode.START_WITHIN:
      return "startWithin";
    case MatchMode.UNSPECIFIED:
      return undefined;
    default:
      // Compiles only while every mode of the contract is handled above; at run time, a number from the wire.
      mode satisfies never;
      return undefined;
  }
}

/** Whether tentative time blocks, by policy; undefined for UNSPECIFIED and values the contract does not define. */
const TENTATIVE_BLOCKS: Record<number, boolean | undefined> = {
  [TentativePolicy.BUSY]: true,
  [TentativePolicy.FREE]: false,
};

const CURSOR_SNAPSHOTS: Record<SnapshotOrigin, CursorSnapshot> = {
  current: CursorSnapshot.UNSPECIFIED,
  held: CursorSnapshot.HELD,
  rechecked: CursorSnapshot.RECHECKED,
};

function eventsOf(found: SearchResult) {
  return found.found.map(({ occurrence, calendar }) => {
    const { view, snapshot, withholdClassified } = found.calendars[calendar];
    return occurrenceMessage(occurrence, {
      calendarId: view.config.id,
      calendarZone: snapshot.zone,
      requestZone: found.window.zone,
      window: found.window,
      withholdClassified,
    });
  });
}

function resolvedQuery(found: SearchResult, matchMode: MatchMode, calendars: { calendarId?: string; calendarIds?: string[] }) {
  return create(ResolvedQuerySchema, {
    ...calendars,
    startTime: timestampFromMs(found.window.start),
    endExclusiveTime: timestampFromMs(found.window.endExclusive),
    timezone: found.window.timezone,
    matchMode,
    limit: found.limit,
    textQueryWords: [...found.words],
  });
}

const PARTIAL_REASONS: Record<BusyCut, PartialReason> = {
  budget: PartialReason.BUDGET,
  deadline: PartialReason.DEADLINE,
  size: PartialReason.ANSWER_SIZE,
};

function partialFields(partial: "budget" | "deadline" | undefined) {
  return { partial: partial !== undefined, partialReason: partial === undefined ? PartialReason.UNSPECIFIED : PARTIAL_REASONS[partial] };
}

/** Where a free/busy read or a slot search stopped early, and why. */
function cutFields(read: Pick<BusyRead, "completeUntil" | "cut">) {
  return {
    completeUntil: read.completeUntil === undefined ? undefined : timestampFromMs(read.completeUntil),
    partialReason: read.cut === undefined ? PartialReason.UNSPECIFIED : PARTIAL_REASONS[read.cut],
  };
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

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
  AttendeeAvailabilitySchema,
  Availability,
  type BusyInterval as BusyIntervalMessage,
  BusyIntervalSchema,
  BusyKind,
  CalendarBusySchema,
  CalendarInfoSchema,
  CalendarReadSchema,
  type CalendarService,
  ChangeKind,
  Consistency,
  CursorSnapshot,
  EventChangeSchema,
  EventStatus,
  FindFreeSlotsRequestSchema,
  FindFreeSlotsResponseSchema,
  FindMeetingTimesRequestSchema,
  FindMeetingTimesResponseSchema,
  FreeSlotSchema,
  GetCallerContextResponseSchema,
  ListCalendarsResponseSchema,
  ListChangesRequestSchema,
  ListChangesResponseSchema,
  MatchMode,
  MatchModeSchema,
  MeetingAttendeeSchema,
  type MeetingTime,
  MeetingTimeSchema,
  NoFitReason,
  OffsetChangeSchema,
  PartialReason,
  ParticipationFilter,
  QueryFreeBusyRequestSchema,
  QueryFreeBusyResponseSchema,
  ResolvedQuerySchema,
  SearchEventsAcrossCalendarsRequestSchema,
  SearchEventsAcrossCalendarsResponseSchema,
  SearchEventsRequestSchema,
  SearchEventsResponseSchema,
  SourceFreshnessSchema,
  TentativePolicy,
  TimeSpanSchema,
  Transparency,
  WatchChangesRequestSchema,
  WatchChangesResponseSchema,
  WorkingHoursSource,
} from "../../gen/calq/v1/calendar_service_pb.js";
import type { CalendarsElsewhere } from "../app/calendar-access.js";
import { callerContext } from "../app/caller-context.js";
import { type CalendarChange, type ChangesDeps, listChanges, shownVersion, type WatchDeps, watchChanges } from "../app/changes.js";
import type { BusyCut, BusyRead, FreeBusyDeps } from "../app/free-busy.js";
import { findFreeSlots, queryFreeBusy } from "../app/free-busy.js";
import { getEvent } from "../app/get-event.js";
import { type ListCalendarsDeps, listCalendars } from "../app/list-calendars.js";
import { findMeetingTimes, type HoursSource, type MeetingDeps, type MeetingTimesFound } from "../app/meeting-times.js";
import { type People, peopleOf } from "../app/people.js";
import {
  type FilterArguments,
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
import type { EventVersion } from "../expand/event-versions.js";
import type { Snapshot } from "../ingest/snapshot.js";
import type { Logger } from "../log.js";
import type { BusyInterval } from "../search/busy-time.js";
import type { ChangeTokenCodec } from "../search/change-token.js";
import type { CursorCodec } from "../search/cursor.js";
import type { MatchMode as EngineMatchMode } from "../search/match.js";
import type { Availability as EngineAvailability, MeetingCandidate, NoFit } from "../search/meeting-times.js";
import type { OccurrenceFilter, ParticipationWanted } from "../search/occurrence-filter.js";
import { mapEachSteps } from "../stepwise.js";
import { type CalendarStore, type CalendarView, dataAsOf, servedStale } from "../store/calendar-store.js";
import { formatDate, formatInZone, formatLocalDateTime, formatOffset } from "../time/civil.js";
import { localDayOf, WEEKDAY_NAMES, weekdayName, weeksAround } from "../time/local-day.js";
import { requestZone } from "../time/request-window.js";
import { UTC_ZONE, type ZoneRules } from "../time/zone-rules.js";
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
  /** Signs and reads ListChanges' tokens. */
  readonly changeTokens: ChangeTokenCodec;
  /** WatchChanges: the places for streams, and the signal that ends them all when the server drains. */
  readonly watches: Pick<WatchDeps, "places" | "draining">;
  /** People's settings (working hours, zones) for meeting times; none when absent. */
  readonly people?: People;
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
  const meetingDeps: MeetingDeps = { ...freeBusyDeps, people: deps.people ?? peopleOf([]) };
  const listDeps: ListCalendarsDeps = { store, shards, log };
  const changesDeps: ChangesDeps = { access, tokens: deps.changeTokens };
  const watchDeps: WatchDeps = { access, ...deps.watches };
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
        freshness: freshnessOf(read.view),
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
        calendars: found.calendars.map(({ view, snapshot }) => calendarRead(view, snapshot)),
        ...partialFields(found.page.partial),
        cursorSnapshot: CURSOR_SNAPSHOTS[found.snapshotOrigin],
      });
    },

    async getEvent(request, context) {
      const call = await callOf(context);
      const found = await getEvent({ access, workBudget: deps.workBudget }, call, request);
      return { ...eventResponse(found), freshness: freshnessOf(found.view) };
    },

    async listCalendars(_request, context) {
      const call = await callOf(context);
      const calendars = listCalendars(listDeps, call).map(({ config, view, primary, shardGroup, shardKey, busyOnly }) =>
        create(CalendarInfoSchema, {
          id: config.id,
          displayName: config.name,
          timezone: view?.snapshot?.zone.name ?? config.timezone ?? "",
          primary,
          dataAsOf: view?.snapshot === undefined ? undefined : timestampFromMs(dataAsOf(view, view.snapshot)),
          stale: view?.stale ?? false,
          shardGroup,
          shardKey,
          freshness: view === undefined ? undefined : freshnessOf(view),
          busyOnly,
        }),
      );
      return create(ListCalendarsResponseSchema, { calendars });
    },

    async queryFreeBusy(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(QueryFreeBusyRequestSchema, sent);
      const read = await queryFreeBusy(freeBusyDeps, call, request.calendarIds, request);
      const zone = read.window.zone;
      // An answer holds up to 10,000 intervals: its messages are built in turns too, as the read was, in one call's work.
      const lists = [...read.calendars.map(({ busy }) => busy), read.combined];
      const messages = await call.run(mapEachSteps(lists, (interval) => intervalMessage(interval, zone)));
      const combined = messages.pop();
      return create(QueryFreeBusyResponseSchema, {
        startTime: timestampFromMs(read.window.start),
        endExclusiveTime: timestampFromMs(read.window.endExclusive),
        timezone: read.window.timezone,
        calendars: read.calendars.map(({ view, snapshot }, i) =>
          create(CalendarBusySchema, {
            calendarId: view.config.id,
            busy: messages[i],
            snapshotId: snapshot.id,
            dataAsOf: timestampFromMs(dataAsOf(view, snapshot)),
            stale: view.stale,
            complete: read.completeUntil === undefined,
            freshness: freshnessOf(view),
          }),
        ),
        combined,
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
            ...localDays(slot.start, slot.end, zone),
          }),
        ),
        timezone: found.window.timezone,
        complete: found.completeUntil === undefined,
        ...cutFields(found),
      });
    },

    async listChanges(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(ListChangesRequestSchema, sent);
      const zone = request.timezone === "" ? UTC_ZONE : requestZone(request.timezone);
      const page = await listChanges(changesDeps, call, { ...request, changeToken: request.changeToken, pageSize: request.pageSize });
      return create(ListChangesResponseSchema, {
        changes: page.changes.map((change) => changeMessage(change, zone)),
        nextPageToken: page.nextPageToken,
        changeToken: page.changeToken,
        calendars: page.calendars.map(({ view, snapshot }) => calendarRead(view, snapshot)),
      });
    },

    async *watchChanges(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(WatchChangesRequestSchema, sent);
      for await (const notice of watchChanges(watchDeps, call, request.calendarIds, context.signal)) {
        yield create(WatchChangesResponseSchema, {
          calendarId: notice.calendarId,
          snapshotId: notice.snapshot.id,
          dataAsOf: timestampFromMs(notice.dataAsOf),
          added: notice.added,
          changed: notice.changed,
          removed: notice.removed,
        });
      }
    },

    async getCallerContext(_request, context) {
      const call = await callOf(context);
      const caller = callerContext(call, now());
      const local = caller.local;
      const weeks = local === undefined ? undefined : weeksAround(local.today, caller.weekStart);
      const change = local?.nextOffsetChange;
      return create(GetCallerContextResponseSchema, {
        principalId: caller.principalId,
        timezone: caller.timezone ?? "",
        currentTime: timestampFromMs(caller.now),
        primaryCalendarId: caller.primaryCalendarId ?? "",
        today: local === undefined ? "" : formatDate(local.today),
        todayWeekday: local === undefined ? "" : weekdayName(local.today),
        weekStartWeekday: WEEKDAY_NAMES[caller.weekStart - 1],
        thisWeekStart: weeks?.thisWeek ?? "",
        nextWeekStart: weeks?.nextWeek ?? "",
        weekAfterNextStart: weeks?.weekAfterNext ?? "",
        nextOffsetChange:
          change === undefined
            ? undefined
            : create(OffsetChangeSchema, {
                time: timestampFromMs(change.time),
                offsetBefore: formatOffset(change.before),
                offsetAfter: formatOffset(change.after),
                localBefore: formatLocalDateTime(change.time + change.before) + formatOffset(change.before),
                localAfter: formatLocalDateTime(change.time + change.after) + formatOffset(change.after),
              }),
      });
    },

    async findMeetingTimes(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(FindMeetingTimesRequestSchema, sent);
      const found = await findMeetingTimes(meetingDeps, call, { ...request, tentativeBlocks: TENTATIVE_BLOCKS[request.tentative] });
      return meetingResponse(found);
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
  status: EventStatus;
  transparency: Transparency;
  myParticipation: ParticipationFilter;
  categories: string[];
}): SearchArguments {
  const { start, endExclusive, timezone, limit, cursor, textQuery } = request;
  return { start, endExclusive, timezone, mode: engineMode(request.matchMode), limit, cursor, textQuery, filter: filterArguments(request) };
}

/** The filters of a search request as domain values; an unset (or unknown) value filters nothing. */
function filterArguments(request: {
  status: EventStatus;
  transparency: Transparency;
  myParticipation: ParticipationFilter;
  categories: string[];
}): FilterArguments {
  const status =
    request.status === EventStatus.CONFIRMED ? "confirmed" : request.status === EventStatus.TENTATIVE ? "tentative" : undefined;
  const transparency =
    request.transparency === Transparency.OPAQUE ? "opaque" : request.transparency === Transparency.TRANSPARENT ? "transparent" : undefined;
  const participation = PARTICIPATIONS_ASKED[request.myParticipation];
  return {
    ...(status === undefined ? {} : { status }),
    ...(transparency === undefined ? {} : { transparency }),
    ...(participation === undefined ? {} : { participation }),
    categories: request.categories,
  };
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
    ...filterEcho(found.filter),
  });
}

/** The filters a search applied, as the contract writes them. */
function filterEcho(filter: OccurrenceFilter) {
  return {
    status:
      filter.status === undefined ? EventStatus.UNSPECIFIED : filter.status === "tentative" ? EventStatus.TENTATIVE : EventStatus.CONFIRMED,
    transparency:
      filter.transparency === undefined
        ? Transparency.UNSPECIFIED
        : filter.transparency === "transparent"
          ? Transparency.TRANSPARENT
          : Transparency.OPAQUE,
    myParticipation: filter.participation === undefined ? ParticipationFilter.UNSPECIFIED : PARTICIPATIONS_SENT[filter.participation],
    categories: [...(filter.categories ?? [])],
  };
}

const PARTICIPATIONS_SENT: Record<ParticipationWanted, ParticipationFilter> = {
  not_declined: ParticipationFilter.NOT_DECLINED,
  accepted: ParticipationFilter.ACCEPTED,
  tentative: ParticipationFilter.TENTATIVE,
  needs_action: ParticipationFilter.NEEDS_ACTION,
  declined: ParticipationFilter.DECLINED,
};

/** The participation filter a request names; undefined for none and values the contract does not define. */
const PARTICIPATIONS_ASKED: Record<number, ParticipationWanted | undefined> = {
  [ParticipationFilter.NOT_DECLINED]: "not_declined",
  [ParticipationFilter.ACCEPTED]: "accepted",
  [ParticipationFilter.TENTATIVE]: "tentative",
  [ParticipationFilter.NEEDS_ACTION]: "needs_action",
  [ParticipationFilter.DECLINED]: "declined",
};

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

/** When calq last checked a calendar's source, and when the source last changed (the data served now was first read). */
function freshnessOf(view: CalendarView) {
  const { lastSuccessAt } = view.status;
  return create(SourceFreshnessSchema, {
    checkedTime: lastSuccessAt === undefined ? undefined : timestampFromMs(lastSuccessAt),
    changedTime: view.snapshot === undefined ? undefined : timestampFromMs(view.snapshot.dataAsOf),
  });
}

/** A calendar as a page read it: its snapshot, how fresh it is, and whether stale. */
function calendarRead(view: CalendarView, snapshot: Snapshot) {
  return create(CalendarReadSchema, {
    calendarId: view.config.id,
    snapshotId: snapshot.id,
    dataAsOf: timestampFromMs(dataAsOf(view, snapshot)),
    stale: servedStale(view, snapshot),
    freshness: freshnessOf(view),
  });
}

/** One changed event as the contract shows it, its spans in `zone`. */
function changeMessage(change: CalendarChange, zone: ZoneRules) {
  const shown = shownVersion(change);
  return create(EventChangeSchema, {
    calendarId: change.calendarId,
    eventId: change.key,
    kind: change.before === undefined ? ChangeKind.ADDED : change.after === undefined ? ChangeKind.REMOVED : ChangeKind.CHANGED,
    recurring: shown.recurring,
    summary: change.withheld && shown.classified ? "" : shown.summary,
    before: change.before === undefined ? undefined : spanMessage(change.before, zone),
    after: change.after === undefined ? undefined : spanMessage(change.after, zone),
  });
}

function spanMessage(version: EventVersion, zone: ZoneRules) {
  const open = version.end === Number.POSITIVE_INFINITY;
  return create(TimeSpanSchema, {
    startTime: timestampFromMs(version.start),
    endTime: open ? undefined : timestampFromMs(version.end),
    startLocal: formatInZone(version.start, zone),
    endLocal: open ? "" : formatInZone(version.end, zone),
  });
}

const KINDS: Record<BusyInterval["kind"], BusyKind> = { busy: BusyKind.BUSY, tentative: BusyKind.TENTATIVE };

function intervalMessage(interval: BusyInterval, zone: ZoneRules): BusyIntervalMessage {
  return create(BusyIntervalSchema, {
    startTime: timestampFromMs(interval.start),
    endTime: timestampFromMs(interval.end),
    kind: KINDS[interval.kind],
    startLocal: formatInZone(interval.start, zone),
    endLocal: formatInZone(interval.end, zone),
    ...localDays(interval.start, interval.end, zone),
  });
}

/** The local dates and weekdays of an interval's ends, as every interval of the contract carries them beside its local times. */
function localDays(start: number, end: number, zone: ZoneRules) {
  const first = localDayOf(start, zone);
  const last = localDayOf(end, zone);
  return { startLocalDate: first.date, startLocalWeekday: first.weekday, endLocalDate: last.date, endLocalWeekday: last.weekday };
}

const AVAILABILITIES: Record<EngineAvailability, Availability> = {
  free: Availability.FREE,
  busy: Availability.BUSY,
  tentative: Availability.TENTATIVE,
  outside: Availability.OUTSIDE_WORKING_HOURS,
};

const NO_FIT_REASONS: Record<NoFit, NoFitReason> = {
  window_shorter_than_duration: NoFitReason.WINDOW_SHORTER_THAN_DURATION,
  no_start_in_window: NoFitReason.NO_START_IN_WINDOW,
  outside_working_hours: NoFitReason.OUTSIDE_WORKING_HOURS,
  no_common_free_time: NoFitReason.NO_COMMON_FREE_TIME,
  too_few_optional: NoFitReason.TOO_FEW_OPTIONAL,
};

const HOURS_SOURCES: Record<HoursSource, WorkingHoursSource> = {
  feed: WorkingHoursSource.FEED,
  settings: WorkingHoursSource.SETTINGS,
  request: WorkingHoursSource.REQUEST,
  none: WorkingHoursSource.NONE,
};

/** FindMeetingTimes' answer as the contract's message. */
function meetingResponse(found: MeetingTimesFound) {
  const zone = found.window.zone;
  const time = (candidate: MeetingCandidate): MeetingTime =>
    create(MeetingTimeSchema, {
      startTime: timestampFromMs(candidate.start),
      endTime: timestampFromMs(candidate.end),
      startLocal: formatInZone(candidate.start, zone),
      endLocal: formatInZone(candidate.end, zone),
      ...localDays(candidate.start, candidate.end, zone),
      optionalFree: candidate.optionalAvailable,
      unavailableRequired: candidate.unavailableRequired.map((i) => found.attendees[i].view.config.id),
      attendees: candidate.availability.map((availability, i) =>
        create(AttendeeAvailabilitySchema, {
          calendarId: found.attendees[i].view.config.id,
          availability: AVAILABILITIES[availability],
          startLocal: formatInZone(candidate.start, found.attendees[i].zone),
        }),
      ),
    });
  return create(FindMeetingTimesResponseSchema, {
    candidates: found.fits.map(time),
    fitCount: found.fitCount,
    timezone: found.window.timezone,
    attendees: found.attendees.map((attendee) =>
      create(MeetingAttendeeSchema, {
        calendarId: attendee.view.config.id,
        required: attendee.required,
        timezone: attendee.zone.name,
        workingHoursSource: HOURS_SOURCES[attendee.source],
        stale: servedStale(attendee.view, attendee.snapshot),
      }),
    ),
    noFitReason: found.noFit === undefined ? NoFitReason.UNSPECIFIED : NO_FIT_REASONS[found.noFit],
    firstFitAfterWindow: found.firstFitAfter === undefined ? undefined : time(found.firstFitAfter),
    fewestMissing: found.fewestMissing === undefined ? undefined : time(found.fewestMissing),
    complete: found.completeUntil === undefined,
    ...cutFields(found),
  });
}

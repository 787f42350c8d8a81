/**
 * calq.v1.CalendarService: the read-only search contract, implemented over
 * the calendar store. Validation, access and paging happen here in the order
 * a caller can act on: credentials, then arguments, then the calendar, then
 * the cursor.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  CalendarInfoSchema,
  type CalendarService,
  Consistency,
  CursorSnapshot,
  GetCallerContextResponseSchema,
  ListCalendarsResponseSchema,
  MatchMode,
  MatchModeSchema,
  PartialReason,
  ResolvedQuerySchema,
  type SearchEventsResponse,
  SearchEventsResponseSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqError } from "../calq-error.js";
import { READ_ANY } from "../config/capabilities.js";
import { type ShardMap, shardKeyOf } from "../config/shard-map.js";
import type { Logger } from "../logging/logger.js";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../page-size.js";
import type { CursorBinding, CursorCodec } from "../search/cursor.js";
import type { MatchMode as EngineMatchMode } from "../search/match.js";
import {
  type PartialReason as EnginePartialReason,
  type Position,
  type SearchLimits,
  searchPageSteps,
} from "../search/search-occurrences.js";
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, parseTextQuery, type TextQueryProblem } from "../search/text-query.js";
import { runYielding } from "../stepwise.js";
import { type CalendarStore, dataAsOf } from "../store/calendar-store.js";
import type { Snapshot } from "../store/snapshot.js";
import { resolveWindow } from "../time/request-window.js";
import type { Authenticator, Principal } from "./authenticator.js";
import { mayRead, openCalendar } from "./calendar-access.js";
import { callInfo } from "./call-info.js";
import { findFreeSlotsFor, queryFreeBusy } from "./free-busy.js";
import { occurrenceMessage } from "./occurrence-message.js";

export interface CalendarServiceDeps {
  readonly store: CalendarStore;
  /** Every configured calendar with its shard group; the store holds this replica's group only. */
  readonly shards: ShardMap;
  readonly authenticator: Authenticator;
  readonly cursors: CursorCodec;
  readonly maxWindowMs: number;
  readonly log: Logger;
  readonly now: () => number;
  /** Milliseconds of work one search may do before it answers a partial page (calq.yaml search.cpu_budget). */
  readonly searchBudgetMs: number;
  /** The clock budgets and deadlines are measured on; a monotonic one by default (`now` may be a test's fixed clock). */
  readonly searchClock?: () => number;
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

/** The modes a request may send, as the contract spells them. */
const MODE_NAMES = MatchModeSchema.values
  .filter((value) => value.number !== MatchMode.UNSPECIFIED)
  .map((value) => value.name)
  .join(" or ");

/**
 * How much of the caller's remaining deadline a search may use: the rest is
 * left for encoding and sending the page, so the caller gets a partial page
 * rather than DEADLINE_EXCEEDED.
 */
function answerWithin(timeoutMs: number): number {
  return Math.max(0, Math.min(timeoutMs * 0.75, timeoutMs - 100));
}

const PARTIAL_REASONS: Record<EnginePartialReason, PartialReason> = {
  budget: PartialReason.BUDGET,
  deadline: PartialReason.DEADLINE,
};

export function calendarService(deps: CalendarServiceDeps): ServiceImpl<typeof CalendarService> {
  const { store, shards, authenticator, cursors, log, now } = deps;
  const searchClock = deps.searchClock ?? (() => performance.now());
  const access = { store, shards, log };
  const freeBusyDeps = { access, maxWindowMs: deps.maxWindowMs, log, searchBudgetMs: deps.searchBudgetMs, clock: searchClock };
  const caller = (context: HandlerContext): Promise<Principal> => authenticator.authenticate(context);

  return {
    async searchEvents(request, context): Promise<SearchEventsResponse> {
      const principal = await caller(context);
      const limit = checkLimit(request.limit);
      const mode = engineMode(request.matchMode);
      if (mode === undefined) throw new CalqError("INVALID_MATCH_MODE", `match_mode is required: ${MODE_NAMES}`, "match_mode");
      const words = textQueryWords(request.textQuery);
      const window = resolveWindow(
        { start: request.start, endExclusive: request.endExclusive, timezone: request.timezone },
        deps.maxWindowMs,
      );
      const view = openCalendar(access, principal, request.calendarId, "SearchEvents", callInfo(context)?.correlationId);
      const binding: CursorBinding = {
        principalId: principal.id,
        calendarId: request.calendarId,
        start: window.start,
        endExclusive: window.endExclusive,
        timezone: window.timezone,
        mode,
        words,
      };

      let snapshot: Snapshot | undefined;
      let searchStartedAt = now();
      let after: Position | undefined;
      let cursorSnapshot = CursorSnapshot.UNSPECIFIED;
      if (request.cursor !== "") {
        const state = cursors.decode(request.cursor, binding);
        snapshot = store.snapshot(view.config.id, state.snapshotId);
        cursorSnapshot = CursorSnapshot.HELD;
        if (snapshot === undefined) {
          // Snapshot ids are digests of the feed: a cursor from another replica, or from before
          // a restart, names a version this server may not have read yet. Look once more.
          await store.reload(view.config.id);
          snapshot = store.snapshot(view.config.id, state.snapshotId);
          if (snapshot === undefined) throw expiredSnapshot();
          cursorSnapshot = CursorSnapshot.RECHECKED;
        }
        searchStartedAt = state.searchStartedAt;
        after = state.position;
      } else {
        snapshot = view.snapshot;
        if (snapshot === undefined) {
          throw new CalqError("PROVIDER_UNAVAILABLE", "the calendar's feed has not loaded yet; retry later");
        }
      }

      // The client's deadline counts from now; the search pauses for other
      // requests about every millisecond, so one expensive calendar cannot hold the others.
      const timeoutMs = context.timeoutMs();
      const started = searchClock();
      const limits: SearchLimits = {
        budgetMs: deps.searchBudgetMs,
        answerBy: timeoutMs === undefined ? undefined : started + answerWithin(timeoutMs),
        signal: context.signal,
        clock: searchClock,
      };
      const page = await runYielding(searchPageSteps(snapshot, { window, mode, limit, after, words }, limits));
      if (page.partial !== undefined) {
        log({
          level: "info",
          msg: "search stopped early; the page is partial and its cursor continues",
          calendar_id: view.config.id,
          snapshot_id: snapshot.id,
          reason: page.partial,
          found: page.occurrences.length,
          elapsed_ms: Math.round(searchClock() - started),
        });
      }
      if (!page.complete) {
        log({
          level: "warn",
          msg: "on-demand expansion cut short; the page may miss occurrences",
          calendar_id: view.config.id,
          snapshot_id: snapshot.id,
        });
      }
      const nextCursor =
        page.next === undefined ? "" : cursors.encode(binding, { snapshotId: snapshot.id, position: page.next, searchStartedAt });
      const render = { calendarId: view.config.id, calendarZone: snapshot.zone, requestZone: window.zone, window };
      return create(SearchEventsResponseSchema, {
        events: page.occurrences.map((occurrence) => occurrenceMessage(occurrence, render)),
        nextCursor,
        query: create(ResolvedQuerySchema, {
          calendarId: view.config.id,
          startTime: timestampFromMs(window.start),
          endExclusiveTime: timestampFromMs(window.endExclusive),
          timezone: window.timezone,
          matchMode: request.matchMode,
          limit,
          textQueryWords: [...words],
        }),
        consistency: Consistency.SNAPSHOT,
        snapshotId: snapshot.id,
        dataAsOf: timestampFromMs(dataAsOf(view, snapshot)),
        stale: view.stale && view.snapshot === snapshot,
        partial: page.partial !== undefined,
        partialReason: page.partial === undefined ? PartialReason.UNSPECIFIED : PARTIAL_REASONS[page.partial],
        cursorSnapshot,
      });
    },

    async listCalendars(_request, context) {
      const principal = await caller(context);
      // Every replica reads the whole calq.yaml: it lists the calendars of every shard group, each with its group.
      const readable = shards
        .calendars()
        .filter((calendar) => mayRead(principal, calendar) !== undefined)
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      // Names of calendars seen only through calendar.read.any are a read like any other: audited.
      const throughReadAny = readable.filter((calendar) => mayRead(principal, calendar) === "read_any").map((calendar) => calendar.id);
      if (throughReadAny.length > 0) {
        log({
          level: "info",
          kind: "audit",
          capability: READ_ANY,
          principal: principal.id,
          calendar_ids: throughReadAny,
          method: "ListCalendars",
          correlation_id: callInfo(context)?.correlationId,
        });
      }
      const calendars = readable.map((calendar) => {
        // Undefined for a calendar of another shard group: this replica has not loaded it.
        const view = store.view(calendar.id);
        return create(CalendarInfoSchema, {
          id: calendar.id,
          displayName: calendar.name,
          timezone: view?.snapshot?.zone.name ?? calendar.timezone ?? "",
          primary: principal.primary === calendar.id,
          dataAsOf: view?.snapshot === undefined ? undefined : timestampFromMs(dataAsOf(view, view.snapshot)),
          stale: view?.stale ?? false,
          shardGroup: shards.groupOf(calendar) ?? "",
          shardKey: shards.sharded ? shardKeyOf(calendar) : "",
        });
      });
      return create(ListCalendarsResponseSchema, { calendars });
    },

    async queryFreeBusy(request, context) {
      return queryFreeBusy(freeBusyDeps, await caller(context), request, context);
    },

    async findFreeSlots(request, context) {
      return findFreeSlotsFor(freeBusyDeps, await caller(context), request, context);
    },

    async getCallerContext(_request, context) {
      const principal = await caller(context);
      return create(GetCallerContextResponseSchema, {
        principalId: principal.id,
        timezone: principal.timezone ?? "",
        currentTime: timestampFromMs(now()),
        primaryCalendarId: principal.primary ?? "",
      });
    },
  };
}

function checkLimit(limit: number): number {
  if (limit === 0) return DEFAULT_LIMIT;
  if (Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT) return limit;
  throw new CalqError(
    "INVALID_LIMIT",
    `limit ${limit} is out of range: send 1 to ${MAX_LIMIT}, or 0 for the default ${DEFAULT_LIMIT}`,
    "limit",
    {
      max_limit: String(MAX_LIMIT),
      default_limit: String(DEFAULT_LIMIT),
    },
  );
}

/** The folded words of a request's text_query (search/text-query.ts), or INVALID_TEXT_QUERY saying what to change. */
function textQueryWords(textQuery: string): readonly string[] {
  const parsed = parseTextQuery(textQuery);
  if ("words" in parsed) return parsed.words;
  const why: Record<TextQueryProblem, string> = {
    too_long: `text_query is longer than ${MAX_QUERY_CHARS} characters`,
    too_many_words: `text_query has more than ${MAX_QUERY_WORDS} words`,
    no_words: "text_query has no letter or digit; send words, or an empty text_query to search without words",
  };
  return refuseTextQuery(why[parsed.problem]);
}

function refuseTextQuery(message: string): never {
  throw new CalqError("INVALID_TEXT_QUERY", message, "text_query");
}

function expiredSnapshot(): CalqError {
  return new CalqError(
    "CURSOR_EXPIRED",
    "the data this search was paging through is no longer kept, and the feed no longer has that version; search again from the first page",
  );
}

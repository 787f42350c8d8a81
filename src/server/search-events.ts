/**
 * SearchEvents and SearchEventsAcrossCalendars (calendar_service.proto): one
 * calendar, or 1 to 50 merged, searched over a half-open window one page at
 * a time. Both run the same steps in the order a caller can act on:
 * arguments, then the calendars, then the cursor; then one paced, budgeted
 * page (search/search-occurrences.ts) over the snapshots the cursor names.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import {
  CalendarReadSchema,
  Consistency,
  CursorSnapshot,
  MatchMode,
  MatchModeSchema,
  PartialReason,
  ResolvedQuerySchema,
  type SearchEventsAcrossCalendarsRequest,
  type SearchEventsAcrossCalendarsResponse,
  SearchEventsAcrossCalendarsResponseSchema,
  type SearchEventsRequest,
  type SearchEventsResponse,
  SearchEventsResponseSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqError } from "../calq-error.js";
import type { Logger } from "../logging/logger.js";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../page-size.js";
import type { CursorBinding, CursorCodec } from "../search/cursor.js";
import type { MatchMode as EngineMatchMode } from "../search/match.js";
import {
  type PartialReason as EnginePartialReason,
  type Page,
  type Position,
  type SearchLimits,
  searchCalendarsPageSteps,
  searchPageSteps,
} from "../search/search-occurrences.js";
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, parseTextQuery, type TextQueryProblem } from "../search/text-query.js";
import { runYielding } from "../stepwise.js";
import { type CalendarView, dataAsOf, servedStale } from "../store/calendar-store.js";
import type { Snapshot } from "../store/snapshot.js";
import { type RequestWindow, resolveWindow } from "../time/request-window.js";
import type { Principal } from "./authenticator.js";
import { type CalendarAccess, checkCalendarCount, mayRead, openCalendar, openCalendars } from "./calendar-access.js";
import { callInfo } from "./call-info.js";
import { occurrenceMessage } from "./occurrence-message.js";

export interface SearchDeps {
  readonly access: CalendarAccess;
  readonly cursors: CursorCodec;
  readonly maxWindowMs: number;
  readonly log: Logger;
  readonly now: () => number;
  /** Milliseconds of work one search may do before it answers a partial page (calq.yaml search.cpu_budget). */
  readonly searchBudgetMs: number;
  /** The clock budgets and deadlines are measured on. */
  readonly clock: () => number;
}

/** The request fields both methods share, as sent. */
interface SearchFields {
  readonly start: string;
  readonly endExclusive: string;
  readonly timezone: string;
  readonly matchMode: MatchMode;
  readonly limit: number;
  readonly cursor: string;
  readonly textQuery: string;
}

/** What one page of either method found, over the snapshots it read (in the order of `views`). */
interface SearchOutcome {
  readonly window: RequestWindow;
  readonly limit: number;
  readonly words: readonly string[];
  readonly views: readonly CalendarView[];
  /** For each calendar: the caller reads it through calendar.read.any, so classified events show only their times. */
  readonly withhold: readonly boolean[];
  readonly snapshots: readonly Snapshot[];
  readonly page: Page;
  readonly nextCursor: string;
  readonly cursorSnapshot: CursorSnapshot;
}

/** Answers one SearchEvents call for `principal`. */
export async function searchEvents(
  deps: SearchDeps,
  principal: Principal,
  request: SearchEventsRequest,
  context: HandlerContext,
): Promise<SearchEventsResponse> {
  const found = await search(deps, principal, request, context, {
    across: false,
    open: () => [openCalendar(deps.access, principal, request.calendarId, "SearchEvents", callInfo(context)?.correlationId)],
    // The calendar as sent, "primary" included: a cursor of "primary" follows whichever calendar it names.
    bindingId: () => request.calendarId,
  });
  const [view] = found.views;
  const [snapshot] = found.snapshots;
  const render = {
    calendarId: view.config.id,
    calendarZone: snapshot.zone,
    requestZone: found.window.zone,
    window: found.window,
    withholdClassified: found.withhold[0],
  };
  return create(SearchEventsResponseSchema, {
    events: found.page.occurrences.map((occurrence) => occurrenceMessage(occurrence, render)),
    nextCursor: found.nextCursor,
    query: resolvedQuery(found, request.matchMode, { calendarId: view.config.id }),
    consistency: Consistency.SNAPSHOT,
    snapshotId: snapshot.id,
    dataAsOf: timestampFromMs(dataAsOf(view, snapshot)),
    stale: servedStale(view, snapshot),
    ...partialFields(found.page),
    cursorSnapshot: found.cursorSnapshot,
  });
}

/** Answers one SearchEventsAcrossCalendars call for `principal`. */
export async function searchEventsAcrossCalendars(
  deps: SearchDeps,
  principal: Principal,
  request: SearchEventsAcrossCalendarsRequest,
  context: HandlerContext,
): Promise<SearchEventsAcrossCalendarsResponse> {
  checkCalendarCount(request.calendarIds);
  const found = await search(deps, principal, request, context, {
    across: true,
    open: () =>
      openCalendars(deps.access, principal, request.calendarIds, "SearchEventsAcrossCalendars", callInfo(context)?.correlationId).sort(
        (a, b) => (a.config.id < b.config.id ? -1 : 1),
      ),
    // The set, in id order: the same calendars in another order continue the search. The space keeps
    // it apart from any one calendar's id, so a SearchEvents cursor never continues a search across calendars.
    bindingId: (views) => ["across", ...views.map((view) => view.config.id)].join(" "),
  });
  const { window, views, snapshots } = found;
  return create(SearchEventsAcrossCalendarsResponseSchema, {
    events: found.page.occurrences.map((occurrence, i) => {
      const source = found.page.sources[i];
      const render = {
        calendarId: views[source].config.id,
        calendarZone: snapshots[source].zone,
        requestZone: window.zone,
        window,
        withholdClassified: found.withhold[source],
      };
      return occurrenceMessage(occurrence, render);
    }),
    nextCursor: found.nextCursor,
    query: resolvedQuery(found, request.matchMode, { calendarIds: views.map((view) => view.config.id) }),
    calendars: views.map((view, i) =>
      create(CalendarReadSchema, {
        calendarId: view.config.id,
        snapshotId: snapshots[i].id,
        dataAsOf: timestampFromMs(dataAsOf(view, snapshots[i])),
        stale: servedStale(view, snapshots[i]),
      }),
    ),
    ...partialFields(found.page),
    cursorSnapshot: found.cursorSnapshot,
  });
}

interface Calendars {
  /** True for a search across calendars, whose order and positions name each calendar. */
  readonly across: boolean;
  /** Opens the calendars the request names (after the arguments are checked), in the order the page merges them. */
  open(): CalendarView[];
  /** What the cursor binds as the calendars searched. */
  bindingId(views: readonly CalendarView[]): string;
}

async function search(
  deps: SearchDeps,
  principal: Principal,
  request: SearchFields,
  context: HandlerContext,
  calendars: Calendars,
): Promise<SearchOutcome> {
  const { access, cursors, log, clock } = deps;
  const { store } = access;
  const limit = checkLimit(request.limit);
  const mode = engineMode(request.matchMode);
  if (mode === undefined) throw new CalqError("INVALID_MATCH_MODE", `match_mode is required: ${MODE_NAMES}`, "match_mode");
  const words = textQueryWords(request.textQuery);
  const window = resolveWindow({ start: request.start, endExclusive: request.endExclusive, timezone: request.timezone }, deps.maxWindowMs);
  const views = calendars.open();
  const withhold = views.map((view) => mayRead(principal, view.config) === "read_any");
  const binding: CursorBinding = {
    principalId: principal.id,
    calendarId: calendars.bindingId(views),
    start: window.start,
    endExclusive: window.endExclusive,
    timezone: window.timezone,
    mode,
    words,
  };

  let snapshots: Snapshot[];
  let searchStartedAt = deps.now();
  let after: Position | undefined;
  let cursorSnapshot = CursorSnapshot.UNSPECIFIED;
  if (request.cursor !== "") {
    const state = cursors.decode(request.cursor, binding);
    const ids = state.snapshotId.split(" ");
    if (ids.length !== views.length) throw expiredSnapshot();
    cursorSnapshot = CursorSnapshot.HELD;
    snapshots = [];
    for (const [i, view] of views.entries()) {
      let snapshot = store.snapshot(view.config.id, ids[i]);
      if (snapshot === undefined) {
        // Snapshot ids are digests of the feed: a cursor from another replica, or from before
        // a restart, names a version this server may not have read yet. Look once more.
        await store.reload(view.config.id);
        snapshot = store.snapshot(view.config.id, ids[i]);
        if (snapshot === undefined) throw expiredSnapshot();
        cursorSnapshot = CursorSnapshot.RECHECKED;
      }
      snapshots.push(snapshot);
    }
    searchStartedAt = state.searchStartedAt;
    after = state.position;
  } else {
    snapshots = views.map((view) => {
      if (view.snapshot === undefined) {
        throw new CalqError("PROVIDER_UNAVAILABLE", `the feed of calendar ${view.config.id} has not loaded yet; retry later`);
      }
      return view.snapshot;
    });
  }

  // The client's deadline counts from now; the search pauses for other
  // requests about every millisecond, so one expensive calendar cannot hold the others.
  const timeoutMs = context.timeoutMs();
  const started = clock();
  const limits: SearchLimits = {
    budgetMs: deps.searchBudgetMs,
    answerBy: timeoutMs === undefined ? undefined : started + answerWithin(timeoutMs),
    signal: context.signal,
    clock,
  };
  const query = { window, mode, limit, after, words, withholdClassified: withhold[0] };
  const steps = !calendars.across
    ? searchPageSteps(snapshots[0], query, limits)
    : searchCalendarsPageSteps(
        views.map((view, i) => ({ id: view.config.id, occurrences: snapshots[i], withholdClassified: withhold[i] })),
        query,
        limits,
      );
  const page = await runYielding(steps);
  const snapshotId = snapshots.map((snapshot) => snapshot.id).join(" ");
  const calendarIds = views.map((view) => view.config.id);
  if (page.partial !== undefined && page.occurrences.length === 0) {
    // Its cursor would be the request's own: a caller following it would ask the same forever.
    log({ level: "info", msg: "search stopped before placing every series", calendar_ids: calendarIds, reason: page.partial });
    const within = page.partial === "deadline" ? "the call's deadline" : "the work allowed to one call";
    throw new CalqError(
      "WORK_BUDGET_EXHAUSTED",
      `the ${calendarIds.length > 1 ? "calendars'" : "calendar's"} recurring series could not all be looked at within ${within}, so not even a first match was found; retry once${page.partial === "deadline" ? " with a longer deadline" : ""}${calendarIds.length > 1 ? ", then search fewer calendars at a time" : ""}`,
    );
  }
  if (page.partial !== undefined) {
    log({
      level: "info",
      msg: "search stopped early; the page is partial and its cursor continues",
      calendar_ids: calendarIds,
      snapshot_id: snapshotId,
      reason: page.partial,
      found: page.occurrences.length,
      elapsed_ms: Math.round(clock() - started),
    });
  }
  if (!page.complete) {
    log({
      level: "warn",
      msg: "on-demand expansion cut short; the page may miss occurrences",
      calendar_ids: calendarIds,
      snapshot_id: snapshotId,
    });
  }
  const nextCursor = page.next === undefined ? "" : cursors.encode(binding, { snapshotId, position: page.next, searchStartedAt });
  return { window, limit, words, views, withhold, snapshots, page, nextCursor, cursorSnapshot };
}

function resolvedQuery(found: SearchOutcome, matchMode: MatchMode, calendars: { calendarId?: string; calendarIds?: string[] }) {
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

const PARTIAL_REASONS: Record<EnginePartialReason, PartialReason> = {
  budget: PartialReason.BUDGET,
  deadline: PartialReason.DEADLINE,
};

function partialFields(page: Page) {
  return {
    partial: page.partial !== undefined,
    partialReason: page.partial === undefined ? PartialReason.UNSPECIFIED : PARTIAL_REASONS[page.partial],
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
  throw new CalqError("INVALID_TEXT_QUERY", why[parsed.problem], "text_query");
}

function expiredSnapshot(): CalqError {
  return new CalqError(
    "CURSOR_EXPIRED",
    "the data this search was paging through is no longer kept, and the feed no longer has that version; search again from the first page",
  );
}

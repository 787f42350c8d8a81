/**
 * Searching events (calendar_service.proto: SearchEvents and
 * SearchEventsAcrossCalendars): one calendar, or 1 to 50 merged, over a
 * half-open window, one page at a time. Both run the same steps, in the
 * order a caller can act on: arguments, then the calendars, then the cursor;
 * then one page (search/search-occurrences.ts) over the snapshots the cursor
 * names, in turns with other calls, within the work budget and the caller's
 * deadline.
 */
import { CalqError } from "../calq-error.js";
import type { Occurrence } from "../expand/occurrence.js";
import type { Snapshot } from "../ingest/snapshot.js";
import type { Logger } from "../log.js";
import type { CursorBinding, CursorCodec } from "../search/cursor.js";
import type { MatchMode } from "../search/match.js";
import type { OccurrenceFilter, ParticipationWanted } from "../search/occurrence-filter.js";
import { BEFORE_ALL, type Page, type Position, searchCalendarsPageSteps, searchPageSteps } from "../search/search-occurrences.js";
import type { CalendarView } from "../store/calendar-store.js";
import type { RequestWindow } from "../time/request-window.js";
import { requiredMode, textQueryWords, type WindowArguments, windowOf } from "./arguments.js";
import { type CalendarAccess, mayRead, openCalendar, openCalendars } from "./calendar-access.js";
import type { Call } from "./call.js";
import { refuseRemoved } from "./removed-calendars.js";
import { currentSnapshots, cursorSnapshots, type SnapshotOrigin, snapshotIdsOf } from "./snapshots.js";

export interface SearchDeps {
  readonly access: CalendarAccess;
  readonly cursors: CursorCodec;
  readonly maxWindowMs: number;
  readonly log: Logger;
  /** The wall clock (epoch milliseconds): when a search's first page was served. */
  readonly now: () => number;
  /** Units of work one call may do (calq.yaml search.work_budget). */
  readonly workBudget: number;
  /** The modes a request may send, as the contract spells them, for the refusal of none. */
  readonly modeNames: string;
}

/** What both methods take, as domain values. */
export interface SearchArguments extends WindowArguments {
  /** Undefined when the request names none (refused: there is no default). */
  readonly mode: MatchMode | undefined;
  /** The page size, 1 to the contract's maximum (the transport put the default in for 0). */
  readonly limit: number;
  readonly cursor: string;
  readonly textQuery: string;
  /** The filters the request names; an absent one filters nothing. */
  readonly filter?: FilterArguments;
}

/** A search's filters as the request names them (calendar_service.proto: SearchEventsRequest fields 20 to 23). */
export interface FilterArguments {
  readonly status?: "confirmed" | "tentative";
  readonly transparency?: "opaque" | "transparent";
  readonly participation?: ParticipationWanted;
  readonly categories: readonly string[];
}

/** The longest category a filter names. */
const MAX_CATEGORY_CHARS = 100;

/** One calendar as a page read it. */
export interface CalendarRead {
  readonly view: CalendarView;
  readonly snapshot: Snapshot;
  /** The caller reads it through calendar.read.any, so its classified events show only their times. */
  readonly withholdClassified: boolean;
}

/** One page of either method. */
export interface SearchResult {
  readonly window: RequestWindow;
  readonly mode: MatchMode;
  readonly limit: number;
  readonly words: readonly string[];
  /** The filters applied, categories lower-cased, each once. */
  readonly filter: OccurrenceFilter;
  /** The calendars read, in the order of the merge (id order across calendars). */
  readonly calendars: readonly CalendarRead[];
  /** The page's occurrences, each with the index of its calendar in `calendars`. */
  readonly found: readonly { readonly occurrence: Occurrence; readonly calendar: number }[];
  readonly nextCursor: string;
  readonly snapshotOrigin: SnapshotOrigin;
  readonly page: Page;
}

/** SearchEvents: one calendar ("primary" names the caller's). */
export function searchEvents(deps: SearchDeps, call: Call, calendarId: string, args: SearchArguments): Promise<SearchResult> {
  return search(deps, call, args, {
    across: false,
    open: async () => [await openCalendar(deps.access, call.principal, calendarId, "SearchEvents", call.correlationId)],
    // The calendar as sent, "primary" included: a cursor of "primary" follows whichever calendar it names.
    bindingId: () => calendarId,
    named: () => [calendarId === "primary" ? call.principal.primary : calendarId],
  });
}

/** SearchEventsAcrossCalendars: 1 to 50 calendars merged in (start, calendar_id, event_id) order. */
export function searchEventsAcrossCalendars(
  deps: SearchDeps,
  call: Call,
  calendarIds: readonly string[],
  args: SearchArguments,
): Promise<SearchResult> {
  return search(deps, call, args, {
    across: true,
    open: async () =>
      (await openCalendars(deps.access, call.principal, calendarIds, "SearchEventsAcrossCalendars", call.correlationId)).sort((a, b) =>
        a.config.id < b.config.id ? -1 : 1,
      ),
    // The set, in id order: the same calendars in another order continue the search. The space keeps
    // it apart from any one calendar's id, so a SearchEvents cursor never continues a search across calendars.
    bindingId: (ids) => ["across", ...ids].join(" "),
    named: () => calendarIds.map((id) => (id === "primary" ? call.principal.primary : id)).sort(),
  });
}

interface Calendars {
  /** True for a search across calendars, whose order and positions name each calendar. */
  readonly across: boolean;
  /** Opens the calendars the request names (after the arguments are checked), in the order the page merges them. */
  open(): Promise<CalendarView[]>;
  /** What the cursor binds as the calendars searched, given their ids in the order of the merge. */
  bindingId(ids: readonly string[]): string;
  /** The calendar ids the request names, "primary" resolved, in the order of the merge. */
  named(): (string | undefined)[];
}

async function search(deps: SearchDeps, call: Call, args: SearchArguments, calendars: Calendars): Promise<SearchResult> {
  const { access, cursors, log } = deps;
  const { limit } = args;
  const mode = requiredMode(args.mode, deps.modeNames);
  const words = textQueryWords(args.textQuery);
  const filter = filterOf(args.filter, call.principal.emails ?? []);
  const window = windowOf(args, deps.maxWindowMs);
  const bindingOf = (ids: readonly string[]): CursorBinding => ({
    principalId: call.principal.id,
    calendarId: calendars.bindingId(ids),
    start: window.start,
    endExclusive: window.endExclusive,
    timezone: window.timezone,
    mode,
    words,
    filter: filterBinding(filter),
  });
  const views = await calendars.open().catch((refusal: unknown) =>
    // A cursor of a calendar deleted while it paged is told so, once the cursor proves it was this caller's.
    args.cursor === ""
      ? Promise.reject(refusal)
      : refuseRemoved(access, calendars.named(), (ids) => cursorHolds(cursors, args.cursor, bindingOf(ids)), refusal),
  );
  const withhold = views.map((view) => mayRead(call.principal, view.config) === "read_any");
  const binding = bindingOf(views.map((view) => view.config.id));

  let snapshots: Snapshot[];
  let searchStartedAt = deps.now();
  let after: Position | undefined;
  let snapshotOrigin: SnapshotOrigin = "current";
  if (args.cursor !== "") {
    const state = cursors.decode(args.cursor, binding);
    ({ snapshots, origin: snapshotOrigin } = await cursorSnapshots(access.store, views, state.snapshotId));
    searchStartedAt = state.searchStartedAt;
    after = state.position;
  } else {
    snapshots = currentSnapshots(views);
  }

  const limits = { work: deps.workBudget, interrupted: () => call.interrupted() };
  const query = { window, mode, limit, after, words, withholdClassified: withhold[0], filter };
  const steps = !calendars.across
    ? searchPageSteps(snapshots[0], query, limits)
    : searchCalendarsPageSteps(
        views.map((view, i) => ({ id: view.config.id, occurrences: snapshots[i], withholdClassified: withhold[i] })),
        query,
        limits,
      );
  const page = await call.run(steps);
  const snapshotId = snapshotIdsOf(snapshots);
  const calendarIds = views.map((view) => view.config.id);
  const from = after ?? BEFORE_ALL;
  const stuck = page.next === undefined || (page.next.start === from.start && page.next.eventId === from.eventId);
  if (page.partial !== undefined && page.occurrences.length === 0 && stuck) {
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
      work: page.work,
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
  return {
    window,
    mode,
    limit,
    words,
    filter,
    calendars: views.map((view, i) => ({ view, snapshot: snapshots[i], withholdClassified: withhold[i] })),
    found: page.occurrences.map((occurrence, i) => ({ occurrence, calendar: page.sources[i] })),
    nextCursor,
    snapshotOrigin,
    page,
  };
}

/**
 * The filters a search applies: categories trimmed, lower-cased and each
 * once (INVALID_FILTER for a blank or too long one), and the caller's own
 * addresses for a participation filter (CALLER_ADDRESSES_UNKNOWN when calq
 * knows none: an answer of "nothing" would be a guess).
 */
function filterOf(args: FilterArguments | undefined, addresses: readonly string[]): OccurrenceFilter {
  if (args === undefined) return {};
  const categories = [
    ...new Set(
      args.categories.map((category) => {
        const text = category.trim().toLowerCase();
        if (text === "" || [...text].length > MAX_CATEGORY_CHARS) {
          throw new CalqError("INVALID_FILTER", `each category must hold 1 to ${MAX_CATEGORY_CHARS} characters`, "categories");
        }
        return text;
      }),
    ),
  ];
  if (args.participation !== undefined && addresses.length === 0) {
    throw new CalqError(
      "CALLER_ADDRESSES_UNKNOWN",
      "calq knows no e-mail address of yours, so your answers to invitations cannot be read; search without my_participation",
      "my_participation",
    );
  }
  return {
    ...(args.status === undefined ? {} : { status: args.status }),
    ...(args.transparency === undefined ? {} : { transparency: args.transparency }),
    ...(args.participation === undefined ? {} : { participation: args.participation, addresses }),
    ...(categories.length === 0 ? {} : { categories }),
  };
}

/** The filters as a cursor binds them: one canonical text, empty for none (the caller's addresses are theirs, bound by their id). */
function filterBinding(filter: OccurrenceFilter): string {
  const { status, transparency, participation, categories } = filter;
  if (status === undefined && transparency === undefined && participation === undefined && categories === undefined) return "";
  return JSON.stringify([status ?? "", transparency ?? "", participation ?? "", [...(categories ?? [])].sort()]);
}

/** True when `cursor` was issued for `binding` (to this caller, for these calendars and this query). */
function cursorHolds(cursors: CursorCodec, cursor: string, binding: CursorBinding): boolean {
  try {
    cursors.decode(cursor, binding);
    return true;
  } catch {
    return false;
  }
}

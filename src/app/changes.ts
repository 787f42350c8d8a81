/**
 * What changed in calendars since the caller last looked
 * (calendar_service.proto: ListChanges, WatchChanges). A change token names
 * the snapshot of each calendar the caller has seen; the answer compares
 * each with the calendar's current snapshot through the store's history
 * (store/change-history.ts), one change per event, a series counting once.
 * Calendars are opened as a search opens them, so a caller learns of
 * changes only in calendars it may read.
 */
import { CalqError } from "../calq-error.js";
import type { EventVersion } from "../expand/event-versions.js";
import type { Snapshot } from "../ingest/snapshot.js";
import type { ChangeBinding, ChangeTokenCodec } from "../search/change-token.js";
import type { CalendarView } from "../store/calendar-store.js";
import type { EventChange } from "../store/change-history.js";
import { type CalendarAccess, mayRead, openCalendars } from "./calendar-access.js";
import type { Call } from "./call.js";
import { refuseRemoved } from "./removed-calendars.js";
import { currentSnapshots } from "./snapshots.js";

export interface ChangesDeps {
  readonly access: CalendarAccess;
  readonly tokens: ChangeTokenCodec;
}

export interface ChangesArguments {
  readonly calendarIds: readonly string[];
  /** "" for a first call. */
  readonly changeToken: string;
  /** Changes per page (1 to the contract's maximum; the transport put the default in for 0). */
  readonly pageSize: number;
  /** "" for the first page. */
  readonly pageToken: string;
}

/** One change, with its calendar and whether its text may be shown to the caller. */
export interface CalendarChange extends EventChange {
  readonly calendarId: string;
  readonly withheld: boolean;
}

/** One page of changes. */
export interface ChangesPage {
  readonly changes: readonly CalendarChange[];
  readonly nextPageToken: string;
  /** Set on the last page. */
  readonly changeToken: string;
  /** The calendars, in id order, at the snapshots the changes lead to. */
  readonly calendars: readonly { readonly view: CalendarView; readonly snapshot: Snapshot }[];
}

/** Opens the calendars (in id order) and the binding their tokens carry. */
async function opened(deps: ChangesDeps, call: Call, calendarIds: readonly string[], method: string) {
  const views = (await openCalendars(deps.access, call.principal, calendarIds, method, call.correlationId)).sort((a, b) =>
    a.config.id < b.config.id ? -1 : 1,
  );
  const binding: ChangeBinding = { principalId: call.principal.id, calendarIds: views.map((view) => view.config.id) };
  return { views, binding };
}

/** ListChanges: a first call's token, or a page of what changed since one. */
export async function listChanges(deps: ChangesDeps, call: Call, args: ChangesArguments): Promise<ChangesPage> {
  const { views, binding } = await opened(deps, call, args.calendarIds, "ListChanges").catch((refusal: unknown) => {
    if (args.changeToken === "") throw refusal;
    // A token of a calendar deleted since is told so, once the token proves it was this caller's.
    const named = args.calendarIds.map((id) => (id === "primary" ? call.principal.primary : id));
    return refuseRemoved(deps.access, named, (ids) => tokenHolds(deps.tokens, args.changeToken, call.principal.id, ids), refusal);
  });
  const { store } = deps.access;
  const current = currentSnapshots(views);
  const at = (snapshotIds: readonly string[]) =>
    views.map((view, i) => ({ view, snapshot: store.snapshot(view.config.id, snapshotIds[i]) ?? current[i] }));
  if (args.changeToken === "") {
    return {
      changes: [],
      nextPageToken: "",
      changeToken: deps.tokens.token(
        binding,
        current.map((snapshot) => snapshot.id),
      ),
      calendars: at([]),
    };
  }
  const seen = deps.tokens.readToken(args.changeToken, binding);
  const page =
    args.pageToken === ""
      ? { from: seen, to: current.map((snapshot) => snapshot.id), after: "" }
      : deps.tokens.readPage(args.pageToken, binding);
  if (page.from.some((id, i) => id !== seen[i])) {
    throw new CalqError("INVALID_CHANGE_TOKEN", "the page token belongs to another change token: send the one it came with", "page_token");
  }
  const all: CalendarChange[] = [];
  for (const [i, view] of views.entries()) {
    const changes = store.changes(view.config.id, page.from[i], page.to[i]);
    if (changes === undefined) throw expired();
    const withheld = mayRead(call.principal, view.config) === "read_any";
    for (const change of changes) all.push({ ...change, calendarId: view.config.id, withheld });
  }
  const positionOf = (change: CalendarChange) => `${change.calendarId} ${change.key}`;
  const rest = page.after === "" ? all : all.filter((change) => positionOf(change) > page.after);
  const changes = rest.slice(0, args.pageSize);
  const more = rest.length > changes.length;
  return {
    changes,
    nextPageToken: more ? deps.tokens.pageToken(binding, { ...page, after: positionOf(changes.at(-1)!) }) : "",
    changeToken: more ? "" : deps.tokens.token(binding, page.to),
    calendars: at(page.to),
  };
}

/** True when `token` was issued to `principalId` for `calendarIds`. */
function tokenHolds(tokens: ChangeTokenCodec, token: string, principalId: string, calendarIds: readonly string[]): boolean {
  try {
    tokens.readToken(token, { principalId, calendarIds: [...calendarIds].sort() });
    return true;
  } catch {
    return false;
  }
}

function expired(): CalqError {
  return new CalqError(
    "CHANGE_TOKEN_EXPIRED",
    "the change token names calendar data this server no longer remembers: search again for what matters now, and call without a token to take a new one",
  );
}

/** A notice of a calendar's new snapshot: counts since the caller's last notice of it. */
export interface ChangeNotice {
  readonly calendarId: string;
  readonly snapshot: Snapshot;
  readonly dataAsOf: number;
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
}

/** Counts of the kinds of `changes`. */
export function countKinds(changes: readonly EventChange[]): Pick<ChangeNotice, "added" | "changed" | "removed"> {
  let added = 0;
  let changed = 0;
  let removed = 0;
  for (const change of changes) {
    if (change.before === undefined) added++;
    else if (change.after === undefined) removed++;
    else changed++;
  }
  return { added, changed, removed };
}

/** The version a change shows: after, or before when removed. */
export function shownVersion(change: EventChange): EventVersion {
  return (change.after ?? change.before)!;
}

/** Watch streams one caller may hold at once. */
export const MAX_WATCHES_PER_CALLER = 4;
/** Watch streams the server holds at once. */
export const MAX_WATCHES = 1_000;

/** The places for watch streams, per caller and in all. */
export class WatchPlaces {
  private open = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(
    private readonly perCaller = MAX_WATCHES_PER_CALLER,
    private readonly total = MAX_WATCHES,
  ) {}

  /** Takes a place for `caller`, or refuses TOO_MANY_WATCHES; the returned function gives it back (once). */
  take(caller: string): () => void {
    const held = this.byCaller.get(caller) ?? 0;
    if (held >= this.perCaller || this.open >= this.total) {
      throw new CalqError(
        "TOO_MANY_WATCHES",
        held >= this.perCaller
          ? `you hold ${this.perCaller} watch streams, as many as one caller may: close one first`
          : "the server holds as many watch streams as it allows: retry later with backoff",
      );
    }
    this.open++;
    this.byCaller.set(caller, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.open--;
      const left = (this.byCaller.get(caller) ?? 1) - 1;
      if (left === 0) this.byCaller.delete(caller);
      else this.byCaller.set(caller, left);
    };
  }
}

export interface WatchDeps {
  readonly access: CalendarAccess;
  readonly places: WatchPlaces;
  /** Aborted when the server drains: every watch then ends. */
  readonly draining: AbortSignal;
}

/**
 * WatchChanges: a notice per calendar for the snapshot it is at, then one
 * per new snapshot, until the caller leaves (`left`) or the server drains.
 * Snapshots that arrive while the caller has not taken the last notice
 * merge into one notice per calendar, so a slow reader costs at most one
 * pending notice per calendar.
 */
export async function* watchChanges(
  deps: WatchDeps,
  call: Call,
  calendarIds: readonly string[],
  left: AbortSignal,
): AsyncGenerator<ChangeNotice> {
  const views = await openCalendars(deps.access, call.principal, calendarIds, "WatchChanges", call.correlationId);
  const current = currentSnapshots(views);
  const release = deps.places.take(call.principal.id);
  const { store } = deps.access;
  const sent = new Map(views.map((view, i) => [view.config.id, current[i]]));
  const pending = new Set<string>();
  let wake: (() => void) | undefined;
  const stop = store.onSnapshot((calendarId) => {
    if (!sent.has(calendarId)) return;
    pending.add(calendarId);
    wake?.();
  });
  // A watched calendar deleted (from the registry) ends the stream: the caller was reading it, so it may know.
  let removed: string | undefined;
  const stopRemovals = store.onRemoved((calendarId) => {
    if (!sent.has(calendarId)) return;
    removed ??= calendarId;
    wake?.();
  });
  const stopped = () => left.aborted || deps.draining.aborted;
  const onStop = () => wake?.();
  left.addEventListener("abort", onStop);
  deps.draining.addEventListener("abort", onStop);
  try {
    for (const snapshot of current) {
      yield { calendarId: snapshot.calendarId, snapshot, dataAsOf: snapshot.dataAsOf, added: 0, changed: 0, removed: 0 };
    }
    while (!stopped()) {
      if (removed !== undefined) {
        throw new CalqError(
          "CALENDAR_REMOVED",
          "a calendar this watch follows has been removed, and its events with it; the watch ends: watch the others again if you need them",
          undefined,
          { calendar_id: removed },
        );
      }
      if (pending.size === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      const [calendarId] = pending;
      pending.delete(calendarId);
      const snapshot = store.view(calendarId)?.snapshot;
      const before = sent.get(calendarId);
      if (snapshot === undefined || before === undefined || snapshot.id === before.id) continue;
      sent.set(calendarId, snapshot);
      const counts = countKinds(store.changes(calendarId, before.id, snapshot.id) ?? []);
      yield { calendarId, snapshot, dataAsOf: snapshot.dataAsOf, ...counts };
    }
  } finally {
    stop();
    stopRemovals();
    left.removeEventListener("abort", onStop);
    deps.draining.removeEventListener("abort", onStop);
    release();
  }
}

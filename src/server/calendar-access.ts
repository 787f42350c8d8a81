/**
 * Who may read which calendar (docs/operating.md: Who is calling). A reader listed on the calendar may
 * read it, given the calendar.read capability (which calq.yaml principals
 * hold implicitly); anyone else needs calendar.read.any, and such reads
 * are audit-logged. "primary" names the caller's own primary calendar. An
 * unknown calendar and a forbidden one give the same error, byte for byte.
 */
import { CalqError } from "../calq-error.js";
import { READ, READ_ANY } from "../config/capabilities.js";
import type { Logger } from "../logging/logger.js";
import { MAX_CALENDARS_PER_REQUEST } from "../page-size.js";
import type { CalendarStore, CalendarView } from "../store/calendar-store.js";
import type { Principal } from "./authenticator.js";

/** The one refusal for unknown and forbidden calendars alike. */
function notAccessible(): CalqError {
  return new CalqError(
    "CALENDAR_NOT_ACCESSIBLE",
    "the calendar does not exist or you may not read it; stop, and do not guess other calendar ids",
  );
}

export function mayRead(principal: Principal, view: CalendarView): "reader" | "read_any" | undefined {
  if (view.config.readers.includes(principal.id) && principal.capabilities.includes(READ)) return "reader";
  return principal.capabilities.includes(READ_ANY) ? "read_any" : undefined;
}

/** The calendar a caller asks for, if the caller may read it; audit-logs reads through calendar.read.any. */
export function openCalendar(
  store: CalendarStore,
  principal: Principal,
  requestedId: string,
  method: string,
  log: Logger,
  /** The call's correlation id, so the audit line and the RPC line can be matched. */
  correlationId?: string,
): CalendarView {
  const calendarId = requestedId === "primary" ? principal.primary : requestedId;
  const view = calendarId === undefined ? undefined : store.view(calendarId);
  const access = view === undefined ? undefined : mayRead(principal, view);
  if (view === undefined || access === undefined) throw notAccessible();
  if (access === "read_any") {
    log({
      level: "info",
      kind: "audit",
      capability: READ_ANY,
      principal: principal.id,
      calendar_id: view.config.id,
      method,
      correlation_id: correlationId,
    });
  }
  return view;
}

/**
 * The 1 to 50 calendars a request names, each opened as `openCalendar` opens
 * one (any the caller may not read refuses the whole request), in the order
 * named. INVALID_CALENDAR_IDS for none, too many, or one named twice.
 */
export function openCalendars(
  store: CalendarStore,
  principal: Principal,
  requestedIds: readonly string[],
  method: string,
  log: Logger,
  correlationId?: string,
): CalendarView[] {
  checkCalendarCount(requestedIds);
  const views = requestedIds.map((id) => openCalendar(store, principal, id, method, log, correlationId));
  const seen = new Set<string>();
  for (const view of views) {
    if (seen.has(view.config.id)) {
      throw invalidIds(`calendar ${view.config.id} is named twice (as "primary" and by its id, or twice by its id)`);
    }
    seen.add(view.config.id);
  }
  return views;
}

/** INVALID_CALENDAR_IDS for no calendar or more than 50: an argument check, made before any calendar is opened. */
export function checkCalendarCount(requestedIds: readonly string[]): void {
  if (requestedIds.length === 0 || requestedIds.length > MAX_CALENDARS_PER_REQUEST) {
    throw invalidIds(`send 1 to ${MAX_CALENDARS_PER_REQUEST} calendar ids, not ${requestedIds.length}`);
  }
}

function invalidIds(message: string): CalqError {
  return new CalqError("INVALID_CALENDAR_IDS", message, "calendar_ids");
}

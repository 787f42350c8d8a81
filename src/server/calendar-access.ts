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

/**
 * One event by its event_id (calendar_service.proto: GetEvent), with what
 * calq keeps about it beyond a search result. The calendar is opened as a
 * search opens it; the look-up (search/find-event.ts) runs in turns with
 * other calls, within the work budget and the caller's deadline.
 */
import { CalqError } from "../calq-error.js";
import type { Occurrence } from "../expand/occurrence.js";
import type { Snapshot } from "../ingest/snapshot.js";
import { findOccurrenceSteps } from "../search/find-event.js";
import type { CalendarView } from "../store/calendar-store.js";
import { requestZone } from "../time/request-window.js";
import type { ZoneRules } from "../time/zone-rules.js";
import { type CalendarAccess, mayRead, openCalendar } from "./calendar-access.js";
import type { Call } from "./call.js";
import { currentSnapshots } from "./snapshots.js";

export interface GetEventDeps {
  readonly access: CalendarAccess;
  /** Units of work one call may do (calq.yaml search.work_budget). */
  readonly workBudget: number;
}

export interface GetEventArguments {
  readonly calendarId: string;
  readonly eventId: string;
  /** The zone local times are shown in; "" for the calendar's own. */
  readonly timezone: string;
}

export interface EventFound {
  readonly view: CalendarView;
  readonly snapshot: Snapshot;
  readonly occurrence: Occurrence;
  /** The zone its local times are shown in: the request's, else the calendar's. */
  readonly zone: ZoneRules;
  /** The caller reads the calendar through calendar.read.any: a classified event shows only its times. */
  readonly withholdClassified: boolean;
}

/** The occurrence `eventId` names in the calendar, for `call`'s caller. */
export async function getEvent(deps: GetEventDeps, call: Call, args: GetEventArguments): Promise<EventFound> {
  const zone = args.timezone === "" ? undefined : requestZone(args.timezone);
  const view = await openCalendar(deps.access, call.principal, args.calendarId, "GetEvent", call.correlationId);
  const [snapshot] = currentSnapshots([view]);
  const found = await call.run(
    findOccurrenceSteps(snapshot, args.eventId, { work: deps.workBudget, interrupted: () => call.interrupted() }),
  );
  if ("missing" in found) {
    if (found.missing === "budget" || found.missing === "deadline") {
      const within = found.missing === "deadline" ? "the call's deadline" : "the work allowed to one call";
      throw new CalqError(
        "WORK_BUDGET_EXHAUSTED",
        `the calendar holds too many recurring series to find this event within ${within}; retry once${found.missing === "deadline" ? " with a longer deadline" : ""}, then search a narrow window around its time instead`,
        undefined,
        { stopped_by: found.missing },
      );
    }
    throw new CalqError(
      "EVENT_NOT_FOUND",
      "the calendar has no event with this event_id now; search again and use an event_id from the results",
      "event_id",
    );
  }
  return {
    view,
    snapshot,
    occurrence: found.occurrence,
    zone: zone ?? snapshot.zone,
    withholdClassified: mayRead(call.principal, view.config) === "read_any",
  };
}

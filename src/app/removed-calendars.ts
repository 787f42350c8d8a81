/**
 * What a cursor or a change token of a deleted calendar gets
 * (calendar_service.proto: REASON_CALENDAR_REMOVED). A registry calendar can
 * be deleted while a caller pages it or follows its changes; opening it then
 * fails as for any unknown calendar, with CALENDAR_NOT_ACCESSIBLE, which
 * tells a model to stop and never guess again. A caller whose cursor or
 * token proves it was given that calendar (both are signed and bound to the
 * caller and the calendars) learns instead that the calendar was removed: it
 * knew the calendar existed, so nothing leaks. Anyone else, or a calendar
 * that still exists but the caller may no longer read, gets the refusal the
 * opening gave.
 */
import { CalqError } from "../calq-error.js";
import { type CalendarAccess, findCalendar } from "./calendar-access.js";

/**
 * Rejects with CALENDAR_REMOVED when `heldBefore` says the caller was given
 * `calendarIds` (resolved, in the order asked) by a cursor or token of its
 * own, and one of them no longer exists anywhere; otherwise with `refusal`,
 * the opening's own.
 */
export async function refuseRemoved(
  access: Pick<CalendarAccess, "shards" | "elsewhere">,
  calendarIds: readonly (string | undefined)[],
  heldBefore: (calendarIds: readonly string[]) => boolean,
  refusal: unknown,
): Promise<never> {
  if (!(refusal instanceof CalqError) || refusal.reason !== "CALENDAR_NOT_ACCESSIBLE") throw refusal;
  const ids = calendarIds.filter((id) => id !== undefined);
  if (ids.length !== calendarIds.length || !heldBefore(ids)) throw refusal;
  for (const id of ids) {
    const found = await findCalendar(access, id).catch(() => {
      throw refusal;
    });
    if (found === undefined) {
      throw new CalqError(
        "CALENDAR_REMOVED",
        "the calendar has been removed, and its events with it; stop paging or following it, and do not search it again",
        undefined,
        { calendar_id: id },
      );
    }
  }
  throw refusal;
}

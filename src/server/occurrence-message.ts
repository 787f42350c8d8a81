/**
 * Occurrences as contract messages (calendar_service.proto: EventOccurrence): instants as Timestamps, local
 * renderings in the request's zone, and the dates of all-day events in the
 * calendar's zone, so an all-day event is never shown a day early or late.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  type EventOccurrence,
  EventOccurrenceSchema,
  EventStatus,
  Transparency,
  WindowRelation,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { eventIdOf, type Occurrence, recurrenceIdOf } from "../expand/occurrence.js";
import { type Window, windowRelation } from "../search/match.js";
import { formatDate, formatInZone } from "../time/civil.js";
import { localDayOf, shiftedDay, weekdayOfDate } from "../time/local-day.js";
import { instantToLocal, type ZoneRules } from "../time/zone-rules.js";

const RELATIONS = {
  inside: WindowRelation.INSIDE,
  crossesStart: WindowRelation.CROSSES_START,
  crossesEnd: WindowRelation.CROSSES_END,
  spans: WindowRelation.SPANS,
  instant: WindowRelation.INSTANT,
} as const;

const STATUSES = { CONFIRMED: EventStatus.CONFIRMED, TENTATIVE: EventStatus.TENTATIVE, "": EventStatus.UNSPECIFIED } as const;

export interface RenderContext {
  readonly calendarId: string;
  readonly calendarZone: ZoneRules;
  readonly requestZone: ZoneRules;
  /** The search window; none for GetEvent, whose occurrence has no window relation. */
  readonly window?: Window;
  /** The caller reads through calendar.read.any: PRIVATE and CONFIDENTIAL events show only when they are. */
  readonly withholdClassified: boolean;
}

/** Whether the text of this occurrence's event is withheld from the caller (see GetEventResponse). */
export function withheld(occurrence: Occurrence, context: Pick<RenderContext, "withholdClassified">): boolean {
  return context.withholdClassified && occurrence.details.classified === true;
}

export function occurrenceMessage(occurrence: Occurrence, context: RenderContext): EventOccurrence {
  const { details, start, end } = occurrence;
  const hidden = withheld(occurrence, context);
  const first = localDayOf(start, context.requestZone);
  const last = localDayOf(end, context.requestZone);
  const startDate = details.allDay ? formatDate(instantToLocal(context.calendarZone, start)) : "";
  const endDateExclusive = details.allDay ? formatDate(instantToLocal(context.calendarZone, end)) : "";
  const lastDay = details.allDay ? shiftedDay(endDateExclusive, -1) : undefined;
  return create(EventOccurrenceSchema, {
    eventId: eventIdOf(occurrence),
    uid: hidden ? "" : details.uid,
    recurrenceId: recurrenceIdOf(occurrence),
    calendarId: context.calendarId,
    summary: hidden ? "" : details.summary,
    location: hidden ? "" : details.location,
    startTime: timestampFromMs(start),
    endTime: timestampFromMs(end),
    startLocal: formatInZone(start, context.requestZone),
    endLocal: formatInZone(end, context.requestZone),
    allDay: details.allDay,
    startDate,
    endDateExclusive,
    eventTimezone: details.eventTimezone,
    status: STATUSES[details.status],
    transparency: details.transparent ? Transparency.TRANSPARENT : Transparency.OPAQUE,
    windowRelation: context.window === undefined ? WindowRelation.UNSPECIFIED : RELATIONS[windowRelation(occurrence, context.window)],
    lastModified: details.lastModified === undefined ? undefined : timestampFromMs(details.lastModified),
    detailsWithheld: hidden,
    startLocalDate: first.date,
    startLocalWeekday: first.weekday,
    endLocalDate: last.date,
    endLocalWeekday: last.weekday,
    lastDate: lastDay?.date ?? "",
    startDateWeekday: details.allDay ? weekdayOfDate(startDate) : "",
    lastDateWeekday: lastDay?.weekday ?? "",
  });
}

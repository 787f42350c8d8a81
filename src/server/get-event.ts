/**
 * GetEvent (calendar_service.proto): one occurrence by its event_id, with
 * what calq keeps about its event beyond a search result. The calendar is
 * opened as a search opens it; the look-up is paced and budgeted like a
 * search page (search/find-event.ts).
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import {
  AttendeeSchema,
  Classification,
  EventLinkSchema,
  type GetEventRequest,
  type GetEventResponse,
  GetEventResponseSchema,
  LinkSource,
  Participation,
  PersonSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqError } from "../calq-error.js";
import { ruleInWords } from "../expand/recurrence-rule.js";
import type {
  Classification as AboutClassification,
  LinkSource as AboutLinkSource,
  Participation as AboutParticipation,
  Person,
} from "../ics/event-about.js";
import type { Logger } from "../logging/logger.js";
import { findOccurrenceSteps } from "../search/find-event.js";
import { runYielding } from "../stepwise.js";
import { dataAsOf } from "../store/calendar-store.js";
import { requestZone } from "../time/request-window.js";
import type { Principal } from "./authenticator.js";
import { type CalendarAccess, mayRead, openCalendar } from "./calendar-access.js";
import { callInfo } from "./call-info.js";
import { occurrenceMessage, withheld } from "./occurrence-message.js";

export interface GetEventDeps {
  readonly access: CalendarAccess;
  readonly log: Logger;
  readonly searchBudgetMs: number;
  readonly clock: () => number;
}

const PARTICIPATIONS: Record<AboutParticipation, Participation> = {
  "NEEDS-ACTION": Participation.NEEDS_ACTION,
  ACCEPTED: Participation.ACCEPTED,
  DECLINED: Participation.DECLINED,
  TENTATIVE: Participation.TENTATIVE,
  DELEGATED: Participation.DELEGATED,
  "": Participation.UNSPECIFIED,
};

const LINK_SOURCES: Record<AboutLinkSource, LinkSource> = {
  url: LinkSource.URL,
  conference: LinkSource.CONFERENCE,
  description: LinkSource.DESCRIPTION,
  location: LinkSource.LOCATION,
};

const CLASSIFICATIONS: Record<AboutClassification, Classification> = {
  PUBLIC: Classification.PUBLIC,
  PRIVATE: Classification.PRIVATE,
  CONFIDENTIAL: Classification.CONFIDENTIAL,
};

/** Answers one GetEvent call for `principal`. */
export async function getEvent(
  deps: GetEventDeps,
  principal: Principal,
  request: GetEventRequest,
  context: HandlerContext,
): Promise<GetEventResponse> {
  const zone = request.timezone === "" ? undefined : requestZone(request.timezone);
  const view = openCalendar(deps.access, principal, request.calendarId, "GetEvent", callInfo(context)?.correlationId);
  const snapshot = view.snapshot;
  if (snapshot === undefined) throw new CalqError("PROVIDER_UNAVAILABLE", "the calendar's feed has not loaded yet; retry later");
  const found = await runYielding(
    findOccurrenceSteps(snapshot, request.eventId, { budgetMs: deps.searchBudgetMs, signal: context.signal, clock: deps.clock }),
  );
  if ("missing" in found) {
    if (found.missing === "budget") {
      throw new CalqError(
        "WORK_BUDGET_EXHAUSTED",
        "the calendar holds too many recurring series to find this event within the work allowed to one call; retry once, then search a narrow window around its time instead",
      );
    }
    throw new CalqError(
      "EVENT_NOT_FOUND",
      "the calendar has no event with this event_id now; search again and use an event_id from the results",
      "event_id",
    );
  }
  const { occurrence } = found;
  const render = {
    calendarId: view.config.id,
    calendarZone: snapshot.zone,
    requestZone: zone ?? snapshot.zone,
    withholdClassified: mayRead(principal, view.config) === "read_any",
  };
  const hidden = withheld(occurrence, render);
  const about = occurrence.details.about;
  const text = hidden || about === undefined ? undefined : about;
  const rules = about?.rrules ?? [];
  return create(GetEventResponseSchema, {
    event: occurrenceMessage(occurrence, render),
    description: text?.description ?? "",
    descriptionTruncated: text?.descriptionCut ?? false,
    organizer: text?.organizer === undefined ? undefined : personMessage(text.organizer),
    attendees: (text?.attendees ?? []).map((attendee) =>
      create(AttendeeSchema, {
        person: personMessage(attendee),
        participation: PARTICIPATIONS[attendee.participation],
        role: attendee.role,
      }),
    ),
    attendeeCount: text?.attendeeCount ?? 0,
    links: (text?.links ?? []).map((link) => create(EventLinkSchema, { url: link.url, source: LINK_SOURCES[link.source] })),
    categories: [...(text?.categories ?? [])],
    classification: CLASSIFICATIONS[about?.classification ?? "PUBLIC"],
    detailsWithheld: hidden,
    recurrenceRules: [...rules],
    recurrenceText: rules
      .map(ruleInWords)
      .filter((words) => words !== "")
      .join("; and "),
    calendarTimezone: snapshot.zone.name,
    snapshotId: snapshot.id,
    dataAsOf: timestampFromMs(dataAsOf(view, snapshot)),
    stale: view.stale,
  });
}

function personMessage(person: Person) {
  return create(PersonSchema, { name: person.name, address: person.address });
}

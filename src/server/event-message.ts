/**
 * GetEvent's answer as contract messages (calendar_service.proto:
 * GetEventResponse): the occurrence as a search shows it, and what calq
 * keeps about its event beyond that, withheld where the caller may see only
 * times.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  AttendeeSchema,
  Classification,
  EventLinkSchema,
  type GetEventResponse,
  GetEventResponseSchema,
  LinkSource,
  Participation,
  PersonSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import type { EventFound } from "../app/get-event.js";
import { ruleInWords } from "../expand/recurrence-rule.js";
import type {
  Classification as AboutClassification,
  LinkSource as AboutLinkSource,
  Participation as AboutParticipation,
  Person,
} from "../ics/event-about.js";
import { dataAsOf } from "../store/calendar-store.js";
import { occurrenceMessage, withheld } from "./occurrence-message.js";

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

/** The message of an event GetEvent found. */
export function eventResponse(found: EventFound): GetEventResponse {
  const { occurrence, view, snapshot } = found;
  const render = {
    calendarId: view.config.id,
    calendarZone: snapshot.zone,
    requestZone: found.zone,
    withholdClassified: found.withholdClassified,
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

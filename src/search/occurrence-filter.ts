/**
 * Filters of a search beyond its window and words (calendar_service.proto:
 * SearchEventsRequest.status, transparency, my_participation, categories):
 * each one given must hold. The caller's participation is the PARTSTAT of
 * the first ATTENDEE whose address is one of the caller's, so "hide what I
 * declined" and "what did I accept" each have one meaning:
 *
 * - no such ATTENDEE (the caller is not invited, or the event lists nobody):
 *   no answer; only not_declined keeps it;
 * - an ATTENDEE without PARTSTAT has not answered (RFC 5545's default
 *   NEEDS-ACTION);
 * - DELEGATED is an answer of its own: only not_declined keeps it.
 *
 * An event whose text the caller may not read (EventDetails.classified,
 * read through calendar.read.any) shows neither attendees nor categories:
 * it has no answer and no category here, as its words never match.
 */
import type { Occurrence } from "../expand/occurrence.js";
import type { Participation } from "../ics/event-about.js";

/** The caller's answer a search keeps. */
export type ParticipationWanted = "not_declined" | "accepted" | "tentative" | "needs_action" | "declined";

/** What a search keeps besides its window and words; an absent field keeps everything. */
export interface OccurrenceFilter {
  /** "confirmed" keeps STATUS:CONFIRMED and events without STATUS. */
  readonly status?: "confirmed" | "tentative";
  readonly transparency?: "opaque" | "transparent";
  readonly participation?: ParticipationWanted;
  /** The caller's e-mail addresses, lower case; read only with `participation`. */
  readonly addresses?: readonly string[];
  /** Lower case, each once; an occurrence must have one of them. Empty keeps everything. */
  readonly categories?: readonly string[];
}

/** Whether a filter keeps everything, so a search need not ask it. */
export function filtersNothing(filter: OccurrenceFilter | undefined): boolean {
  return (
    filter === undefined ||
    (filter.status === undefined &&
      filter.transparency === undefined &&
      filter.participation === undefined &&
      (filter.categories ?? []).length === 0)
  );
}

/** Whether `filter` keeps the occurrence; `withheld` when its text is withheld from the caller. */
export function keeps(filter: OccurrenceFilter, occurrence: Occurrence, withheld: boolean): boolean {
  const { details } = occurrence;
  if (filter.status !== undefined && (details.status === "TENTATIVE" ? "tentative" : "confirmed") !== filter.status) return false;
  if (filter.transparency !== undefined && (details.transparent ? "transparent" : "opaque") !== filter.transparency) return false;
  const about = withheld && details.classified === true ? undefined : details.about;
  if (
    filter.participation !== undefined &&
    !participationKept(filter.participation, answerOf(about?.attendees ?? [], filter.addresses ?? []))
  ) {
    return false;
  }
  const categories = filter.categories ?? [];
  if (categories.length > 0) {
    const own = about?.categories ?? [];
    if (!own.some((category) => categories.includes(category.toLowerCase()))) return false;
  }
  return true;
}

/** The caller's answer: the PARTSTAT of the first ATTENDEE with one of their addresses; undefined when none has one. */
function answerOf(attendees: readonly { readonly address: string; readonly participation: Participation }[], addresses: readonly string[]) {
  const own = attendees.find((attendee) => addresses.includes(attendee.address.toLowerCase()));
  if (own === undefined) return undefined;
  return own.participation === "" ? "NEEDS-ACTION" : own.participation;
}

function participationKept(wanted: ParticipationWanted, answer: Exclude<Participation, ""> | undefined): boolean {
  switch (wanted) {
    case "not_declined":
      return answer !== "DECLINED";
    case "accepted":
      return answer === "ACCEPTED";
    case "tentative":
      return answer === "TENTATIVE";
    case "needs_action":
      return answer === "NEEDS-ACTION";
    case "declined":
      return answer === "DECLINED";
  }
}

/**
 * What a follow-up question about one event needs and a search does not
 * (GetEvent, calendar_service.proto): the description, organizer, attendees
 * and how each answered, links, categories, CLASS and the recurrence rule as
 * written. Read from a VEVENT's properties as ical.js gives them (jCal), each
 * bounded so one producer's huge value cannot grow a snapshot without limit.
 */
import ICAL from "ical.js";
import { ownString } from "./own-string.js";

export type Participation = "NEEDS-ACTION" | "ACCEPTED" | "DECLINED" | "TENTATIVE" | "DELEGATED" | "";

export interface Person {
  /** CN, when the producer gives one. */
  readonly name: string;
  /** The address without "mailto:"; the value as written when it is not a mailto: address. */
  readonly address: string;
}

export interface Attendee extends Person {
  readonly participation: Participation;
  /** ROLE: "REQ-PARTICIPANT", "OPT-PARTICIPANT", "CHAIR", "NON-PARTICIPANT", or "" when absent. */
  readonly role: string;
}

/** Where a link was found. */
export type LinkSource = "url" | "conference" | "description" | "location";

export interface EventLink {
  readonly url: string;
  readonly source: LinkSource;
}

/** CLASS: PRIVATE and CONFIDENTIAL events withhold their text from callers who read through calendar.read.any. */
export type Classification = "PUBLIC" | "PRIVATE" | "CONFIDENTIAL";

export interface EventAbout {
  /** DESCRIPTION, cut at MAX_DESCRIPTION characters. */
  readonly description: string;
  readonly descriptionCut: boolean;
  readonly organizer?: Person;
  /** At most MAX_ATTENDEES, in the order written. */
  readonly attendees: readonly Attendee[];
  /** How many ATTENDEE lines there were, counting those past MAX_ATTENDEES. */
  readonly attendeeCount: number;
  /** URL, X-GOOGLE-CONFERENCE, then links in the description and the location; each once, at most MAX_LINKS. */
  readonly links: readonly EventLink[];
  readonly categories: readonly string[];
  /**
   * CLASS as written, an unknown value read as PRIVATE (RFC 5545); absent
   * when the event writes none, which RFC 5545 reads as PUBLIC and an
   * override (RECURRENCE-ID) reads as its series' CLASS.
   */
  readonly classification?: Classification;
  /** Each RRULE as RFC 5545 text ("FREQ=WEEKLY;BYDAY=MO"). */
  readonly rrules: readonly string[];
}

/** What an event without any of it keeps: nothing (an override takes its series' CLASS onto it). */
export function emptyAbout(): EventAbout {
  return { description: "", descriptionCut: false, attendees: [], attendeeCount: 0, links: [], categories: [], rrules: [] };
}

export const MAX_DESCRIPTION = 4_000;
export const MAX_ATTENDEES = 100;
export const MAX_LINKS = 20;
const MAX_CATEGORIES = 20;
const MAX_VALUE = 500;

type JCalProperty = [string, Record<string, unknown>, string, ...unknown[]];

const PARTICIPATION: ReadonlySet<string> = new Set(["NEEDS-ACTION", "ACCEPTED", "DECLINED", "TENTATIVE", "DELEGATED"]);
/** http(s) links in free text, up to the first space, quote or angle bracket; trailing punctuation is not part of them. */
const LINK = /https?:\/\/[^\s"'<>]+/g;
const TRAILING = new Set([".", ",", ";", ":", "!", "?", ")", "]", "}"]);

/** The link without the sentence's punctuation after it ("see https://x.example/a."), in one pass from the end. */
function withoutTrailingPunctuation(url: string): string {
  let end = url.length;
  while (end > 0 && TRAILING.has(url[end - 1])) end--;
  return url.slice(0, end);
}

/** The properties aboutOf reads besides DESCRIPTION and LOCATION. */
const ABOUT_PROPERTIES: ReadonlySet<string> = new Set([
  "attendee",
  "organizer",
  "url",
  "x-google-conference",
  "class",
  "categories",
  "rrule",
]);

/**
 * The facts of `properties` (a VEVENT's, as jCal) that only a look at one
 * event needs; undefined when there are none (most events of most feeds: no
 * description, no people, no links), so such events cost nothing more.
 */
export function aboutOf(properties: readonly JCalProperty[], description: string, location: string): EventAbout | undefined {
  if (description === "" && !location.includes("http") && !properties.some((property) => ABOUT_PROPERTIES.has(property[0]))) {
    return undefined;
  }
  const values = (name: string) => properties.filter((property) => property[0] === name);
  const attendeeLines = values("attendee");
  const organizer = values("organizer")[0];
  const links = new LinkList();
  for (const property of values("url")) links.add(textOf(property[3]), "url");
  for (const property of values("x-google-conference")) links.add(textOf(property[3]), "conference");
  for (const url of description.match(LINK) ?? []) links.add(url, "description");
  for (const url of location.match(LINK) ?? []) links.add(url, "location");
  const classProperty = values("class")[0];
  return {
    description: description.slice(0, MAX_DESCRIPTION),
    descriptionCut: description.length > MAX_DESCRIPTION,
    ...(organizer === undefined ? {} : { organizer: personOf(organizer) }),
    attendees: attendeeLines.slice(0, MAX_ATTENDEES).map((property) => {
      const participation = textOf(property[1].partstat).toUpperCase();
      return {
        ...personOf(property),
        participation: (PARTICIPATION.has(participation) ? participation : "") as Participation,
        role: bounded(textOf(property[1].role).toUpperCase()),
      };
    }),
    attendeeCount: attendeeLines.length,
    links: links.items,
    categories: [
      ...new Set(
        values("categories")
          .flatMap((property) => property.slice(3))
          .map((value) => bounded(textOf(value).trim())),
      ),
    ]
      .filter((category) => category !== "")
      .slice(0, MAX_CATEGORIES),
    ...(classProperty === undefined ? {} : { classification: classificationOf(textOf(classProperty[3])) }),
    rrules: values("rrule").flatMap((property) => property.slice(3).flatMap(recurText)),
  };
}

function personOf(property: JCalProperty): Person {
  return { name: bounded(textOf(property[1].cn)), address: bounded(textOf(property[3]).replace(/^mailto:/i, "")) };
}

/**
 * A written CLASS as RFC 5545 reads it: any value an application does not
 * know (an x-name, a typo) is treated as PRIVATE, so an unknown value never
 * shows what its producer meant to hide.
 */
function classificationOf(text: string): Classification {
  const upper = text.trim().toUpperCase();
  return upper === "PUBLIC" || upper === "CONFIDENTIAL" ? upper : "PRIVATE";
}

/**
 * A value or parameter as text: ical.js gives strings, but a producer's
 * VALUE= can make it an object (VALUE=RECUR) and a repeated parameter an
 * array; anything else has no reading here and counts as empty.
 */
function textOf(value: unknown): string {
  if (typeof value === "string") return ownString(value);
  if (Array.isArray(value)) return value.filter((part) => typeof part === "string").join(",");
  return "";
}

function recurText(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [];
  try {
    return [ICAL.Recur.fromData(value as Record<string, unknown>).toString()];
  } catch {
    return [];
  }
}

function bounded(text: string): string {
  return text.length > MAX_VALUE ? text.slice(0, MAX_VALUE) : text;
}

class LinkList {
  readonly items: EventLink[] = [];
  private readonly seen = new Set<string>();

  add(raw: string, source: LinkSource): void {
    // Bounded before anything else reads it: a link is never longer than MAX_VALUE, whatever follows it.
    if (this.items.length >= MAX_LINKS || raw.length > MAX_VALUE + 100) return;
    const url = withoutTrailingPunctuation(raw.trim());
    if (!/^https?:\/\/\S+$/i.test(url) || url.length > MAX_VALUE || this.seen.has(url)) return;
    this.seen.add(url);
    this.items.push({ url, source });
  }
}

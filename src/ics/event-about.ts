/**
 * What a follow-up question about one event needs and a search does not
 * (GetEvent, calendar_service.proto): the description, organizer, attendees
 * and how each answered, links, categories, CLASS and the recurrence rule as
 * written. Read from a VEVENT's properties as ical.js gives them (jCal), each
 * bounded so one producer's huge value cannot grow a snapshot without limit.
 */
import ICAL from "ical.js";

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
  /** CLASS; PUBLIC when absent (RFC 5545's default) or unknown. */
  readonly classification: Classification;
  /** Each RRULE as RFC 5545 text ("FREQ=WEEKLY;BYDAY=MO"). */
  readonly rrules: readonly string[];
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
const TRAILING = /[.,;:!?)\]}]+$/;

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
  for (const property of values("url")) links.add(String(property[3] ?? ""), "url");
  for (const property of values("x-google-conference")) links.add(String(property[3] ?? ""), "conference");
  for (const url of description.match(LINK) ?? []) links.add(url, "description");
  for (const url of location.match(LINK) ?? []) links.add(url, "location");
  const classText = String(values("class")[0]?.[3] ?? "").toUpperCase();
  return {
    description: description.slice(0, MAX_DESCRIPTION),
    descriptionCut: description.length > MAX_DESCRIPTION,
    ...(organizer === undefined ? {} : { organizer: personOf(organizer) }),
    attendees: attendeeLines.slice(0, MAX_ATTENDEES).map((property) => {
      const participation = String(property[1].partstat ?? "").toUpperCase();
      return {
        ...personOf(property),
        participation: (PARTICIPATION.has(participation) ? participation : "") as Participation,
        role: bounded(String(property[1].role ?? "").toUpperCase()),
      };
    }),
    attendeeCount: attendeeLines.length,
    links: links.items,
    categories: [
      ...new Set(
        values("categories")
          .flatMap((property) => property.slice(3))
          .map((value) => bounded(String(value).trim())),
      ),
    ]
      .filter((category) => category !== "")
      .slice(0, MAX_CATEGORIES),
    classification: classText === "PRIVATE" || classText === "CONFIDENTIAL" ? classText : "PUBLIC",
    rrules: values("rrule").flatMap((property) => property.slice(3).flatMap(recurText)),
  };
}

function personOf(property: JCalProperty): Person {
  const value = String(property[3] ?? "");
  return { name: bounded(String(property[1].cn ?? "")), address: bounded(value.replace(/^mailto:/i, "")) };
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
    const url = raw.trim().replace(TRAILING, "");
    if (!/^https?:\/\/\S+$/i.test(url) || url.length > MAX_VALUE || this.seen.has(url) || this.items.length >= MAX_LINKS) return;
    this.seen.add(url);
    this.items.push({ url, source });
  }
}

/**
 * Where the use cases find people's settings (zone, working hours, week
 * start, e-mail addresses): the principals of calq.yaml, and the live
 * registry's people, whose settings replace calq.yaml's for the same
 * principal (docs/decisions.md, "The calendar registry"). A calendar's
 * person is the one whose primary calendar it is.
 */
import type { PersonSettings, PrincipalConfig } from "../config/config-model.js";
import { type PersonRecord, WEEKDAYS, type Weekday } from "../registry/index.js";
import { localTimeMinutes } from "../time/civil.js";

/** People's settings, found by the calendar they own. */
export interface People {
  /** The one person whose primary calendar this is; undefined when nobody, or more than one, has it as primary. */
  ownerOf(calendarId: string): PrincipalConfig | undefined;
}

/** The people of a list of principals (calq.yaml's). */
export function peopleOf(principals: readonly PrincipalConfig[]): People {
  const owners = new Map<string, PrincipalConfig | null>();
  for (const principal of principals) {
    if (principal.primary === undefined) continue;
    // A calendar several people call primary (a shared one) belongs to none of them.
    owners.set(principal.primary, owners.has(principal.primary) ? null : principal);
  }
  return { ownerOf: (calendarId) => owners.get(calendarId) ?? undefined };
}

/** The registry's people a replica follows, and a number that grows with each change to them. */
export interface RegisteredPeople {
  readonly version: number;
  readonly people: ReadonlyMap<string, PersonRecord>;
}

/**
 * calq.yaml's principals with the registry's people over them, as they are
 * now; the owners are worked out again only after the people changed.
 */
export function livePeople(principals: readonly PrincipalConfig[], registered: () => RegisteredPeople): People {
  let seen: number | undefined;
  let people = peopleOf(principals);
  return {
    ownerOf(calendarId) {
      const now = registered();
      if (now.version !== seen) {
        seen = now.version;
        const merged = new Map(principals.map((principal) => [principal.id, principal]));
        for (const person of now.people.values()) {
          const base = merged.get(person.principalId) ?? { id: person.principalId, tokenDigests: [], capabilities: [] };
          merged.set(person.principalId, { ...base, ...definedSettings(settingsOfPerson(person)) });
        }
        people = peopleOf([...merged.values()]);
      }
      return people.ownerOf(calendarId);
    },
  };
}

/** A registry person's settings in the form principals carry them (ISO weekdays, minutes after midnight). */
export function settingsOfPerson(person: PersonRecord): PersonSettings {
  const hours = person.workingHours;
  return {
    primary: person.primaryCalendar,
    timezone: person.zone,
    workingHours:
      hours === undefined
        ? undefined
        : { days: hours.days.map(isoWeekday), startMinute: minutesOf(hours.start), endMinute: minutesOf(hours.endExclusive) },
    weekStart: isoWeekday(person.weekStart),
    emails: person.emails.length === 0 ? undefined : person.emails,
  };
}

/** The settings that are set: an absent one leaves calq.yaml's. */
function definedSettings(settings: PersonSettings): PersonSettings {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

function isoWeekday(day: Weekday): number {
  return WEEKDAYS.indexOf(day) + 1;
}

/** "HH:MM" as minutes after midnight; "24:00" is 1440 (the registry validated it). */
function minutesOf(time: string): number {
  return localTimeMinutes(time, true) ?? Number.NaN;
}

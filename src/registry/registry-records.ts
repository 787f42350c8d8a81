/**
 * What the live registry holds (docs/decisions.md, "The calendar registry"):
 * calendars, their readers and placement, and people's settings. A spec is
 * what an admin writes; a record is a spec as stored, with what the registry
 * adds (its shard group, etag, who changed it and when, its change number).
 * Instants are epoch milliseconds, as everywhere in calq's engine.
 */

/**
 * Names a secret held outside the registry (an environment variable, which a
 * Kubernetes Secret fills): the registry stores the reference, never the value,
 * so a database dump or an admin listing reveals no credential.
 */
export interface SecretReference {
  /** The environment variable that holds the value, e.g. TEAM_FEED_AUTH. */
  readonly env: string;
}

/** An HTTP request header whose value is a secret, as calq.yaml's `headers: {Authorization: {env: VAR}}`. */
export interface SecretHeader {
  readonly name: string;
  readonly value: SecretReference;
}

/**
 * Where a calendar's ICS comes from. The kinds are one closed set: a switch
 * over `kind` ends in assertNever, so a new kind fails to compile where it is
 * not handled.
 */
export type CalendarSource =
  /** A file on the replica's disk; an absolute path. */
  | { readonly kind: "file"; readonly path: string }
  /** An http or https URL without user name or password; credentials go in headers. */
  | { readonly kind: "http"; readonly url: string; readonly headers: readonly SecretHeader[] }
  /**
   * A CalDAV collection (read by a later feed kind): its URL and the secret
   * that authenticates to it, by reference.
   */
  | {
      readonly kind: "caldav";
      readonly collectionUrl: string;
      readonly credential: SecretReference;
      /** How the credential is sent: Basic ("user:password") or Bearer (a token). */
      readonly scheme: CredentialScheme;
    };

/** How a CalDAV credential is sent, spelled once. */
export const CREDENTIAL_SCHEMES = ["basic", "bearer"] as const;
export type CredentialScheme = (typeof CREDENTIAL_SCHEMES)[number];

/** The kinds of source, spelled once. */
export const SOURCE_KINDS = ["file", "http", "caldav"] as const satisfies readonly CalendarSource["kind"][];

/** A calendar as an admin writes it; every field is replaced as a whole on update. */
export interface CalendarSpec {
  /** Letters, digits, '.', '_', '-' (calq.yaml's id syntax); "primary" is reserved. */
  readonly id: string;
  /** Display name; empty means the id. */
  readonly name: string;
  readonly source: CalendarSource;
  /** IANA zone of floating times and all-day days; absent, the feed's X-WR-TIMEZONE, else UTC. */
  readonly zone?: string;
  /** How often the source is checked, in milliseconds (100 ms to 480 h, as calq.yaml's `refresh`). */
  readonly refreshMs: number;
  /** Principal ids that may read the calendar's events. */
  readonly readers: readonly string[];
  /** Principal ids that may see its busy time only (free/busy, free slots), never its events. */
  readonly freeBusyReaders: readonly string[];
  /** What places the calendar in a shard group; absent, its id. Give one user's calendars the user's id. */
  readonly shardKey?: string;
}

/** A calendar as the registry holds it. */
export interface CalendarRecord extends CalendarSpec {
  /**
   * The shard group whose replicas serve it, computed when it was written by
   * rendezvous hashing of its shard key over the registry's groups
   * (src/config/shard-map.ts); undefined when the registry has no groups.
   */
  readonly shardGroup: string | undefined;
  /** Changes with every write; an update or delete that names an older etag is refused. */
  readonly etag: string;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly updatedBy: string;
  readonly updatedAt: number;
  /** The number of its last change: unique in the registry, and within a group committed in increasing order. */
  readonly changeNumber: number;
}

/** Days of the week as RFC 5545 writes them (BYDAY), Monday first. */
export const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;
/** MO to SU. */
export type Weekday = (typeof WEEKDAYS)[number];

/** When a person works, in their zone: the same hours on each of `days`. */
export interface WorkingHours {
  /** Each day once, in any order. */
  readonly days: readonly Weekday[];
  /** Local time "HH:MM" the day's work starts. */
  readonly start: string;
  /** Local time "HH:MM" it ends, excluded; later than `start` (hours past midnight are not expressed). */
  readonly endExclusive: string;
}

/** A person's settings as an admin writes them; setting a person replaces them whole. */
export interface PersonSpec {
  /** The principal id they authenticate as (calq.yaml principal, JWT `sub`). */
  readonly principalId: string;
  /** The calendar "primary" names for them: a registry calendar or a calq.yaml one. */
  readonly primaryCalendar?: string;
  /** Their IANA zone. */
  readonly zone?: string;
  readonly workingHours?: WorkingHours;
  /** The first day of their week, for views that show weeks. */
  readonly weekStart: Weekday;
  /** Their e-mail addresses, lower-cased, to find their own attendance (PARTSTAT) in events. */
  readonly emails: readonly string[];
}

/** A person as the registry holds them. */
export interface PersonRecord extends PersonSpec {
  /** The group of their principal id (the key one user's calendars share by convention); undefined without groups. */
  readonly shardGroup: string | undefined;
  readonly etag: string;
  readonly updatedBy: string;
  readonly updatedAt: number;
  readonly changeNumber: number;
}

/**
 * One change a replica applies, at its change number. A calendar that leaves
 * a group (its shard key changed) is a removal in the old group and an
 * upsert in the new one, at the same number.
 */
export type RegistryChange =
  | { readonly kind: "calendar-upsert"; readonly changeNumber: number; readonly calendar: CalendarRecord }
  | { readonly kind: "calendar-removal"; readonly changeNumber: number; readonly calendarId: string }
  | { readonly kind: "person-upsert"; readonly changeNumber: number; readonly person: PersonRecord };

/** A group's rows as of one change number: what a replica loads at start. */
export interface GroupSnapshot {
  /** Identifies the registry's database; a replica whose copy came from another one reloads in full. */
  readonly registryId: string;
  /** Every change of the group up to and including this number is in the snapshot, and none after. */
  readonly changeNumber: number;
  readonly calendars: readonly CalendarRecord[];
  readonly people: readonly PersonRecord[];
}

/**
 * The changes of one group after a change number, in change-number order.
 * An entity changed several times since then appears once, at its latest
 * change: a replica wants the state, the audit log keeps the history.
 */
export interface ChangeBatch {
  readonly registryId: string;
  readonly changes: readonly RegistryChange[];
  /** Every change of the group up to this number is in this batch or an earlier one: ask again from here. */
  readonly latest: number;
  /** False when the batch was cut at its limit and more changes follow. */
  readonly complete: boolean;
}

/** What an admin did; each kind is spelled once. */
export const AUDIT_ACTIONS = ["calendar.create", "calendar.update", "calendar.delete", "person.set"] as const;
/** calendar.create, calendar.update, calendar.delete or person.set. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One row of the audit log, written in the same transaction as the change. */
export interface AuditEntry {
  readonly changeNumber: number;
  readonly at: number;
  /** The admin principal who made the change. */
  readonly by: string;
  readonly action: AuditAction;
  /** The calendar id or principal id changed. */
  readonly subject: string;
  /** The record after the change; absent for a deletion. */
  readonly after?: CalendarRecord | PersonRecord;
}

/** Filters of the admin listing; every one given must hold. */
export interface CalendarListQuery {
  readonly idPrefix?: string;
  /** Calendars this principal may read (as a reader or a free/busy reader). */
  readonly reader?: string;
  readonly shardGroup?: string;
  /** 1 to 1,000; default 100. */
  readonly pageSize?: number;
  /** From the previous page of the same query; opaque. */
  readonly pageToken?: string;
}

/** One page of the listing, in id order (byte order of the ids). */
export interface CalendarPage {
  readonly calendars: readonly CalendarRecord[];
  /** Absent on the last page. */
  readonly nextPageToken?: string;
}

/** What a create answers: the calendar, and whether this request made it or repeated an earlier one. */
export interface CreateOutcome {
  readonly calendar: CalendarRecord;
  /** False when the same request had already created it: the answer is the same calendar. */
  readonly created: boolean;
}

/** What a delete answers. */
export interface DeleteOutcome {
  readonly calendarId: string;
  readonly changeNumber: number;
}

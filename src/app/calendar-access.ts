/**
 * Who may read which calendar (docs/operating.md: Who is calling), and
 * whether this replica holds it (docs/operating.md: Shard groups). A reader
 * listed on the calendar may read it, given the calendar.read capability
 * (which calq.yaml principals hold implicitly); a free/busy reader listed
 * on it may see its busy time only, and is refused its events exactly as a
 * stranger is; anyone else needs calendar.read.any, and such reads are
 * audit-logged. "primary" names the
 * caller's own primary calendar. An unknown calendar and a forbidden one
 * give the same error, byte for byte.
 *
 * Access is checked against the whole calq.yaml, which every replica reads,
 * before the shard group: a replica of another group answers a calendar the
 * caller may not read exactly as the calendar's own group would, so the
 * group refusals never reveal that a calendar exists. A replica holds only
 * its own group's registry calendars; one of another group is looked up in
 * the registry (`elsewhere`), and refused by the same rules.
 */
import { CalqError } from "../calq-error.js";
import { READ, READ_ANY } from "../config/capabilities.js";
import type { CalendarConfig } from "../config/config-model.js";
import { SHARD_GROUP_HEADER, SHARD_KEY_HEADER } from "../config/shard-headers.js";
import { type ShardMap, shardKeyOf } from "../config/shard-map.js";
import type { Logger } from "../log.js";
import type { CalendarStore, CalendarView } from "../store/calendar-store.js";
import type { Principal } from "./call.js";

/** A calendar with the shard group that serves it (undefined when the deployment is not split). */
export interface PlacedCalendar {
  /** What access and placement read of it (a calendar of another group is known by these alone). */
  readonly calendar: Pick<CalendarConfig, "id" | "name" | "readers" | "freeBusyReaders" | "shardKey">;
  readonly group: string | undefined;
}

/**
 * Finds a calendar this replica does not hold: a registry calendar of another
 * shard group, with the group the registry placed it in. Undefined when
 * there is none; PROVIDER_UNAVAILABLE when the registry cannot be asked now.
 */
export type CalendarsElsewhere = (calendarId: string) => Promise<PlacedCalendar | undefined>;

/** What opening a calendar needs: the whole configuration with its groups, and this replica's loaded calendars. */
export interface CalendarAccess {
  readonly shards: ShardMap;
  readonly store: CalendarStore;
  readonly log: Logger;
  /** Registry calendars of other groups; absent without a registry, or when this replica holds every row. */
  readonly elsewhere?: CalendarsElsewhere;
}

/** A calendar by id: calq.yaml's or this replica's registry calendars, else the registry's of other groups. */
export async function findCalendar(
  access: Pick<CalendarAccess, "shards" | "elsewhere">,
  calendarId: string,
): Promise<PlacedCalendar | undefined> {
  const calendar = access.shards.calendar(calendarId);
  if (calendar !== undefined) return { calendar, group: access.shards.groupOf(calendar) };
  return access.elsewhere?.(calendarId);
}

/** The one refusal for unknown and forbidden calendars alike. */
function notAccessible(): CalqError {
  return new CalqError(
    "CALENDAR_NOT_ACCESSIBLE",
    "the calendar does not exist or you may not read it; stop, and do not guess other calendar ids",
  );
}

/** How a caller may read a calendar's events: as a listed reader, or through calendar.read.any; undefined when not at all. */
export function mayRead(principal: Principal, calendar: Pick<CalendarConfig, "readers">): "reader" | "read_any" | undefined {
  if (calendar.readers.includes(principal.id) && principal.capabilities.includes(READ)) return "reader";
  return principal.capabilities.includes(READ_ANY) ? "read_any" : undefined;
}

/**
 * What a method reads of a calendar: its events (the searches and GetEvent),
 * or only its busy time (QueryFreeBusy, FindFreeSlots, FindMeetingTimes).
 */
export type AccessNeed = "events" | "busy";

/** Who may read a calendar: its readers, and those who may see only its busy time. */
type Readers = Pick<CalendarConfig, "readers" | "freeBusyReaders">;

/** How a caller may see a calendar's busy time: as any reader of its events, or as one of its free/busy readers. */
export function mayReadBusy(principal: Principal, calendar: Readers): "reader" | "read_any" | "free_busy" | undefined {
  const events = mayRead(principal, calendar);
  if (events === "reader") return events;
  if (calendar.freeBusyReaders?.includes(principal.id) === true && principal.capabilities.includes(READ)) return "free_busy";
  return events;
}

/** How `principal` may open `calendar` for what a method `need`s; undefined refuses, as for a calendar that does not exist. */
function accessFor(principal: Principal, calendar: Readers, need: AccessNeed): "reader" | "read_any" | "free_busy" | undefined {
  switch (need) {
    case "events":
      return mayRead(principal, calendar);
    case "busy":
      return mayReadBusy(principal, calendar);
  }
}

/**
 * The calendars a caller asks for, in the order asked, if the caller may
 * read every one and this replica holds them; audit-logs reads through
 * calendar.read.any. Refuses, in this order: none or more than 50 ids
 * (INVALID_CALENDAR_IDS), any calendar the caller may not read
 * (CALENDAR_NOT_ACCESSIBLE), a calendar named twice, also as "primary" and
 * its id (INVALID_CALENDAR_IDS), calendars of several shard groups
 * (CALENDARS_SPAN_SHARD_GROUPS), calendars of another group than this
 * replica's (CALENDAR_IN_OTHER_SHARD_GROUP).
 */
export async function openCalendars(
  access: CalendarAccess,
  principal: Principal,
  requestedIds: readonly string[],
  method: string,
  /** The call's correlation id, so the audit line and the RPC line can be matched. */
  correlationId?: string,
  /** Events by default; a free/busy reader may open a calendar only for its busy time (docs/decisions.md, "Busy time only"). */
  need: AccessNeed = "events",
): Promise<CalendarView[]> {
  const found = await Promise.all(
    requestedIds.map((requestedId) => {
      const calendarId = requestedId === "primary" ? principal.primary : requestedId;
      return calendarId === undefined ? undefined : findCalendar(access, calendarId);
    }),
  );
  const opened = found.map((placed) => {
    const how = placed === undefined ? undefined : accessFor(principal, placed.calendar, need);
    if (placed === undefined || how === undefined) throw notAccessible();
    return { ...placed, how };
  });
  const seen = new Set<string>();
  for (const { calendar } of opened) {
    if (seen.has(calendar.id)) throw invalidIds(`calendar ${calendar.id} is named twice (as "primary" and by its id, or twice by its id)`);
    seen.add(calendar.id);
  }
  checkShardGroup(access.shards, opened);
  for (const { calendar, how } of opened) {
    if (how === "read_any") {
      access.log({
        level: "info",
        kind: "audit",
        capability: READ_ANY,
        principal: principal.id,
        calendar_id: calendar.id,
        method,
        correlation_id: correlationId,
      });
    }
  }
  return opened.map(({ calendar }) => {
    const view = access.store.view(calendar.id);
    // A registry calendar of this group the registry holds but this replica has not followed to yet.
    if (view === undefined) throw new CalqError("PROVIDER_UNAVAILABLE", "the calendar is not served here yet; retry later");
    return view;
  });
}

/** The calendar a caller asks for: openCalendars for one id. */
export async function openCalendar(
  access: CalendarAccess,
  principal: Principal,
  requestedId: string,
  method: string,
  correlationId?: string,
): Promise<CalendarView> {
  return (await openCalendars(access, principal, [requestedId], method, correlationId))[0];
}

/** Refuses calendars that live in several groups, or in one group that is not this replica's. */
function checkShardGroup(shards: ShardMap, calendars: readonly PlacedCalendar[]): void {
  if (!shards.sharded) return;
  const groups = new Map(calendars.map(({ calendar, group }) => [calendar.id, group ?? ""]));
  const distinct = [...new Set(groups.values())].sort();
  if (distinct.length > 1) {
    throw new CalqError(
      "CALENDARS_SPAN_SHARD_GROUPS",
      `the calendars asked for live in ${distinct.length} shard groups (${distinct.join(", ")}), and no replica holds them all; ask about the calendars of one group at a time`,
      undefined,
      { shard_groups: distinct.join(","), calendar_groups: [...groups].map(([id, group]) => `${id}=${group}`).join(",") },
    );
  }
  if (distinct[0] !== shards.localGroup) throw inOtherShardGroup(shards, calendars[0].calendar, calendars[0].group);
}

/** The refusal for a calendar (of a request's one group) that another group of replicas serves, naming the headers that route there. */
export function inOtherShardGroup(
  shards: ShardMap,
  calendar: Pick<CalendarConfig, "id" | "shardKey">,
  group = shards.groupOf(calendar) ?? "",
): CalqError {
  return new CalqError(
    "CALENDAR_IN_OTHER_SHARD_GROUP",
    `this calendar is served by shard group ${group}, not by this replica's (${shards.localGroup}); send the call again with the header ${SHARD_GROUP_HEADER}: ${group}`,
    undefined,
    { shard_group: group, shard_key: shardKeyOf(calendar), group_header: SHARD_GROUP_HEADER, key_header: SHARD_KEY_HEADER },
  );
}

function invalidIds(message: string): CalqError {
  return new CalqError("INVALID_CALENDAR_IDS", message, "calendar_ids");
}

/**
 * The calendar registry's admin use cases (calendar_admin_service.proto:
 * CreateCalendar, UpdateCalendar, DeleteCalendar, SetPerson,
 * ListRegisteredCalendars), for holders of calendar.admin. Each change is
 * validated whole and committed by the registry (docs/decisions.md, "The
 * calendar registry"), which writes its audit row with the admin principal;
 * the change is also audit-logged here, with the call's correlation id.
 * Replicas serve it once their follower hears it (src/store/live-calendars.ts),
 * this one included. Refusals of the registry keep their kind
 * (RegistryError) for the mapper, which names the contract's fields.
 */
import { createHash } from "node:crypto";
import { CalqError } from "../calq-error.js";
import { SHARD_GROUP_HEADER } from "../config/shard-headers.js";
import type { ShardMap } from "../config/shard-map.js";
import type { Logger } from "../log.js";
import {
  type AuditAction,
  type CalendarRecord,
  type CalendarRegistry,
  type CreateOutcome,
  type DeleteOutcome,
  isRegistryFailure,
  type PersonRecord,
} from "../registry/index.js";
import type { CalendarStore, CalendarView } from "../store/calendar-store.js";
import type { LiveCalendars } from "../store/live-calendars.js";
import type { CalendarsElsewhere } from "./calendar-access.js";
import type { Call } from "./call.js";
import { requireAdmin } from "./feed-admin.js";

/** What the registry's use cases need: the registry and this replica's view of it; both absent on a server without one. */
export interface RegistryAdminDeps {
  readonly registry?: CalendarRegistry;
  readonly live?: LiveCalendars;
  readonly store: CalendarStore;
  readonly shards: ShardMap;
  readonly log: Logger;
}

/** How a calendar's feed loads on the replica that serves it (calendar_admin_service.proto: LoadHealth). */
export type LoadHealth = "healthy" | "stale" | "unloaded";

/** The filters and page of the admin listing, as domain values (the transport put the default page size in). */
export interface RegistryListQuery {
  readonly idPrefix: string;
  readonly reader: string;
  readonly shardGroup: string;
  /** Only calendars whose feed loads so here: lists this replica's group from what it holds. */
  readonly loadHealth?: LoadHealth;
  readonly pageSize: number;
  readonly pageToken: string;
}

/** A registry calendar listed, with its load health when this replica serves it. */
export interface ListedCalendar {
  readonly record: CalendarRecord;
  readonly health?: LoadHealth;
}

/** One page of the admin listing. */
export interface RegistryPage {
  readonly calendars: readonly ListedCalendar[];
  readonly nextPageToken?: string;
}

/** The registry, or REGISTRY_NOT_CONFIGURED. */
function registryOf(deps: RegistryAdminDeps): CalendarRegistry {
  if (deps.registry === undefined) {
    throw new CalqError(
      "REGISTRY_NOT_CONFIGURED",
      "this server runs without a calendar registry; its calendars are calq.yaml's (calq serve always opens one)",
    );
  }
  return deps.registry;
}

/** Writes the change's audit line: who did what to which, at which change number. */
function audit(deps: RegistryAdminDeps, call: Call, action: AuditAction, subject: string, changeNumber: number): void {
  deps.log({
    level: "info",
    kind: "audit",
    msg: "registry change",
    action,
    subject,
    principal: call.principal.id,
    change_number: changeNumber,
    correlation_id: call.correlationId,
  });
}

/** A registry write of a calq.yaml calendar's id: refused as not found, saying where it is changed instead. */
function refuseConfigCalendar(deps: RegistryAdminDeps, calendarId: string): void {
  if (deps.live?.declaredInConfig(calendarId) === true) {
    throw new CalqError(
      "CALENDAR_NOT_FOUND",
      "this calendar is declared in calq.yaml, not in the registry: change it there",
      "calendar_id",
      { declared_in: "calq.yaml" },
    );
  }
}

/** Creates a calendar; the same spec sent again answers the calendar it made, with `created` false. */
export async function createCalendar(deps: RegistryAdminDeps, call: Call, spec: unknown): Promise<CreateOutcome> {
  requireAdmin(call);
  const outcome = await registryOf(deps).createCalendar(spec, { by: call.principal.id });
  if (outcome.created) audit(deps, call, "calendar.create", outcome.calendar.id, outcome.calendar.changeNumber);
  return outcome;
}

/** Replaces a calendar's spec as a whole, when `etag` is its current one. */
export async function updateCalendar(deps: RegistryAdminDeps, call: Call, spec: unknown, etag: string): Promise<CalendarRecord> {
  requireAdmin(call);
  const registry = registryOf(deps);
  const id = (spec as { id?: unknown } | undefined)?.id;
  if (typeof id === "string") refuseConfigCalendar(deps, id);
  const calendar = await registry.updateCalendar(spec, etag, { by: call.principal.id });
  audit(deps, call, "calendar.update", calendar.id, calendar.changeNumber);
  return calendar;
}

/** Deletes a calendar; with an etag, only that version. */
export async function deleteCalendar(
  deps: RegistryAdminDeps,
  call: Call,
  calendarId: string,
  etag: string | undefined,
): Promise<DeleteOutcome> {
  requireAdmin(call);
  const registry = registryOf(deps);
  refuseConfigCalendar(deps, calendarId);
  const outcome = await registry.deleteCalendar(calendarId, etag, { by: call.principal.id });
  audit(deps, call, "calendar.delete", outcome.calendarId, outcome.changeNumber);
  return outcome;
}

/** Creates or replaces a person's settings; with an etag, only over that version. */
export async function setPerson(deps: RegistryAdminDeps, call: Call, spec: unknown, etag: string | undefined): Promise<PersonRecord> {
  requireAdmin(call);
  const person = await registryOf(deps).setPerson(spec, etag, { by: call.principal.id });
  audit(deps, call, "person.set", person.principalId, person.changeNumber);
  return person;
}

/** How a served calendar's feed loads here. */
export function loadHealthOf(view: CalendarView | undefined): LoadHealth {
  if (view?.snapshot === undefined) return "unloaded";
  return view.stale ? "stale" : "healthy";
}

/**
 * One page of the registry's calendars, in id order. With a load health
 * filter, the page comes from this replica's own group, as it holds it
 * (the registry's database is not asked, so it answers while it is away).
 */
export async function listRegisteredCalendars(deps: RegistryAdminDeps, call: Call, query: RegistryListQuery): Promise<RegistryPage> {
  requireAdmin(call);
  const registry = registryOf(deps);
  if (query.loadHealth !== undefined) return listByHealth(deps, query, query.loadHealth);
  const page = await registry.listCalendars({
    ...(query.idPrefix === "" ? {} : { idPrefix: query.idPrefix }),
    ...(query.reader === "" ? {} : { reader: query.reader }),
    ...(query.shardGroup === "" ? {} : { shardGroup: query.shardGroup }),
    pageSize: query.pageSize,
    pageToken: query.pageToken,
  });
  const held = deps.live?.calendars();
  return {
    calendars: page.calendars.map((record) =>
      held?.has(record.id) === true ? { record, health: loadHealthOf(deps.store.view(record.id)) } : { record },
    ),
    ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken }),
  };
}

function listByHealth(deps: RegistryAdminDeps, query: RegistryListQuery, health: LoadHealth): RegistryPage {
  const local = deps.live?.group;
  if (deps.shards.sharded && query.shardGroup !== "" && query.shardGroup !== local) {
    throw new CalqError(
      "CALENDAR_IN_OTHER_SHARD_GROUP",
      `load health is known by the replicas of a calendar's group; this replica serves group ${local}: send the call again with the header ${SHARD_GROUP_HEADER}: ${query.shardGroup}`,
      undefined,
      { shard_group: query.shardGroup, group_header: SHARD_GROUP_HEADER },
    );
  }
  const filters = digest(JSON.stringify([query.idPrefix, query.reader, health]));
  const after = readPageToken(query.pageToken, filters);
  const matching = [...(deps.live?.calendars().values() ?? [])]
    .filter(
      (record) =>
        record.id > after &&
        record.id.startsWith(query.idPrefix) &&
        (query.reader === "" || record.readers.includes(query.reader) || record.freeBusyReaders.includes(query.reader)) &&
        loadHealthOf(deps.store.view(record.id)) === health,
    )
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const page = matching.slice(0, query.pageSize);
  const last = page.at(-1);
  return {
    calendars: page.map((record) => ({ record, health })),
    ...(matching.length > page.length && last !== undefined ? { nextPageToken: pageToken(last.id, filters) } : {}),
  };
}

const digest = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 16);

function pageToken(after: string, filters: string): string {
  return Buffer.from(JSON.stringify({ after, filters })).toString("base64url");
}

/** The id a health listing's page starts after ("" for the first), or INVALID_PAGE for another listing's token. */
function readPageToken(token: string, filters: string): string {
  if (token === "") return "";
  let position: { after?: unknown; filters?: unknown } | undefined;
  try {
    position = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { after?: unknown; filters?: unknown };
  } catch {
    position = undefined;
  }
  if (typeof position?.after !== "string" || position.filters !== filters) {
    throw new CalqError(
      "INVALID_PAGE",
      "page_token is not a token of this listing: send the same filters, or start without one",
      "page_token",
    );
  }
  return position.after;
}

/**
 * Registry calendars of other groups, for access checks (calendar-access.ts),
 * with the registry's absence said as the refusal a caller can act on:
 * PROVIDER_UNAVAILABLE, retry later, which tells nothing of any calendar.
 */
export function calendarsElsewhere(live: LiveCalendars): CalendarsElsewhere {
  return (calendarId) =>
    live.lookUp(calendarId).catch((error: unknown) => {
      if (!isRegistryFailure(error, "UNAVAILABLE")) throw error;
      throw new CalqError(
        "PROVIDER_UNAVAILABLE",
        "calendars of other shard groups cannot be looked up while the calendar registry is unreachable; retry later",
      );
    });
}

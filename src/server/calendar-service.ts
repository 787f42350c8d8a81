/**
 * calq.v1.CalendarService: the read-only search contract, implemented over
 * the calendar store. Validation, access and paging happen here in the order
 * a caller can act on: credentials, then arguments, then the calendar, then
 * the cursor.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  CalendarInfoSchema,
  type CalendarService,
  GetCallerContextResponseSchema,
  ListCalendarsResponseSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { READ_ANY } from "../config/capabilities.js";
import { type ShardMap, shardKeyOf } from "../config/shard-map.js";
import type { Logger } from "../logging/logger.js";
import type { CursorCodec } from "../search/cursor.js";
import { type CalendarStore, dataAsOf } from "../store/calendar-store.js";
import type { Authenticator, Principal } from "./authenticator.js";
import { mayRead } from "./calendar-access.js";
import { callInfo } from "./call-info.js";
import { findFreeSlotsFor, queryFreeBusy } from "./free-busy.js";
import { getEvent } from "./get-event.js";
import { searchEvents, searchEventsAcrossCalendars } from "./search-events.js";

export interface CalendarServiceDeps {
  readonly store: CalendarStore;
  /** Every configured calendar with its shard group; the store holds this replica's group only. */
  readonly shards: ShardMap;
  readonly authenticator: Authenticator;
  readonly cursors: CursorCodec;
  readonly maxWindowMs: number;
  readonly log: Logger;
  readonly now: () => number;
  /** Milliseconds of work one search may do before it answers a partial page (calq.yaml search.cpu_budget). */
  readonly searchBudgetMs: number;
  /** The clock budgets and deadlines are measured on; a monotonic one by default (`now` may be a test's fixed clock). */
  readonly searchClock?: () => number;
}

export function calendarService(deps: CalendarServiceDeps): ServiceImpl<typeof CalendarService> {
  const { store, shards, authenticator, cursors, log, now } = deps;
  const searchClock = deps.searchClock ?? (() => performance.now());
  const access = { store, shards, log };
  const freeBusyDeps = { access, maxWindowMs: deps.maxWindowMs, log, searchBudgetMs: deps.searchBudgetMs, clock: searchClock };
  const searchDeps = { ...freeBusyDeps, cursors, now };
  const caller = (context: HandlerContext): Promise<Principal> => authenticator.authenticate(context);

  return {
    async searchEvents(request, context) {
      return searchEvents(searchDeps, await caller(context), request, context);
    },

    async searchEventsAcrossCalendars(request, context) {
      return searchEventsAcrossCalendars(searchDeps, await caller(context), request, context);
    },

    async getEvent(request, context) {
      return getEvent(freeBusyDeps, await caller(context), request, context);
    },

    async listCalendars(_request, context) {
      const principal = await caller(context);
      // Every replica reads the whole calq.yaml: it lists the calendars of every shard group, each with its group.
      const readable = shards
        .calendars()
        .filter((calendar) => mayRead(principal, calendar) !== undefined)
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      // Names of calendars seen only through calendar.read.any are a read like any other: audited.
      const throughReadAny = readable.filter((calendar) => mayRead(principal, calendar) === "read_any").map((calendar) => calendar.id);
      if (throughReadAny.length > 0) {
        log({
          level: "info",
          kind: "audit",
          capability: READ_ANY,
          principal: principal.id,
          calendar_ids: throughReadAny,
          method: "ListCalendars",
          correlation_id: callInfo(context)?.correlationId,
        });
      }
      const calendars = readable.map((calendar) => {
        // Undefined for a calendar of another shard group: this replica has not loaded it.
        const view = store.view(calendar.id);
        return create(CalendarInfoSchema, {
          id: calendar.id,
          displayName: calendar.name,
          timezone: view?.snapshot?.zone.name ?? calendar.timezone ?? "",
          primary: principal.primary === calendar.id,
          dataAsOf: view?.snapshot === undefined ? undefined : timestampFromMs(dataAsOf(view, view.snapshot)),
          stale: view?.stale ?? false,
          shardGroup: shards.groupOf(calendar) ?? "",
          shardKey: shards.sharded ? shardKeyOf(calendar) : "",
        });
      });
      return create(ListCalendarsResponseSchema, { calendars });
    },

    async queryFreeBusy(request, context) {
      return queryFreeBusy(freeBusyDeps, await caller(context), request, context);
    },

    async findFreeSlots(request, context) {
      return findFreeSlotsFor(freeBusyDeps, await caller(context), request, context);
    },

    async getCallerContext(_request, context) {
      const principal = await caller(context);
      return create(GetCallerContextResponseSchema, {
        principalId: principal.id,
        timezone: principal.timezone ?? "",
        currentTime: timestampFromMs(now()),
        primaryCalendarId: principal.primary ?? "",
      });
    },
  };
}

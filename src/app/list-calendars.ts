/**
 * The calendars a caller may read (calendar_service.proto: ListCalendars),
 * with each one's zone, freshness and place among the shard groups, and
 * those whose busy time only it may see, marked so. Every
 * replica knows every calendar's group; a calendar of another group is
 * listed from its configuration alone. Names seen only through
 * calendar.read.any are a read like any other: audited.
 */
import { READ_ANY } from "../config/capabilities.js";
import type { CalendarConfig } from "../config/config-model.js";
import { type ShardMap, shardKeyOf } from "../config/shard-map.js";
import type { Logger } from "../log.js";
import type { CalendarStore, CalendarView } from "../store/calendar-store.js";
import { mayReadBusy } from "./calendar-access.js";
import type { Call } from "./call.js";

export interface ListCalendarsDeps {
  readonly store: CalendarStore;
  readonly shards: ShardMap;
  readonly log: Logger;
}

/** One readable calendar. */
export interface CalendarListed {
  readonly config: CalendarConfig;
  /** This replica's view of it; undefined for a calendar of another shard group. */
  readonly view?: CalendarView;
  /** Whether it is the caller's primary calendar. */
  readonly primary: boolean;
  /** Its shard group, "" when calendars are not sharded. */
  readonly shardGroup: string;
  /** Its shard key, "" when calendars are not sharded. */
  readonly shardKey: string;
  /** The caller is one of its free/busy readers: it may see the calendar's busy time, never its events. */
  readonly busyOnly: boolean;
}

/** The calendars `call`'s caller may read, in id order. */
export function listCalendars(deps: ListCalendarsDeps, call: Call): CalendarListed[] {
  const { principal } = call;
  const readable = deps.shards
    .calendars()
    .filter((calendar) => mayReadBusy(principal, calendar) !== undefined)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const throughReadAny = readable.filter((calendar) => mayReadBusy(principal, calendar) === "read_any").map((calendar) => calendar.id);
  if (throughReadAny.length > 0) {
    deps.log({
      level: "info",
      kind: "audit",
      capability: READ_ANY,
      principal: principal.id,
      calendar_ids: throughReadAny,
      method: "ListCalendars",
      correlation_id: call.correlationId,
    });
  }
  return readable.map((config) => ({
    config,
    view: deps.store.view(config.id),
    primary: principal.primary === config.id,
    shardGroup: deps.shards.groupOf(config) ?? "",
    shardKey: deps.shards.sharded ? shardKeyOf(config) : "",
    busyOnly: mayReadBusy(principal, config) === "free_busy",
  }));
}

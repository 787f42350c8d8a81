/**
 * Who is calling and what their "now" is (calendar_service.proto:
 * GetCallerContext): the facts a model needs to turn "next Friday morning"
 * into instants before it searches, taken from the caller's principal, and
 * the days it would otherwise work out itself (today, the weeks around it
 * by the caller's week start, the next DST change of their zone).
 */
import { nextOffsetChange, type OffsetChange } from "../time/local-day.js";
import { requestZone } from "../time/request-window.js";
import { DAY_MS, floorTo } from "../time/units.js";
import { instantToLocal, type ZoneRules } from "../time/zone-rules.js";
import type { Call } from "./call.js";

/** How far ahead the next offset change is looked for. */
const OFFSET_CHANGE_HORIZON_MS = 366 * DAY_MS;

export interface CallerContext {
  readonly principalId: string;
  /** The caller's recorded IANA zone; undefined when none is recorded. */
  readonly timezone?: string;
  /** The current instant (epoch milliseconds). */
  readonly now: number;
  readonly primaryCalendarId?: string;
  /** ISO weekday the caller's weeks start on (1 Monday, the default, to 7 Sunday). */
  readonly weekStart: number;
  /** With a recorded zone: today's local midnight (a wall-time number), the zone, and its next offset change. */
  readonly local?: {
    readonly zone: ZoneRules;
    readonly today: number;
    readonly nextOffsetChange?: OffsetChange;
  };
}

/** The context of `call`'s caller at `now`. */
export function callerContext(call: Call, now: number): CallerContext {
  const { principal } = call;
  const base = {
    principalId: principal.id,
    timezone: principal.timezone,
    now,
    primaryCalendarId: principal.primary,
    weekStart: principal.weekStart ?? 1,
  };
  if (principal.timezone === undefined) return base;
  const zone = requestZone(principal.timezone);
  const change = nextOffsetChange(zone, now, now + OFFSET_CHANGE_HORIZON_MS);
  return {
    ...base,
    local: { zone, today: floorTo(instantToLocal(zone, now), DAY_MS), ...(change === undefined ? {} : { nextOffsetChange: change }) },
  };
}

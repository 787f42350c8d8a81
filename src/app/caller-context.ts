/**
 * Who is calling and what their "now" is (calendar_service.proto:
 * GetCallerContext): the facts a model needs to turn "next Friday morning"
 * into instants before it searches, taken from the caller's principal.
 */
import type { Call } from "./call.js";

export interface CallerContext {
  readonly principalId: string;
  /** The caller's recorded IANA zone; undefined when none is recorded. */
  readonly timezone?: string;
  /** The current instant (epoch milliseconds). */
  readonly now: number;
  readonly primaryCalendarId?: string;
}

/** The context of `call`'s caller at `now`. */
export function callerContext(call: Call, now: number): CallerContext {
  const { principal } = call;
  return { principalId: principal.id, timezone: principal.timezone, now, primaryCalendarId: principal.primary };
}

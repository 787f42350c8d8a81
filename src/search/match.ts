/**
 * Match modes and window relations (calendar_service.proto: MatchMode), over half-open intervals of
 * epoch milliseconds. A zero-duration occurrence at t matches a window when
 * start <= t < end_exclusive, in every mode (RFC 4791 §9.9).
 */
import { assertNever } from "../exhaustive.js";
import type { Interval } from "../index/interval-index.js";

export type MatchMode = "overlap" | "startWithin";

export type WindowRelation = "inside" | "crossesStart" | "crossesEnd" | "spans" | "instant";

/** The window [start, endExclusive). */
export interface Window {
  readonly start: number;
  readonly endExclusive: number;
}

/** True when the occurrence matches the window in the mode. */
export function matches(occurrence: Interval, window: Window, mode: MatchMode): boolean {
  const { start, end } = occurrence;
  const startsWithin = start >= window.start && start < window.endExclusive;
  if (start === end) return startsWithin;
  switch (mode) {
    case "overlap":
      return start < window.endExclusive && end > window.start;
    case "startWithin":
      return startsWithin;
    default:
      return assertNever(mode, "match mode");
  }
}

/** How a matching occurrence sits against the window. */
export function windowRelation(occurrence: Interval, window: Window): WindowRelation {
  const { start, end } = occurrence;
  if (start === end) return "instant";
  const beforeStart = start < window.start;
  const afterEnd = end > window.endExclusive;
  if (beforeStart) return afterEnd ? "spans" : "crossesStart";
  return afterEnd ? "crossesEnd" : "inside";
}

/**
 * Free/busy: which occurrences block time, and the union of what they
 * block, as half-open intervals of epoch milliseconds.
 *
 * - A cancelled occurrence, a transparent one (TRANSP:TRANSPARENT) and a
 *   zero-duration one never block.
 * - A tentative occurrence (STATUS:TENTATIVE) blocks as "tentative"; any
 *   other blocks as "busy". Where busy and tentative time overlap, the time
 *   is busy.
 * - All-day occurrences block their whole days like any other occurrence,
 *   by their TRANSP; without TRANSP they are opaque (RFC 5545's default), so
 *   an all-day "Holiday" blocks the day unless the feed marks it transparent.
 * - Touching intervals merge: [9:00, 10:00) and [10:00, 11:00) give
 *   [9:00, 11:00), as do overlapping ones.
 */

/** How an interval blocks time. */
export type BusyKind = "busy" | "tentative";

/** A half-open interval [start, end) of blocked time. */
export interface BusyInterval {
  readonly start: number;
  readonly end: number;
  readonly kind: BusyKind;
}

/** An occurrence's STATUS ("" when it has none). */
type Status = "CONFIRMED" | "TENTATIVE" | "CANCELLED" | "";

/** How an occurrence of [start, end) with this STATUS and TRANSP blocks time, or undefined when it does not. */
export function busyKindOf(start: number, end: number, status: Status, transparent: boolean): BusyKind | undefined {
  if (status === "CANCELLED" || transparent || end <= start) return undefined;
  return status === "TENTATIVE" ? "tentative" : "busy";
}

/** A half-open interval [start, end) of instants. */
interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * The union of `intervals` within the window [windowStart, windowEnd), in
 * start order: clipped to the window, touching and overlapping intervals of
 * one kind merged, busy taking precedence over tentative where they overlap.
 */
export function mergeBusy(intervals: Iterable<BusyInterval>, windowStart: number, windowEnd: number): BusyInterval[] {
  const busy: BusyInterval[] = [];
  const tentative: BusyInterval[] = [];
  for (const interval of intervals) (interval.kind === "busy" ? busy : tentative).push(interval);
  const busyTime = union(busy, windowStart, windowEnd);
  const tentativeTime = union(tentative, windowStart, windowEnd);
  // Each union is in start order with gaps between its spans; interleave them, tentative only where nothing is busy.
  const merged: BusyInterval[] = [];
  let next = 0;
  // The end of the busy time placed so far: a busy span can reach over the next tentative ones.
  let busyUntil = Number.NEGATIVE_INFINITY;
  for (const span of tentativeTime) {
    let from = Math.max(span.start, busyUntil);
    for (; next < busyTime.length && busyTime[next].start < span.end; next++) {
      const taken = busyTime[next];
      if (taken.start > from) merged.push({ start: from, end: taken.start, kind: "tentative" });
      merged.push({ start: taken.start, end: taken.end, kind: "busy" });
      busyUntil = taken.end;
      from = Math.max(from, taken.end);
    }
    if (from < span.end) merged.push({ start: from, end: span.end, kind: "tentative" });
  }
  for (; next < busyTime.length; next++) merged.push({ start: busyTime[next].start, end: busyTime[next].end, kind: "busy" });
  return merged;
}

/**
 * The union of `spans` (sorted here, in place) within the window, in start
 * order; touching and overlapping spans become one, so consecutive spans of
 * the result always have a gap between them.
 */
function union(spans: Span[], windowStart: number, windowEnd: number): Span[] {
  spans.sort((a, b) => a.start - b.start);
  const merged: Span[] = [];
  let start = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const span of spans) {
    const from = Math.max(span.start, windowStart);
    const to = Math.min(span.end, windowEnd);
    if (from >= to) continue;
    if (from <= end) {
      end = Math.max(end, to);
      continue;
    }
    if (end > Number.NEGATIVE_INFINITY) merged.push({ start, end });
    start = from;
    end = to;
  }
  if (end > Number.NEGATIVE_INFINITY) merged.push({ start, end });
  return merged;
}

/** `merged` (one calendar's or several) as one list of blocked time, tentative counted as busy or not as asked. */
export function blockedTime(merged: Iterable<BusyInterval>, tentativeBlocks: boolean, windowStart: number, windowEnd: number): Span[] {
  const blocking: Span[] = [];
  for (const interval of merged) if (tentativeBlocks || interval.kind === "busy") blocking.push(interval);
  return union(blocking, windowStart, windowEnd);
}

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

/** What decides whether an occurrence blocks time. */
export interface Blocking {
  readonly start: number;
  readonly end: number;
  readonly status: "CONFIRMED" | "TENTATIVE" | "CANCELLED" | "";
  readonly transparent: boolean;
}

/** How an occurrence blocks time, or undefined when it does not. */
export function busyKindOf(occurrence: Blocking): BusyKind | undefined {
  if (occurrence.status === "CANCELLED" || occurrence.transparent || occurrence.end <= occurrence.start) return undefined;
  return occurrence.status === "TENTATIVE" ? "tentative" : "busy";
}

/**
 * The union of `intervals` within the window [windowStart, windowEnd), in
 * start order: clipped to the window, touching and overlapping intervals of
 * one kind merged, busy taking precedence over tentative where they overlap.
 */
export function mergeBusy(intervals: Iterable<BusyInterval>, windowStart: number, windowEnd: number): BusyInterval[] {
  // A sweep over the boundaries, counting how many busy and tentative intervals cover each stretch.
  const edges: { at: number; busy: number; tentative: number }[] = [];
  for (const { start, end, kind } of intervals) {
    const from = Math.max(start, windowStart);
    const to = Math.min(end, windowEnd);
    if (from >= to) continue;
    const busy = kind === "busy" ? 1 : 0;
    edges.push({ at: from, busy, tentative: 1 - busy }, { at: to, busy: -busy, tentative: busy - 1 });
  }
  edges.sort((a, b) => a.at - b.at);
  const merged: BusyInterval[] = [];
  let busy = 0;
  let tentative = 0;
  for (let i = 0; i < edges.length; ) {
    const at = edges[i].at;
    for (; i < edges.length && edges[i].at === at; i++) {
      busy += edges[i].busy;
      tentative += edges[i].tentative;
    }
    const next = i < edges.length ? edges[i].at : at;
    const kind: BusyKind | undefined = busy > 0 ? "busy" : tentative > 0 ? "tentative" : undefined;
    if (kind === undefined || next === at) continue;
    const last = merged.at(-1);
    if (last !== undefined && last.kind === kind && last.end === at) merged[merged.length - 1] = { start: last.start, end: next, kind };
    else merged.push({ start: at, end: next, kind });
  }
  return merged;
}

/** `merged` (one calendar's or several) as one list of blocked time, tentative counted as busy or not as asked. */
export function blockedTime(
  merged: Iterable<BusyInterval>,
  tentativeBlocks: boolean,
  windowStart: number,
  windowEnd: number,
): BusyInterval[] {
  const blocking = [...merged].filter((interval) => tentativeBlocks || interval.kind === "busy");
  return mergeBusy(
    blocking.map((interval) => ({ ...interval, kind: "busy" as const })),
    windowStart,
    windowEnd,
  );
}

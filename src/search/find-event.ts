/**
 * One occurrence by its event_id (GetEvent): looked up in the index, then,
 * for a recurring event, in the series expanded on demand around its slot.
 * Pure, paced and budgeted like a search page, so a look-up in a calendar of
 * very many series holds no other request.
 */
import { Budget } from "../expand/budget.js";
import { eventIdOf, type Occurrence } from "../expand/occurrence.js";
import type { TailRequest } from "../expand/series-tail.js";
import { Pacer, type Steps } from "../stepwise.js";
import { civil } from "../time/civil.js";
import { DAY_MS } from "../time/units.js";
import { pauseFor, type SearchableOccurrences, type SearchLimits, TAIL_VISITS_PER_SEARCH } from "./search-occurrences.js";

/** How far from its original slot an occurrence of a recurring event is looked for: a year either way. */
export const MOVED_REACH_MS = 366 * DAY_MS;

/** What a look-up found: the occurrence; nothing; or no answer within the budget. */
export type Found = { readonly occurrence: Occurrence } | { readonly missing: "not_found" | "budget" };

/** An event_id as eventIdOf writes it: a 16-character UID digest, then "_" and the slot for recurring events. */
const EVENT_ID = /^[A-Za-z0-9_-]{16}(?:_(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?)?$/;

/** The slot an event_id names as an instant (timed) or a wall date (all-day), undefined when it names none; null when it is no event_id at all. */
function slotOf(eventId: string): number | undefined | null {
  const match = EVENT_ID.exec(eventId);
  if (match === null) return null;
  if (match[1] === undefined) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  return civil(year, month, day, hour, minute, second);
}

export function* findOccurrenceSteps(calendar: SearchableOccurrences, eventId: string, limits: SearchLimits): Steps<Found> {
  const slot = slotOf(eventId);
  if (slot === null) return { missing: "not_found" };
  const uidKey = eventId.slice(0, 16);
  const clock = limits.clock ?? Date.now;
  const pacer = new Pacer(1, clock);
  const budget = new Budget(clock() + limits.budgetMs, TAIL_VISITS_PER_SEARCH, clock);
  const isIt = (occurrence: Occurrence) => occurrence.details.uidKey === uidKey && eventIdOf(occurrence) === eventId;
  /** Pauses when a slice is used up; then says whether the look-up must stop. */
  function* breathe(): Steps<boolean> {
    if (pacer.due()) yield* pauseFor(pacer, budget, clock);
    return budget.expired() || limits.signal?.aborted === true;
  }

  // An occurrence of a series left at its slot starts within a day of it: look there first, then everywhere
  // (a single event, or one moved by an override).
  const { index } = calendar;
  const ranges: [number, number][] = [[0, index.size]];
  if (slot !== undefined) ranges.unshift([index.lowerBound(slot - DAY_MS), index.lowerBound(slot + DAY_MS)]);
  for (const [from, to] of ranges) {
    for (let position = from; position < to; position++) {
      if ((position & 1023) === 0 && (yield* breathe())) return { missing: "budget" };
      const occurrence = index.item(position);
      if (isIt(occurrence)) return { occurrence };
    }
  }
  if (slot === undefined) return { missing: "not_found" };

  // First where an occurrence left in place is (a day either side of its slot, so a dense series costs
  // a day of expansion), then anywhere a moved one may be.
  for (const reach of [DAY_MS, MOVED_REACH_MS]) {
    const request: TailRequest = {
      start: slot - reach,
      endExclusive: slot + reach,
      startingFrom: Number.NEGATIVE_INFINITY,
      accepts: isIt,
      budget,
    };
    for (const tail of calendar.tails) {
      if (tail.uidKey !== undefined && tail.uidKey !== uidKey) continue;
      if (yield* breathe()) return { missing: "budget" };
      if (tail.earliestStart(request) === Number.POSITIVE_INFINITY) continue;
      const out: Occurrence[] = [];
      const { cut } = tail.next(request, Number.NEGATIVE_INFINITY, 1, out);
      const occurrence = out.find(request.accepts);
      if (occurrence !== undefined) return { occurrence };
      // Cut short (the budget, or the series' cap within the reach): what was not looked at may hold it.
      if (cut !== "none") return { missing: "budget" };
    }
  }
  return { missing: "not_found" };
}

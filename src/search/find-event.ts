/**
 * One occurrence by its event_id (GetEvent): looked up in the index, then,
 * for a recurring event, in the series expanded on demand around its slot.
 * Pure, paced and budgeted like a search page, so a look-up in a calendar of
 * very many series holds no other request.
 */
import { Budget } from "../expand/budget.js";
import { eventIdOf, type Occurrence } from "../expand/occurrence.js";
import type { TailRequest } from "../expand/series-tail.js";
import type { Steps } from "../stepwise.js";
import { civil } from "../time/civil.js";
import { DAY_MS } from "../time/units.js";
import { INDEX_ENTRIES_PER_UNIT, type SearchableOccurrences, type SearchLimits, UNITS_PER_STEP } from "./search-occurrences.js";

/** How far from its original slot an occurrence of a recurring event is looked for: a year either way. */
export const MOVED_REACH_MS = 366 * DAY_MS;

/** What a look-up found: the occurrence; nothing; or no answer within the work budget or the caller's deadline. */
export type Found = { readonly occurrence: Occurrence } | { readonly missing: "not_found" | "budget" | "deadline" };

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
  const budget = new Budget(limits.work);
  const isIt = (occurrence: Occurrence) => occurrence.details.uidKey === uidKey && eventIdOf(occurrence) === eventId;
  let usedAtPause = 0;
  /** Pauses once a step's worth of work was done; then says why the look-up must stop, if it must. */
  function* breathe(): Steps<"budget" | "deadline" | undefined> {
    if (budget.used - usedAtPause >= UNITS_PER_STEP) {
      yield;
      usedAtPause = budget.used;
    }
    if (limits.interrupted?.() === true) return "deadline";
    return budget.exhausted ? "budget" : undefined;
  }

  const { index } = calendar;

  /** Looks at index positions [from, to) a step at a time. */
  function* inIndex(from: number, to: number): Steps<Found | undefined> {
    for (let position = from; position < to; position += UNITS_PER_STEP) {
      const stop = yield* breathe();
      if (stop !== undefined) return { missing: stop };
      const end = Math.min(to, position + UNITS_PER_STEP);
      budget.spend(Math.ceil((end - position) / INDEX_ENTRIES_PER_UNIT));
      for (let at = position; at < end; at++) {
        const occurrence = index.item(at);
        if (isIt(occurrence)) return { occurrence };
      }
    }
    return undefined;
  }

  /** Expands the series on demand within `reach` of the slot, a step at a time. */
  function* inSeries(slotAt: number, reach: number): Steps<Found | undefined> {
    const request: TailRequest = {
      start: slotAt - reach,
      endExclusive: slotAt + reach,
      startingFrom: Number.NEGATIVE_INFINITY,
      accepts: isIt,
      budget,
    };
    for (const tail of calendar.tails) {
      if (tail.uidKey !== undefined && tail.uidKey !== uidKey) continue;
      let after = Number.NEGATIVE_INFINITY;
      // Doubled while a step ends where the one before did, so every step moves the series on.
      let stepUnits = UNITS_PER_STEP;
      for (;;) {
        const stop = yield* breathe();
        if (stop !== undefined) return { missing: stop };
        budget.spend(1);
        if (tail.earliestStart(request) === Number.POSITIVE_INFINITY) break;
        const out: Occurrence[] = [];
        budget.step(stepUnits);
        const { cut, resumeAt } = tail.next(request, after, 1, out);
        budget.endStep();
        const occurrence = out.find(request.accepts);
        if (occurrence !== undefined) return { occurrence };
        // Out of a step's work: every slot before resumeAt was looked at; go on from there after a pause.
        if (cut === "budget" && !budget.exhausted && resumeAt !== undefined) {
          stepUnits = resumeAt - 1 <= after ? stepUnits * 2 : UNITS_PER_STEP;
          after = resumeAt - 1;
          continue;
        }
        // Cut short (the budget, or the series' cap within the reach): what was not looked at may hold it.
        if (cut !== "none") return { missing: "budget" };
        break;
      }
    }
    return undefined;
  }

  // An occurrence of a series left at its slot starts within a day of it: look there first, in the
  // index and in the series expanded on demand (a dense series costs a day of expansion); then
  // anywhere a single event, or one moved by an override, may be.
  const looks: (() => Steps<Found | undefined>)[] =
    slot === undefined
      ? [() => inIndex(0, index.size)]
      : [
          () => inIndex(index.lowerBound(slot - DAY_MS), index.lowerBound(slot + DAY_MS)),
          () => inSeries(slot, DAY_MS),
          () => inIndex(0, index.size),
          () => inSeries(slot, MOVED_REACH_MS),
        ];
  for (const look of looks) {
    const found = yield* look();
    if (found !== undefined) return found;
  }
  return { missing: "not_found" };
}

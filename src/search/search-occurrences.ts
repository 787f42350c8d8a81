/**
 * One page of a search over one calendar's occurrences: both match modes, the
 * order (start, event_id), and resumption after a position. Pure: the same
 * occurrences and query always give the same page, which is what makes pages
 * of a snapshot concatenate to the unpaged result.
 */

import { Budget } from "../expand/budget.js";
import type { SeriesTail, TailRequest } from "../expand/expand-calendar.js";
import { compareOccurrences, eventIdOf, type Occurrence } from "../expand/occurrence.js";
import type { IntervalIndex } from "../index/interval-index.js";
import { type MatchMode, matches, type Window } from "./match.js";

/** What a search reads: materialised occurrences and the series expanded on demand. */
export interface SearchableOccurrences {
  readonly index: IntervalIndex<Occurrence>;
  readonly tails: readonly SeriesTail[];
}

/** The last occurrence of the previous page: (start, event_id). */
export interface Position {
  readonly start: number;
  readonly eventId: string;
}

export interface PageQuery {
  readonly window: Window;
  readonly mode: MatchMode;
  readonly limit: number;
  /** Resume strictly after this position; undefined for the first page. */
  readonly after?: Position;
}

export interface Page {
  readonly occurrences: readonly Occurrence[];
  /**
   * False when expanding a series on demand hit its work budget or cap, so
   * occurrences may be missing (only hostile feeds get here; the server logs it).
   */
  readonly complete: boolean;
  /** True when more matching occurrences follow the page. */
  readonly more: boolean;
  /** Where the next page starts (after the page's last occurrence), when there is more. */
  readonly next?: Position;
}

/** The page of matching occurrences after `query.after`, in (start, event_id) order. */
export function searchPage(calendar: SearchableOccurrences, query: PageQuery): Page {
  const wanted = query.limit + 1;
  const fromIndex = indexCandidates(calendar.index, query, wanted);
  const { found: fromTails, complete } = tailCandidates(calendar.tails, query, wanted);
  const merged = fromTails.length === 0 ? fromIndex : mergeSorted(fromIndex, fromTails, wanted);
  const occurrences = merged.slice(0, query.limit);
  if (merged.length <= query.limit) return { occurrences, complete, more: false };
  const last = occurrences[occurrences.length - 1];
  return { occurrences, complete, more: true, next: { start: last.start, eventId: eventIdOf(last) } };
}

function indexCandidates(index: IntervalIndex<Occurrence>, query: PageQuery, wanted: number): Occurrence[] {
  const { window, mode, after } = query;
  const found: Occurrence[] = [];
  const from = after === undefined ? 0 : positionAfter(index, after);
  if (mode === "startWithin") {
    const stop = index.lowerBound(window.endExclusive);
    for (let position = Math.max(from, index.lowerBound(window.start)); position < stop && found.length < wanted; position++) {
      found.push(index.items[position]);
    }
    return found;
  }
  index.visitCandidates(window.endExclusive, window.start, from, (occurrence) => {
    if (matches(occurrence, window, mode)) found.push(occurrence);
    return found.length < wanted;
  });
  return found;
}

/** The first index position strictly after `after` in (start, event_id) order. */
function positionAfter(index: IntervalIndex<Occurrence>, after: Position): number {
  let position = index.lowerBound(after.start);
  while (position < index.size) {
    const occurrence = index.items[position];
    if (occurrence.start > after.start || eventIdOf(occurrence) > after.eventId) break;
    position++;
  }
  return position;
}

/** Rule dates one search may visit across all its on-demand series (well under a second). */
export const TAIL_VISITS_PER_SEARCH = 250_000;

function tailCandidates(tails: readonly SeriesTail[], query: PageQuery, wanted: number): { found: Occurrence[]; complete: boolean } {
  if (tails.length === 0) return { found: [], complete: true };
  const { window, mode, after } = query;
  const collected: Occurrence[] = [];
  const accepts = (occurrence: Occurrence) => matches(occurrence, window, mode) && isAfter(occurrence, after);
  const request: TailRequest = {
    start: window.start,
    endExclusive: window.endExclusive,
    startingFrom: after?.start ?? -Infinity,
    accepts,
    wanted,
    budget: new Budget(Infinity, TAIL_VISITS_PER_SEARCH),
  };
  let complete = true;
  for (const tail of tails) complete = tail.collect(request, collected) && complete;
  return { found: collected.filter(accepts).sort(compareOccurrences), complete };
}

function isAfter(occurrence: Occurrence, after: Position | undefined): boolean {
  if (after === undefined || occurrence.start > after.start) return true;
  return occurrence.start === after.start && eventIdOf(occurrence) > after.eventId;
}

function mergeSorted(a: Occurrence[], b: Occurrence[], wanted: number): Occurrence[] {
  const merged: Occurrence[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < wanted && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && compareOccurrences(a[i], b[j]) <= 0)) merged.push(a[i++]);
    else merged.push(b[j++]);
  }
  return merged;
}

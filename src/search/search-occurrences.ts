/**
 * One page of a search over one calendar's occurrences, or several
 * calendars' merged: both match modes, the order (start, event_id), or
 * (start, calendar_id, event_id), and resumption after a position. Pure: the same
 * occurrences, query and budget always give the same page, which is what
 * makes pages of a snapshot concatenate to the unpaged result.
 *
 * The page is a k-way merge. The index and every series expanded on demand
 * are streams in (start, event_id) order; a heap holds each stream's next
 * occurrence, or, for a stream not opened yet, a lower bound of it. A page of
 * L results over S series therefore costs about (S + L) log S heap steps and
 * as many small expansions (each series' first occurrence at or after the
 * window, then a few more from the series that supply the page), never every
 * occurrence in the window. Everything popped from the heap is exact, so a
 * search stopped by its budget still returns a correct prefix.
 */

import { Budget, type Clock } from "../expand/budget.js";
import { compareOccurrences, eventIdOf, type Occurrence } from "../expand/occurrence.js";
import type { SeriesTail, TailRequest } from "../expand/series-tail.js";
import type { IntervalIndex } from "../index/interval-index.js";
import { Pacer, runAtOnce, type Steps } from "../stepwise.js";
import { type MatchMode, matches, type Window } from "./match.js";
import { matchesWords } from "./text-query.js";

/** What a search reads: materialised occurrences and the series expanded on demand. */
export interface SearchableOccurrences {
  readonly index: IntervalIndex<Occurrence>;
  readonly tails: readonly SeriesTail[];
}

/**
 * The last occurrence of the previous page: (start, key). For one calendar
 * the key is the event_id; in a search of several calendars it is
 * `calendar_id + " " + event_id`, which orders as (calendar_id, event_id)
 * because calendar ids hold no character below "-" (config/calq-config.ts).
 */
export interface Position {
  readonly start: number;
  readonly eventId: string;
}

/** One calendar of a search over several: its id names it in the merged order. */
export interface KeyedCalendar {
  readonly id: string;
  readonly occurrences: SearchableOccurrences;
  /** As PageQuery.withholdClassified, for this calendar. */
  readonly withholdClassified?: boolean;
}

/**
 * Where a search stopped early resumes when it returned nothing: before every
 * occurrence calq can hold (the earliest instant a Date can name), so a
 * cursor can carry it.
 */
export const BEFORE_ALL: Position = { start: -8.64e15, eventId: "" };

export interface PageQuery {
  readonly window: Window;
  readonly mode: MatchMode;
  readonly limit: number;
  /** Resume strictly after this position; undefined for the first page. */
  readonly after?: Position;
  /** Folded words that must all occur in an event's searchable text (search/text-query.ts); none: every event. */
  readonly words?: readonly string[];
  /**
   * The caller may not read the text of PRIVATE or CONFIDENTIAL events
   * (EventDetails.classified): words never match them. For a search of
   * several calendars, KeyedCalendar says it per calendar instead.
   */
  readonly withholdClassified?: boolean;
}

/** Why a page stopped before it was full: its own work budget, or the caller's deadline. */
export type PartialReason = "budget" | "deadline";

/** How much one search may work, and when it must answer. */
export interface SearchLimits {
  /** Milliseconds of work on `clock`; time paused for other requests does not count. */
  readonly budgetMs: number;
  /** The instant on `clock` by which the page must be answered (the caller's deadline, less time to send it). */
  readonly answerBy?: number;
  /** Set when the caller has gone (cancelled): the search stops at its next step. */
  readonly signal?: AbortSignal;
  readonly clock?: Clock;
}

/** Rule dates one search may visit across all its on-demand series: a bound that does not depend on the machine's speed. */
export const TAIL_VISITS_PER_SEARCH = 250_000;

/** Work a search may do when its caller sets no limits (tests, the CLI, benchmarks). */
export const UNLIMITED: SearchLimits = { budgetMs: Number.POSITIVE_INFINITY };

export interface Page {
  readonly occurrences: readonly Occurrence[];
  /** For each occurrence, the index of the calendar it came from (always 0 for a search of one calendar). */
  readonly sources: readonly number[];
  /**
   * False when expanding a series on demand hit its per-query cap, so
   * occurrences of that series may be missing (only hostile feeds get here;
   * the server logs it).
   */
  readonly complete: boolean;
  /** True when more matching occurrences may follow the page. */
  readonly more: boolean;
  /** Where the next page starts (after the page's last occurrence), when there is more. */
  readonly next?: Position;
  /**
   * Set when the search stopped before the page was full: `occurrences` are
   * exactly the first matches after the query's position (possibly none),
   * and `next` continues after them.
   */
  readonly partial?: PartialReason;
}

/** The page of matching occurrences after `query.after`, in (start, event_id) order, run to the end at once. */
export function searchPage(calendar: SearchableOccurrences, query: PageQuery, limits: SearchLimits = UNLIMITED): Page {
  return runAtOnce(searchPageSteps(calendar, query, limits));
}

/**
 * The same search as steps that pause about every millisecond of work, so a caller
 * may let other requests run between them (runYielding). Paused time does not
 * count against `limits.budgetMs`; it does count towards `limits.answerBy`.
 */
export function searchPageSteps(calendar: SearchableOccurrences, query: PageQuery, limits: SearchLimits): Steps<Page> {
  return mergedPageSteps([{ prefix: "", occurrences: calendar, withholdClassified: query.withholdClassified === true }], query, limits);
}

/**
 * One page over several calendars in the merged order (start, calendar_id,
 * event_id): one k-way merge over every calendar's streams, one budget, and
 * positions keyed as `Position` says. The calendars must be in id order, each once.
 */
export function searchCalendarsPageSteps(calendars: readonly KeyedCalendar[], query: PageQuery, limits: SearchLimits): Steps<Page> {
  return mergedPageSteps(
    calendars.map((calendar) => ({
      prefix: `${calendar.id} `,
      occurrences: calendar.occurrences,
      withholdClassified: calendar.withholdClassified === true,
    })),
    query,
    limits,
  );
}

/** A calendar in the merge: the prefix its event ids take in the merged order ("" for a search of one calendar). */
interface Source {
  readonly prefix: string;
  readonly occurrences: SearchableOccurrences;
  readonly withholdClassified: boolean;
}

function* mergedPageSteps(sources: readonly Source[], query: PageQuery, limits: SearchLimits): Steps<Page> {
  const wanted = query.limit + 1;
  // One calendar and nothing to expand: the index alone answers, in O((L + 1) log n), with no merge.
  if (sources.length === 1 && sources[0].occurrences.tails.length === 0) {
    const found = indexCandidates(sources[0], query, wanted);
    return pageOf(found, new Array<number>(found.length).fill(0), sources, query.limit, true);
  }
  const clock = limits.clock ?? Date.now;
  const budget = new Budget(clock() + limits.budgetMs, TAIL_VISITS_PER_SEARCH, clock);
  const { window, mode, after } = query;
  const words = query.words ?? [];

  const heap = new EntryHeap();
  for (const [index, source] of sources.entries()) {
    // Its head at once (no budget is spent on a list), so an empty list leaves nothing in the heap.
    const head = new ListStream(index, source.prefix, indexCandidates(source, query, wanted)).advance().entry;
    if (head !== undefined) heap.push(head);
  }
  const found: Occurrence[] = [];
  const from: number[] = [];
  let complete = true;
  let partial: PartialReason | undefined;
  // A millisecond, not the 10 ms a reload uses: a search of another calendar
  // needs several turns of the event loop (request, handler, response frames)
  // and waits for a slice of every expensive search at each of them.
  const pacer = new Pacer(1, clock);
  // Callers check `pacer.due()` first: a step that does not pause makes no generator.
  const pause = () => pauseFor(pacer, budget, clock);

  // Each series' lower bound; a series rebuilt from a worker's recipe is made
  // here on its first search, so this too is paced and budgeted, every 32
  // series (a bound alone costs far less than looking at the clock).
  let seen = 0;
  for (const [index, source] of sources.entries()) {
    const { prefix, withholdClassified } = source;
    const request: TailRequest = {
      start: window.start,
      endExclusive: window.endExclusive,
      startingFrom: after?.start ?? Number.NEGATIVE_INFINITY,
      accepts: (occurrence) =>
        matches(occurrence, window, mode) && isAfter(occurrence, prefix, after) && wordsMatch(words, occurrence, withholdClassified),
      budget,
    };
    for (const tail of source.occurrences.tails) {
      if ((seen++ & 31) === 0) {
        if (pacer.due()) yield* pause();
        partial = stopReason(limits, budget, clock);
        if (partial !== undefined) break;
      }
      const earliest = tail.earliestStart(request);
      if (earliest !== Number.POSITIVE_INFINITY) heap.push({ start: earliest, stream: new TailStream(index, prefix, tail, request) });
    }
    if (partial !== undefined) break;
  }

  // An empty heap is the whole answer, however little budget is left.
  while (partial === undefined && found.length < wanted && !heap.empty) {
    if (pacer.due()) yield* pause();
    partial = stopReason(limits, budget, clock);
    if (partial !== undefined) break;
    const top = heap.pop();
    if (top === undefined) break;
    if (top.occurrence === undefined) {
      // A lower bound: open the stream (or fetch its next batch) and put its real head back.
      const step = top.stream.advance();
      if (step.cut === "budget") {
        partial = "budget";
        break;
      }
      if (step.cut === "cap") complete = false;
      if (step.entry !== undefined) heap.push(step.entry);
      continue;
    }
    found.push(top.occurrence);
    from.push(top.stream.source);
    // The stream's next occurrence comes after this one; look it up only if it could be next.
    heap.push({ start: top.start, boundAfter: top, stream: top.stream });
  }

  if (partial !== undefined) {
    const last = found.length - 1;
    const next = last < 0 ? (after ?? BEFORE_ALL) : positionOf(found[last], sources[from[last]].prefix);
    return { occurrences: found, sources: from, complete, more: true, next, partial };
  }
  return pageOf(found, from, sources, query.limit, complete);
}

/** Pauses for other requests once a slice of work is used up; the time away does not count against `budget`. */
export function* pauseFor(pacer: Pacer, budget: Budget, clock: Clock): Steps<void> {
  const paused = clock();
  yield;
  pacer.resumed();
  budget.extend(clock() - paused);
}

function positionOf(occurrence: Occurrence, prefix: string): Position {
  return { start: occurrence.start, eventId: prefix + eventIdOf(occurrence) };
}

/**
 * A page from up to limit + 1 matches in order (`from`: the source of each):
 * the extra one only says that more follow.
 */
function pageOf(found: readonly Occurrence[], from: readonly number[], sources: readonly Source[], limit: number, complete: boolean): Page {
  const occurrences = found.slice(0, limit);
  const kept = from.slice(0, limit);
  if (found.length <= limit) return { occurrences, sources: kept, complete, more: false };
  const last = occurrences.length - 1;
  return { occurrences, sources: kept, complete, more: true, next: positionOf(occurrences[last], sources[kept[last]].prefix) };
}

/** Whether the search must stop now, and why. */
function stopReason(limits: SearchLimits, budget: Budget, clock: Clock): PartialReason | undefined {
  if (limits.signal?.aborted === true) return "deadline";
  if (limits.answerBy !== undefined && clock() >= limits.answerBy) return "deadline";
  if (budget.exhausted || budget.expired()) return "budget";
  return undefined;
}

/**
 * A heap entry: a stream and its next occurrence, keyed by (start, event_id);
 * or, with no occurrence, a key no later than the stream's next one: the
 * key of the entry it follows (`boundAfter`), else (start, ""). Event ids
 * are made only when starts tie.
 */
interface Entry {
  readonly start: number;
  readonly stream: Stream;
  readonly occurrence?: Occurrence;
  readonly boundAfter?: Entry;
  id?: string;
}

function idOf(entry: Entry): string {
  if (entry.id === undefined) {
    if (entry.occurrence !== undefined) entry.id = entry.stream.prefix + eventIdOf(entry.occurrence);
    else entry.id = entry.boundAfter === undefined ? "" : idOf(entry.boundAfter);
  }
  return entry.id;
}

/** What advancing a stream gave: its next entry (none at its end), and whether expansion was cut. */
interface Advance {
  readonly entry?: Entry;
  readonly cut: "none" | "cap" | "budget";
}

interface Stream {
  /** The index of the calendar the stream belongs to, and that calendar's key prefix. */
  readonly source: number;
  readonly prefix: string;
  advance(): Advance;
}

function entryOf(stream: Stream, occurrence: Occurrence): Entry {
  return { start: occurrence.start, stream, occurrence };
}

/** Occurrences already exact and in order (the index's candidates). */
class ListStream implements Stream {
  private position = 0;
  constructor(
    readonly source: number,
    readonly prefix: string,
    private readonly items: readonly Occurrence[],
  ) {}
  advance(): Advance {
    const item = this.items[this.position++];
    return { entry: item === undefined ? undefined : entryOf(this, item), cut: "none" };
  }
}

/**
 * One on-demand series as a stream: batches of 1, 2, 4, ... occurrences, so
 * a series that supplies one result costs one small expansion and one that
 * supplies the whole page costs about the page.
 */
class TailStream implements Stream {
  private buffer: Occurrence[] = [];
  private position = 0;
  private batch = 1;
  private more = true;
  /** The last occurrence handed out; the next batch starts after it. */
  private last?: Occurrence;

  constructor(
    readonly source: number,
    readonly prefix: string,
    private readonly tail: SeriesTail,
    private readonly request: TailRequest,
  ) {}

  advance(): Advance {
    let cut: Advance["cut"] = "none";
    if (this.position === this.buffer.length && this.more) cut = this.fetch();
    if (cut === "budget") return { cut };
    const item = this.buffer[this.position++];
    if (item === undefined) return { cut };
    this.last = item;
    return { entry: entryOf(this, item), cut };
  }

  private fetch(): Advance["cut"] {
    const raw: Occurrence[] = [];
    const after = this.last?.start ?? Number.NEGATIVE_INFINITY;
    const { cut, more } = this.tail.next(this.request, after, this.batch, raw);
    const last = this.last;
    const fresh = raw
      .filter((occurrence) => this.request.accepts(occurrence) && (last === undefined || compareOccurrences(occurrence, last) > 0))
      .sort(compareOccurrences);
    // Past the first `batch`, a batch that says more may follow is not exact.
    this.buffer = more ? fresh.slice(0, this.batch) : fresh;
    this.position = 0;
    this.more = more && this.buffer.length > 0;
    this.batch *= 2;
    return cut;
  }
}

/** A binary min-heap of entries by (start, id), ids compared as the order compares event_ids. */
class EntryHeap {
  private readonly entries: Entry[] = [];

  get empty(): boolean {
    return this.entries.length === 0;
  }

  push(entry: Entry): void {
    const entries = this.entries;
    entries.push(entry);
    let child = entries.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!before(entries[child], entries[parent])) break;
      [entries[child], entries[parent]] = [entries[parent], entries[child]];
      child = parent;
    }
  }

  pop(): Entry | undefined {
    const entries = this.entries;
    const top = entries[0];
    const last = entries.pop();
    if (entries.length === 0 || last === undefined) return top;
    entries[0] = last;
    let parent = 0;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let least = parent;
      if (left < entries.length && before(entries[left], entries[least])) least = left;
      if (right < entries.length && before(entries[right], entries[least])) least = right;
      if (least === parent) return top;
      [entries[least], entries[parent]] = [entries[parent], entries[least]];
      parent = least;
    }
  }
}

/**
 * Entry order: by start, then id; at equal keys a lower bound (no
 * occurrence) comes first, so a stream is looked into before anything at its
 * bound is handed out.
 */
function before(a: Entry, b: Entry): boolean {
  if (a.start !== b.start) return a.start < b.start;
  const idA = idOf(a);
  const idB = idOf(b);
  if (idA !== idB) return idA < idB;
  return a.occurrence === undefined && b.occurrence !== undefined;
}

/** Whether an occurrence holds every word; one whose text the caller may not read holds none. */
function wordsMatch(words: readonly string[], occurrence: Occurrence, withholdClassified: boolean): boolean {
  if (words.length === 0) return true;
  if (withholdClassified && occurrence.details.classified === true) return false;
  return matchesWords(words, occurrence.details.searchable);
}

function indexCandidates({ occurrences: { index }, prefix, withholdClassified }: Source, query: PageQuery, wanted: number): Occurrence[] {
  const { window, mode, after } = query;
  const words = query.words ?? [];
  const found: Occurrence[] = [];
  const from = after === undefined ? 0 : positionAfter(index, prefix, after);
  if (mode === "startWithin") {
    const stop = index.lowerBound(window.endExclusive);
    for (let position = Math.max(from, index.lowerBound(window.start)); position < stop && found.length < wanted; position++) {
      const occurrence = index.item(position);
      if (wordsMatch(words, occurrence, withholdClassified)) found.push(occurrence);
    }
    return found;
  }
  index.visitCandidates(window.endExclusive, window.start, from, (occurrence) => {
    if (matches(occurrence, window, mode) && wordsMatch(words, occurrence, withholdClassified)) found.push(occurrence);
    return found.length < wanted;
  });
  return found;
}

/** The first index position strictly after `after` in (start, key) order, keys being `prefix` + event_id. */
function positionAfter(index: IntervalIndex<Occurrence>, prefix: string, after: Position): number {
  let position = index.lowerBound(after.start);
  while (position < index.size) {
    const occurrence = index.item(position);
    if (occurrence.start > after.start || prefix + eventIdOf(occurrence) > after.eventId) break;
    position++;
  }
  return position;
}

function isAfter(occurrence: Occurrence, prefix: string, after: Position | undefined): boolean {
  if (after === undefined || occurrence.start > after.start) return true;
  return occurrence.start === after.start && prefix + eventIdOf(occurrence) > after.eventId;
}

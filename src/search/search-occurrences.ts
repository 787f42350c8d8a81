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

import { Budget } from "../expand/budget.js";
import { compareOccurrences, eventIdOf, type Occurrence } from "../expand/occurrence.js";
import type { SeriesTail, TailRequest } from "../expand/series-tail.js";
import type { IntervalIndex } from "../index/interval-index.js";
import { runAtOnce, type Steps } from "../stepwise.js";
import { type MatchMode, matches, type Window } from "./match.js";
import { filtersNothing, keeps, type OccurrenceFilter } from "./occurrence-filter.js";
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

/** A key after every event_id and every `calendar_id event_id` key (they are ASCII): a position after all that start at its instant. */
const AFTER_ALL_KEYS = "\uffff";

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
  /** What else an occurrence must be (occurrence-filter.ts); none: every occurrence. */
  readonly filter?: OccurrenceFilter;
}

/** Why a page stopped before it was full: its own work budget, or the caller's deadline. */
export type PartialReason = "budget" | "deadline";

/**
 * How much one search may work, and when it must stop. Work is counted, never
 * timed (docs/decisions.md, "Budgets count work"): a unit is a rule date
 * visited, 16 index entries looked at, or a series opened. So the same request
 * over the same snapshot gets the same page on any machine at any load; only
 * the caller's own deadline (`interrupted`) can stop it sooner.
 */
export interface SearchLimits {
  /** Units of work the search may do; past them it answers what it found, marked partial ("budget"). */
  readonly work: number;
  /** Asked between steps: true once the caller's deadline has passed or the caller has left ("deadline"). */
  readonly interrupted?: () => boolean;
}

/** Work a search may do when its caller sets no limits (tests, the CLI, benchmarks). */
export const UNLIMITED: SearchLimits = { work: Number.POSITIVE_INFINITY };

/**
 * Units one step of a search may spend before it pauses: a step of an
 * on-demand series stops at an exact point and resumes there, and the steps
 * pause between them, so a caller running the steps (the service's turns)
 * can let other calls run after every few hundred units.
 */
export const UNITS_PER_STEP = 256;

/** Index entries looked at that count as one unit of work: an entry costs a small part of a rule date's expansion. */
export const INDEX_ENTRIES_PER_UNIT = 16;

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
   * and `next` continues after them, or after every occurrence the search
   * ruled out, when that is further (then it may equal the query's own
   * position only if the search could not move at all).
   */
  readonly partial?: PartialReason;
  /** Units of work the page took. */
  readonly work: number;
}

/** The page of matching occurrences after `query.after`, in (start, event_id) order, run to the end at once. */
export function searchPage(calendar: SearchableOccurrences, query: PageQuery, limits: SearchLimits = UNLIMITED): Page {
  return runAtOnce(searchPageSteps(calendar, query, limits));
}

/**
 * The same search as steps that pause every few hundred units of work, so a
 * caller may let other requests run between them. Where it pauses depends
 * on the work alone, never on a clock.
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

/**
 * The work of one search: its budget, and the units spent since it last
 * paused, so it pauses after about UNITS_PER_STEP of them.
 */
class SearchWork {
  readonly budget: Budget;
  private sincePause = 0;
  constructor(private readonly limits: SearchLimits) {
    this.budget = new Budget(limits.work);
  }
  /** Counts `units` of work done outside the budget's own counting (loop steps), for pacing only. */
  tick(units = 1): void {
    this.sincePause += units;
  }
  /**
   * Whether a step's worth of work was done since the last pause: then the
   * search yields, and calls `paused` when resumed. (A check rather than a
   * generator to delegate to: the check runs for every occurrence read.)
   */
  due(): boolean {
    return this.sincePause + this.budget.used - this.usedAtPause >= UNITS_PER_STEP;
  }
  paused(): void {
    this.sincePause = 0;
    this.usedAtPause = this.budget.used;
  }
  private usedAtPause = 0;
  /** Whether the search must stop now, and why. */
  stopReason(): PartialReason | undefined {
    if (this.limits.interrupted?.() === true) return "deadline";
    if (this.budget.exhausted) return "budget";
    return undefined;
  }
}

function* mergedPageSteps(sources: readonly Source[], query: PageQuery, limits: SearchLimits): Steps<Page> {
  const wanted = query.limit + 1;
  const work = new SearchWork(limits);
  const { window, mode, after } = query;
  const words = query.words ?? [];

  const heap = new EntryHeap();
  for (const [index, source] of sources.entries()) {
    const head = new IndexStream(index, source, query, work.budget).advance().entry;
    if (head !== undefined) heap.push(head);
  }
  const found: Occurrence[] = [];
  const from: number[] = [];
  let complete = true;
  let partial: PartialReason | undefined;
  // Set once every series has a place in the heap: from then on the heap bounds every match not yet found.
  let placed = false;

  // Each series' lower bound; a series rebuilt from a worker's recipe is
  // made here on its first search, so opening one is a unit of work.
  for (const [index, source] of sources.entries()) {
    const { prefix, withholdClassified } = source;
    const request: TailRequest = {
      start: window.start,
      endExclusive: window.endExclusive,
      startingFrom: Math.max(after?.start ?? Number.NEGATIVE_INFINITY, mode === "startWithin" ? window.start : Number.NEGATIVE_INFINITY),
      accepts: (occurrence) =>
        matches(occurrence, window, mode) &&
        isAfter(occurrence, prefix, after) &&
        wordsMatch(words, occurrence, withholdClassified) &&
        filterKeeps(query.filter, occurrence, withholdClassified),
      budget: work.budget,
    };
    for (const tail of source.occurrences.tails) {
      if (work.due()) {
        yield;
        work.paused();
      }
      partial = work.stopReason();
      if (partial !== undefined) break;
      work.budget.spend(1);
      const earliest = tail.earliestStart(request);
      if (earliest !== Number.POSITIVE_INFINITY) heap.push({ start: earliest, stream: new TailStream(index, prefix, tail, request) });
    }
    if (partial !== undefined) break;
  }
  placed = partial === undefined;

  // An empty heap is the whole answer, however little budget is left.
  while (found.length < wanted && !heap.empty) {
    work.tick();
    if (work.due()) {
      yield;
      work.paused();
    }
    partial ??= work.stopReason();
    const top = heap.peek()!;
    // Out of work or time: occurrences already found, and before every stream's bound, are still handed out.
    if (partial !== undefined && top.occurrence === undefined) break;
    heap.pop();
    if (top.occurrence === undefined) {
      // A lower bound: take a step of the stream and put what it gives back (its head, or a later bound).
      const step = top.stream.advance();
      if (step.cut === "budget") partial = "budget";
      if (step.cut === "cap") complete = false;
      if (step.entry !== undefined) heap.push(step.entry);
      continue;
    }
    found.push(top.occurrence);
    from.push(top.stream.source);
    // The stream's next occurrence comes after this one; look it up only if it could be next.
    heap.push({ start: top.start, boundAfter: top, stream: top.stream });
  }

  if (partial !== undefined && found.length < wanted) {
    const last = found.length - 1;
    let next = last < 0 ? (after ?? BEFORE_ALL) : positionOf(found[last], sources[from[last]].prefix);
    // Every match starting before the lowest bound left was found: the next page may start there,
    // past the work done, even when this one found nothing.
    const bound = heap.peek()?.start ?? Number.POSITIVE_INFINITY;
    if (placed && bound !== Number.POSITIVE_INFINITY && bound - 1 > next.start) next = { start: bound - 1, eventId: AFTER_ALL_KEYS };
    return { occurrences: found, sources: from, complete, more: true, next, partial, work: work.budget.used };
  }
  return pageOf(found, from, sources, query.limit, complete, work.budget.used);
}

function positionOf(occurrence: Occurrence, prefix: string): Position {
  return { start: occurrence.start, eventId: prefix + eventIdOf(occurrence) };
}

/**
 * A page from up to limit + 1 matches in order (`from`: the source of each):
 * the extra one only says that more follow.
 */
function pageOf(
  found: readonly Occurrence[],
  from: readonly number[],
  sources: readonly Source[],
  limit: number,
  complete: boolean,
  work: number,
): Page {
  const occurrences = found.slice(0, limit);
  const kept = from.slice(0, limit);
  if (found.length <= limit) return { occurrences, sources: kept, complete, more: false, work };
  const last = occurrences.length - 1;
  return { occurrences, sources: kept, complete, more: true, next: positionOf(occurrences[last], sources[kept[last]].prefix), work };
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

/**
 * What a step of a stream gave: its next entry (an occurrence, or a lower
 * bound of its next one when the step ran out of work first; none at its
 * end), and whether expansion was cut ("budget": the whole budget is spent).
 */
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

/**
 * The index's matching occurrences after the query's position, in order,
 * looked at UNITS_PER_STEP entries per step (each INDEX_ENTRIES_PER_UNIT
 * of them a unit of work): a word that no event holds
 * costs a step at a time, however many occurrences the window has, and
 * gives way to streams whose occurrences come earlier.
 */
class IndexStream implements Stream {
  readonly source: number;
  readonly prefix: string;
  /** The next index position to look at. */
  private position: number;
  /** Positions at or past this are not candidates. */
  private readonly stop: number;
  private readonly words: readonly string[];

  constructor(
    source: number,
    private readonly calendar: Source,
    private readonly query: PageQuery,
    private readonly budget: Budget,
  ) {
    this.source = source;
    this.prefix = calendar.prefix;
    const { index } = calendar.occurrences;
    const { window, after, mode } = query;
    this.words = query.words ?? [];
    const fromAfter = after === undefined ? 0 : positionAfter(index, calendar.prefix, after);
    this.position = mode === "startWithin" ? Math.max(fromAfter, index.lowerBound(window.start)) : fromAfter;
    this.stop = index.lowerBound(window.endExclusive);
  }

  advance(): Advance {
    const { index } = this.calendar.occurrences;
    const { window, mode } = this.query;
    let looked = 0;
    let found: Occurrence | undefined;
    if (mode === "startWithin") {
      while (this.position < this.stop && looked < UNITS_PER_STEP && found === undefined) {
        const occurrence = index.item(this.position++);
        looked++;
        if (this.accepts(occurrence)) found = occurrence;
      }
    } else {
      index.visitCandidates(window.endExclusive, window.start, this.position, (occurrence, position) => {
        looked++;
        this.position = position + 1;
        if (this.accepts(occurrence)) found = occurrence;
        return found === undefined && looked < UNITS_PER_STEP;
      });
      if (found === undefined && looked < UNITS_PER_STEP) this.position = this.stop;
    }
    const cut = this.budget.spend(Math.ceil(looked / INDEX_ENTRIES_PER_UNIT)) ? "none" : "budget";
    if (found !== undefined) return { entry: entryOf(this, found), cut };
    if (this.position >= this.stop) return { cut };
    // Not found within the step: a bound at the next position's start, so streams with earlier occurrences go first.
    return { entry: { start: index.item(this.position).start, stream: this }, cut };
  }

  private accepts(occurrence: Occurrence): boolean {
    const { window, mode, filter } = this.query;
    const { withholdClassified } = this.calendar;
    return (
      matches(occurrence, window, mode) &&
      wordsMatch(this.words, occurrence, withholdClassified) &&
      filterKeeps(filter, occurrence, withholdClassified)
    );
  }
}

/**
 * One on-demand series as a stream: batches of 1, 2, 4, ... occurrences, so
 * a series that supplies one result costs one small expansion and one that
 * supplies the whole page costs about the page. Each expansion may spend
 * UNITS_PER_STEP units; one that runs out stops at an exact slot, hands out
 * what it found before it, and resumes from that slot at its next step, so
 * the search spends its budget in the window's order across every series.
 */
class TailStream implements Stream {
  private buffer: Occurrence[] = [];
  private position = 0;
  private batch = 1;
  private more = true;
  /** The last occurrence handed out; the next batch starts after it. */
  private last?: Occurrence;
  /** Set when an expansion ran out of its step: the next one starts at this slot instant. */
  private resumeAt?: number;
  /** A reordered series' occurrences found so far, held until its expansion completes (their starts are not in slot order). */
  private held: Occurrence[] = [];
  /**
   * Units the next step may spend: doubled while a step ends where the one
   * before did (its work all went on what comes before the next slot, such
   * as a dense EXRULE's dates), so every step moves the series on.
   */
  private stepUnits = UNITS_PER_STEP;

  constructor(
    readonly source: number,
    readonly prefix: string,
    private readonly tail: SeriesTail,
    private readonly request: TailRequest,
  ) {}

  advance(): Advance {
    if (this.position === this.buffer.length && this.more) {
      const { cut, bound } = this.fetch();
      if (bound !== undefined) return { entry: { start: bound, stream: this }, cut };
      const item = this.buffer[this.position++];
      if (item === undefined) return { cut };
      this.last = item;
      return { entry: entryOf(this, item), cut };
    }
    const item = this.buffer[this.position++];
    if (item === undefined) return { cut: "none" };
    this.last = item;
    return { entry: entryOf(this, item), cut: "none" };
  }

  /**
   * One step of expansion. Gives `bound` when the step ran out of work
   * before it found anything to hand out: no later occurrence of the
   * series starts before it.
   */
  private fetch(): { cut: "none" | "cap" | "budget"; bound?: number } {
    const { budget } = this.request;
    const raw: Occurrence[] = [];
    const after = this.resumeAt !== undefined ? this.resumeAt - 1 : (this.last?.start ?? Number.NEGATIVE_INFINITY);
    budget.step(this.stepUnits);
    const batch = this.tail.next(this.request, after, this.batch, raw);
    budget.endStep();
    const last = this.last;
    const fresh = raw.filter(
      (occurrence) => this.request.accepts(occurrence) && (last === undefined || compareOccurrences(occurrence, last) > 0),
    );
    if (batch.cut === "budget") {
      // Out of this step's work (or of the whole budget: "budget") at an exact slot: everything before it was looked at.
      const cut = budget.exhausted ? "budget" : "none";
      const resumeAt = batch.resumeAt ?? after + 1;
      this.stepUnits = this.resumeAt !== undefined && resumeAt <= this.resumeAt ? this.stepUnits * 2 : UNITS_PER_STEP;
      this.resumeAt = resumeAt;
      if (this.tail.reordered) {
        this.held.push(...fresh);
        return { cut, bound: this.boundWhileHeld() };
      }
      fresh.sort(compareOccurrences);
      if (fresh.length === 0) return { cut, bound: resumeAt - this.tail.reachAhead };
      // The first `batch` are exact; past them another rule of the series may have stopped early.
      this.fill(fresh.length > this.batch ? fresh.slice(0, this.batch) : fresh, true);
      if (fresh.length > this.batch) this.resumeAt = undefined;
      return { cut };
    }
    this.resumeAt = undefined;
    const all = this.held.length === 0 ? fresh : [...this.held, ...fresh];
    this.held = [];
    all.sort(compareOccurrences);
    // Past the first `batch`, a batch that says more may follow is not exact.
    this.fill(batch.more ? all.slice(0, this.batch) : all, batch.more);
    return { cut: batch.cut };
  }

  private fill(items: Occurrence[], more: boolean): void {
    this.buffer = items;
    this.position = 0;
    this.more = more && (items.length > 0 || this.resumeAt !== undefined);
    this.batch *= 2;
  }

  /** While a reordered series' occurrences are held: the earliest of them, or the series' bound from the resume slot. */
  private boundWhileHeld(): number {
    let bound = this.resumeAt! - this.tail.reachAhead;
    for (const occurrence of this.held) bound = Math.min(bound, occurrence.start);
    return bound;
  }
}

/** A binary min-heap of entries by (start, id), ids compared as the order compares event_ids. */
class EntryHeap {
  private readonly entries: Entry[] = [];

  get empty(): boolean {
    return this.entries.length === 0;
  }

  /** The least entry, left in place. */
  peek(): Entry | undefined {
    return this.entries[0];
  }

  push(entry: Entry): void {
    const entries = this.entries;
    entries.push(entry);
    let child = entries.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!before(entries[child], entries[parent])) break;
      swap(entries, child, parent);
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
      swap(entries, least, parent);
      parent = least;
    }
  }
}

/** Swaps two entries without the array a destructuring swap allocates (a heap does it for every occurrence read). */
function swap(entries: Entry[], i: number, j: number): void {
  const entry = entries[i];
  entries[i] = entries[j];
  entries[j] = entry;
}

/**
 * Entry order: by start, then id; at equal keys a lower bound (no
 * occurrence) comes first, so a stream is looked into before anything at its
 * bound is handed out.
 */
function before(a: Entry, b: Entry): boolean {
  if (a.start !== b.start) return a.start < b.start;
  // Two keys at one start (common across calendars, where meetings start on the hour): each is prefix +
  // event_id, of an occurrence or of the one a bound follows, and the parts that differ first decide
  // without a key being made. Prefixes are "calendar_id " and ids hold no space, so one prefix never
  // begins another; event ids begin with their UID digest, all of one length (as compareOccurrences reads them).
  const occurrenceA = a.occurrence ?? a.boundAfter?.occurrence;
  const occurrenceB = b.occurrence ?? b.boundAfter?.occurrence;
  if (occurrenceA !== undefined && occurrenceB !== undefined) {
    const prefixA = a.stream.prefix;
    const prefixB = b.stream.prefix;
    if (prefixA !== prefixB) return prefixA < prefixB;
    const keyA = occurrenceA.details.uidKey;
    const keyB = occurrenceB.details.uidKey;
    if (keyA !== keyB && keyA.length === keyB.length) return keyA < keyB;
  }
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

/** Whether the query's filter keeps an occurrence (one that filters nothing keeps all without a look). */
function filterKeeps(filter: OccurrenceFilter | undefined, occurrence: Occurrence, withholdClassified: boolean): boolean {
  return filtersNothing(filter) || keeps(filter!, occurrence, withholdClassified);
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

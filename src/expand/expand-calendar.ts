/**
 * Event components to occurrences (calendar_service.proto: EventOccurrence; docs/decisions.md).
 *
 * Memory stays bounded for series without end: only slots inside the hot
 * window [hotStart, hotEnd) (by default a year back and two years ahead of
 * the load) are materialised for the index. Each recurring series also
 * becomes a SeriesTail that expands, on demand and exactly, the slots a query
 * needs outside what was materialised, so a window in 1950 or 2199 is as
 * right as one next week. A series cut by its cap or by the feed's work
 * budget is materialised only up to the cut; its tail covers the rest, so a
 * cut changes how fast a window is answered, never what it holds.
 *
 * Every bound here counts work (rule dates visited, occurrences made), never
 * time: the same bytes and limits expand alike on any machine at any load
 * (docs/decisions.md, "Budgets count work").
 */
import { hash } from "node:crypto";
import { type Diagnostic, diagnostic } from "../ics/diagnostic.js";
import { emptyAbout } from "../ics/event-about.js";
import type { EventComponent, IcsDuration, IcsTime } from "../ics/parse-calendar.js";
import { searchableText } from "../ics/searchable-text.js";
import type { Steps } from "../stepwise.js";
import { DAY_MS, floorTo } from "../time/units.js";
import { instantToLocal, localToInstant, UTC_ZONE, type ZoneRules } from "../time/zone-rules.js";
import { Budget } from "./budget.js";
import { type EventVersion, versionDigest } from "./event-versions.js";
import { type EventDetails, FIRST_INSTANT, LAST_INSTANT, type Occurrence } from "./occurrence.js";
import { MAX_COUNTED, RecurrenceRule, RuleRefused } from "./recurrence-rule.js";
import { endOf, type FutureOverride, intervalAt, type Length, type RdateSlot, Series, type Shape } from "./series.js";
import { OnDemandSeries } from "./series-tail.js";

/** Bounds on expansion work. */
export interface ExpansionLimits {
  /** Slots with instants in [hotStart, hotEnd) are materialised for the index. */
  readonly hotStart: number;
  readonly hotEnd: number;
  /** Occurrences one series may produce in the hot window, and per query outside it. */
  readonly maxOccurrencesPerSeries: number;
  /** Occurrences the whole feed may materialise; series past it are expanded per query only. */
  readonly maxOccurrencesPerFeed: number;
  /** Rule dates the whole feed's hot expansion may visit; series not finished by then are expanded per query. */
  readonly maxExpansionWork: number;
}

/** Events (one UID's components) expanded between two pauses of the steps (a pause lets a caller on the event loop run other work). */
const GROUPS_PER_STEP = 64;

/**
 * What each UID's components (a group: a single event, a series and its
 * overrides, copies that share the UID) gave, as spans of the calendar's
 * lists: group g's occurrences are those from occurrenceEnds[g - 1] (0 for
 * the first) to occurrenceEnds[g], and so on. A build that reads only the
 * events a reload changed keeps every other group's share as it was
 * (docs/decisions.md, "Rebuilds in proportion to the change").
 */
export interface GroupSpans {
  /** Each group's UID, in the order the groups were expanded (the feed order of their first component). */
  readonly uids: readonly string[];
  /** Each UID's digest (uidKeyOf): its events' event_ids start with it. */
  readonly uidKeys: readonly string[];
  readonly occurrenceEnds: Uint32Array;
  readonly tailEnds: Uint32Array;
  readonly versionEnds: Uint32Array;
  readonly diagnosticEnds: Uint32Array;
  /** Events each group kept (masters, overrides, orphans). */
  readonly eventCounts: Uint32Array;
  /** Rule dates each group's expansion visited (the feed's expansion budget, "Budgets count work"). */
  readonly work: Float64Array;
}

/** A feed's occurrences, ready to index. */
export interface ExpandedCalendar {
  /** Materialised occurrences, group after group, in no particular order within a group. */
  readonly occurrences: Occurrence[];
  /** Group after group. */
  readonly tails: readonly OnDemandSeries[];
  /** About one group's components, group after group. */
  readonly diagnostics: readonly Diagnostic[];
  /** About the whole feed (its caps and budget), after the groups'. */
  readonly feedDiagnostics: readonly Diagnostic[];
  /** Events kept (masters, overrides and orphans), after dropping unreadable ones. */
  readonly eventCount: number;
  /** One version per event served, group after group (byKey orders them as snapshots keep them). */
  readonly versions: readonly EventVersion[];
  readonly groups: GroupSpans;
}

/**
 * Expands the components of one calendar whose zone is `calendarZone`, as a
 * generator that pauses every few dozen groups, so a caller may let other
 * work run (or run it to the end at once).
 *
 * `events` is taken over: the list is emptied once read, and each component
 * is let go of once expanded, so that the components of a big feed (about
 * 40 MiB for 100k events) are not all held beside their occurrences.
 */
export function* expandCalendarSteps(events: EventComponent[], calendarZone: ZoneRules, limits: ExpansionLimits): Steps<ExpandedCalendar> {
  return yield* new CalendarExpansion(calendarZone, limits).run(events);
}

/** Thrown while reading one component; becomes a diagnostic. */
class ComponentRefused extends Error {
  constructor(
    readonly code: Diagnostic["code"],
    message: string,
  ) {
    super(message);
    this.name = "ComponentRefused";
  }
}

class CalendarExpansion {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly feedDiagnostics: Diagnostic[] = [];
  private readonly occurrences: Occurrence[] = [];
  private readonly tails: OnDemandSeries[] = [];
  private readonly versions: EventVersion[] = [];
  private readonly budget: Budget;
  private eventCount = 0;
  /** The group being expanded: its UID and that UID's digest, made once. */
  private expanding = { uid: "", key: "" };

  constructor(
    private readonly calendarZone: ZoneRules,
    private readonly limits: ExpansionLimits,
  ) {
    this.budget = new Budget(limits.maxExpansionWork);
  }

  /**
   * Expands the events one UID at a time, in the feed order of each UID's
   * first component, so what one group gives never depends on another's
   * (but for the feed's caps and budget, which a build near them reads
   * whole).
   */
  *run(events: EventComponent[]): Steps<ExpandedCalendar> {
    const byUid = new Map<string, EventComponent[]>();
    for (const event of events) {
      const list = byUid.get(event.uid);
      if (list === undefined) byUid.set(event.uid, [event]);
      else list.push(event);
    }
    // From here each component is held by the map alone, and let go of once
    // expanded: a feed's components and its occurrences are never all held at once.
    events.length = 0;
    const count = byUid.size;
    const uids: string[] = [];
    const uidKeys: string[] = [];
    const spans = {
      occurrenceEnds: new Uint32Array(count),
      tailEnds: new Uint32Array(count),
      versionEnds: new Uint32Array(count),
      diagnosticEnds: new Uint32Array(count),
      eventCounts: new Uint32Array(count),
      work: new Float64Array(count),
    };
    for (const [uid, components] of byUid) {
      const group = uids.length;
      const eventsBefore = this.eventCount;
      const workBefore = this.budget.used;
      byUid.delete(uid);
      this.expanding = { uid, key: uidKeyOf(uid) };
      this.expandGroup(components);
      uids.push(uid);
      uidKeys.push(this.expanding.key);
      spans.occurrenceEnds[group] = this.occurrences.length;
      spans.tailEnds[group] = this.tails.length;
      spans.versionEnds[group] = this.versions.length;
      spans.diagnosticEnds[group] = this.diagnostics.length;
      spans.eventCounts[group] = this.eventCount - eventsBefore;
      spans.work[group] = this.budget.used - workBefore;
      if (uids.length % GROUPS_PER_STEP === 0) yield;
    }
    if (this.budget.exhausted) {
      this.feedDiagnostics.push(
        diagnostic(
          "EXPANSION_BUDGET_EXHAUSTED",
          `expansion visited the ${this.limits.maxExpansionWork} rule dates one load may visit; series not finished are expanded per query instead, with the same answers`,
        ),
      );
    }
    return {
      occurrences: this.occurrences,
      tails: this.tails,
      diagnostics: this.diagnostics,
      feedDiagnostics: this.feedDiagnostics,
      eventCount: this.eventCount,
      versions: this.versions,
      groups: { uids, uidKeys, ...spans },
    };
  }

  /** One UID's components: its master (or the distinct events that share its UID), its overrides, or its orphans. */
  private expandGroup(components: readonly EventComponent[]): void {
    const { masters, overrides, distinct } = this.group(components);
    for (const [uid, master] of masters) this.guard(master, () => this.expandMaster(master, overrides.get(uid) ?? []));
    for (const { event, uidKey } of distinct) this.guard(event, () => this.expandMaster(event, [], uidKey));
    if (masters.size > 0) return;
    // Overrides whose UID has no master.
    for (const list of overrides.values()) {
      const from = this.occurrences.length;
      for (const orphan of list) this.guard(orphan, () => this.addOverride(orphan, undefined, undefined));
      this.addVersion(list, this.occurrences.slice(from), false);
    }
  }

  /**
   * The version of one event: its components, and the span its occurrences
   * (and, for a series, its slots) cover. An event none of whose occurrences
   * is served (cancelled, or every part unreadable) has none.
   */
  private addVersion(components: readonly EventComponent[], served: readonly Occurrence[], recurring: boolean, series?: Series): void {
    const details = served[0]?.details;
    if (details === undefined && series === undefined) return;
    let start = series?.firstSlot ?? Number.POSITIVE_INFINITY;
    let end =
      series === undefined
        ? Number.NEGATIVE_INFINITY
        : series.lastSlot === Number.POSITIVE_INFINITY
          ? Number.POSITIVE_INFINITY
          : series.lastSlot + series.reachBehind;
    for (const occurrence of served) {
      start = Math.min(start, occurrence.start);
      end = Math.max(end, occurrence.end);
    }
    const shown = details ?? series!.details;
    this.versions.push({
      key: shown.uidKey,
      digest: versionDigest(components),
      start,
      end,
      recurring,
      summary: shown.summary,
      classified: shown.classified === true,
    });
  }

  private guard(component: EventComponent, work: () => void): void {
    try {
      work();
    } catch (error) {
      if (!(error instanceof ComponentRefused)) throw error;
      this.diagnostics.push(diagnostic(error.code, error.message, { uid: component.uid, line: component.line }));
    }
  }

  /**
   * Masters and overrides by UID, duplicates resolved (docs/imperfect-feeds.md, the duplicate-UID rows):
   * - copies of one override (same UID and RECURRENCE-ID): the higher
   *   SEQUENCE wins, on a tie the last in the feed, as Google and
   *   Thunderbird do;
   * - masters with one UID: those of the highest SEQUENCE are kept. Of them,
   *   single events with different starts are distinct events that share a
   *   UID (a waste-collection export, a sample feed): each is served, the
   *   later ones under an event_id derived from the UID and the start. Any
   *   other copies (same start, or a series among them) are versions of one
   *   event: the last wins.
   * Every copy not served is reported as DUPLICATE_UID, a warning.
   */
  private group(events: readonly EventComponent[]) {
    const candidates = new Map<string, EventComponent[]>();
    const overrides = new Map<string, EventComponent[]>();
    const overrideKeys = new Map<string, EventComponent>();
    for (const event of events) {
      if (event.recurrenceId === undefined) {
        const list = candidates.get(event.uid);
        if (list === undefined) candidates.set(event.uid, [event]);
        else list.push(event);
        continue;
      }
      const key = `${event.uid}\u0000${event.recurrenceId.kind}:${event.recurrenceId.local}`;
      const previous = overrideKeys.get(key);
      const kept = this.keepNewer(previous, event);
      overrideKeys.set(key, kept);
      const list = overrides.get(event.uid) ?? [];
      if (previous !== undefined) list.splice(list.indexOf(previous), 1);
      if (!list.includes(kept)) list.push(kept);
      overrides.set(event.uid, list);
    }
    const masters = new Map<string, EventComponent>();
    const distinct: { event: EventComponent; uidKey: string }[] = [];
    for (const [uid, list] of candidates) {
      if (list.length === 1) {
        masters.set(uid, list[0]);
        continue;
      }
      // A loop, not spread arguments: one UID may repeat across a whole feed.
      const sequence = list.reduce((highest, event) => Math.max(highest, event.sequence), -Infinity);
      for (const older of list.filter((event) => event.sequence !== sequence)) {
        this.duplicate(older, "another component with the same UID has a higher SEQUENCE; that one was kept");
      }
      const newest = list.filter((event) => event.sequence === sequence);
      const single = newest.every((event) => event.rrules.length === 0 && event.rdates.length === 0) && !overrides.has(uid);
      const byStart = new Map<string, EventComponent>();
      for (const event of newest) {
        const start = single ? startKey(event.start) : "";
        const previous = byStart.get(start);
        if (previous !== undefined) {
          this.duplicate(previous, "a later component has the same UID, SEQUENCE and start; the last one was kept");
        }
        byStart.set(start, event);
      }
      const [first, ...others] = [...byStart.values()].sort((a, b) => a.line - b.line);
      masters.set(uid, first);
      for (const other of others) {
        distinct.push({ event: other, uidKey: uidKeyOf(`${uid}\u0000${startKey(other.start)}`) });
        this.diagnostics.push(
          diagnostic(
            "DUPLICATE_UID",
            "another single event has the same UID and SEQUENCE but a different start; both were kept as distinct events",
            { uid: other.uid, line: other.line },
          ),
        );
      }
    }
    return { masters, overrides, distinct };
  }

  private duplicate(dropped: EventComponent, message: string): void {
    this.diagnostics.push(diagnostic("DUPLICATE_UID", message, { uid: dropped.uid, line: dropped.line }));
  }

  /** Of two copies of one override, the higher SEQUENCE, else the later. */
  private keepNewer(previous: EventComponent | undefined, next: EventComponent): EventComponent {
    if (previous === undefined) return next;
    const kept = next.sequence >= previous.sequence ? next : previous;
    this.duplicate(
      kept === next ? previous : next,
      "another component has the same UID and RECURRENCE-ID; the one with the higher SEQUENCE (on a tie, the last) was kept",
    );
    return kept;
  }

  /** `uidKey` replaces the UID's digest for a distinct event that shares its UID with another. */
  private expandMaster(master: EventComponent, overrides: readonly EventComponent[], uidKey?: string): void {
    const shape = this.shapeOf(master);
    const recurring = master.rrules.length > 0 || master.rdates.length > 0;
    const details = this.detailsOf(master, shape, recurring, uidKey);
    this.eventCount++;
    const from = this.occurrences.length;
    if (!recurring) {
      // An override of a single event's only slot replaces it.
      const { start, end } = intervalAt(shape, master.start.local);
      const ownSlot = shape.allDay ? master.start.local : start;
      let replaced = false;
      for (const override of overrides) {
        replaced ||= this.slotKeyOf(override.recurrenceId!, shape) === ownSlot;
        this.guard(override, () => this.addOverride(override, shape, master));
      }
      if (master.status !== "CANCELLED" && !replaced) this.occurrences.push({ start, end, slot: start, details });
      this.addVersion([master, ...overrides], this.occurrences.slice(from), false);
      return;
    }
    const series = this.buildSeries(master, shape, details, overrides);
    for (const override of overrides) this.guard(override, () => this.addOverride(override, shape, master));
    const overridden = this.occurrences.slice(from);
    if (master.status === "CANCELLED") {
      this.addVersion([master, ...overrides], overridden, true);
      return;
    }
    this.addVersion([master, ...overrides], overridden, true, series);
    this.materialise(series, master);
  }

  private buildSeries(master: EventComponent, shape: Shape, details: EventDetails, overrides: readonly EventComponent[]): Series {
    const zone = shape.zone;
    const startLocal = master.start.local;
    const rules = this.readRules(master, master.rrules, shape, "RRULE");
    const exrules = this.readRules(master, master.exrules, shape, "EXRULE");
    const rdates: RdateSlot[] = [];
    for (const rdate of master.rdates) {
      if ((rdate.start.kind === "date") !== shape.allDay) {
        this.unsupported(master, "an RDATE whose type differs from DTSTART's was ignored");
        continue;
      }
      const startInstant = this.instantOf(rdate.start);
      if (startInstant < FIRST_INSTANT || startInstant > LAST_INSTANT) {
        this.diagnostics.push(
          diagnostic("INSTANT_OUT_OF_RANGE", "an RDATE outside the years 0001 to 9999 was left out", {
            uid: master.uid,
            line: master.line,
          }),
        );
        continue;
      }
      const local = shape.allDay ? rdate.start.local : instantToLocal(zone, startInstant);
      let end: number | undefined;
      if (rdate.end !== undefined) end = Math.min(LAST_INSTANT, this.instantOf(rdate.end));
      if (rdate.duration !== undefined) end = endOf({ ...shape, length: lengthOfDuration(rdate.duration) }, startInstant);
      if (end !== undefined && end < startInstant) {
        this.unsupported(master, "an RDATE period that ends before it starts was ignored");
        continue;
      }
      rdates.push({ instant: startInstant, local, end });
    }
    const exdates = new Set<number>();
    const exdateDays = new Set<number>();
    for (const exdate of master.exdates) {
      if (shape.allDay) exdates.add(this.dayOf(exdate, shape));
      else if (exdate.kind === "date") exdateDays.add(exdate.local);
      else exdates.add(this.instantOf(exdate));
    }
    const overridden = new Set<number>();
    const futures: FutureOverride[] = [];
    for (const override of overrides) {
      const slotKey = this.slotKeyOf(override.recurrenceId!, shape);
      overridden.add(slotKey);
      if (!override.thisAndFuture) continue;
      try {
        const overrideShape = this.shapeOf(override);
        const slotInstant = shape.allDay ? localToInstant(zone, slotKey) : slotKey;
        const shift = shape.allDay
          ? override.start.local - slotKey
          : instantToLocal(zone, this.instantOf(override.start)) - instantToLocal(zone, slotKey);
        futures.push({
          slotInstant,
          shift,
          shape: overrideShape,
          details: this.detailsOf(override, overrideShape, true, undefined, master),
          cancelled: override.status === "CANCELLED",
        });
      } catch (error) {
        if (!(error instanceof ComponentRefused)) throw error;
      }
    }
    futures.sort((a, b) => a.slotInstant - b.slotInstant);
    // With every rule refused, the series still holds its DTSTART.
    return new Series({ shape, details, startLocal, rules, exrules, rdates, exdates, exdateDays, overridden, futures });
  }

  private readRules(master: EventComponent, values: EventComponent["rrules"], shape: Shape, name: string): RecurrenceRule[] {
    const rules: RecurrenceRule[] = [];
    for (const value of values) {
      try {
        const rule = new RecurrenceRule(value, master.start.local, shape.zone, shape.allDay);
        rules.push(rule);
        if (rule.countCut) {
          this.diagnostics.push(
            diagnostic("SERIES_CAPPED", `${name} COUNT is above ${MAX_COUNTED}; the series ends at its ${MAX_COUNTED}th date`, {
              uid: master.uid,
              line: master.line,
            }),
          );
        }
      } catch (error) {
        if (!(error instanceof RuleRefused)) throw error;
        const message = name === "RRULE" ? error.message : error.message.replace("RRULE", "EXRULE");
        this.diagnostics.push(diagnostic(error.code, message, { uid: master.uid, line: master.line }));
      }
    }
    return rules;
  }

  /** Materialises the hot window of a series and registers its tail. */
  private materialise(series: Series, master: EventComponent): void {
    const { hotStart, hotEnd, maxOccurrencesPerSeries, maxOccurrencesPerFeed } = this.limits;
    const cap = maxOccurrencesPerSeries;
    const room = Math.min(cap, maxOccurrencesPerFeed - this.occurrences.length);
    let indexedTo = hotStart;
    if (!this.budget.exhausted && room > 0) {
      const result = series.expand(hotStart, hotEnd, room, this.budget, this.occurrences);
      indexedTo = result.cut === "none" ? hotEnd : result.resumeAt;
      if (result.cut === "cap" && room < cap) this.reportFeedCapped();
      else if (result.cut === "cap") {
        this.diagnostics.push(
          diagnostic(
            "SERIES_CAPPED",
            `the series reached the cap of ${cap} occurrences in the indexed range; later occurrences are expanded per query, at most ${cap} per query`,
            { uid: master.uid, line: master.line },
          ),
        );
      }
    }
    if (room <= 0) this.reportFeedCapped();
    const indexedFrom = hotStart;
    if (series.firstSlot >= indexedFrom && series.lastSlot < indexedTo) return;
    this.tails.push(new OnDemandSeries(series, indexedFrom, indexedTo, cap));
  }

  private feedCapReported = false;

  private reportFeedCapped(): void {
    if (this.feedCapReported) return;
    this.feedCapReported = true;
    this.feedDiagnostics.push(
      diagnostic(
        "FEED_CAPPED",
        `the feed reached the cap of ${this.limits.maxOccurrencesPerFeed} indexed occurrences; further series are expanded per query only`,
      ),
    );
  }

  /** An override (moved, changed or cancelled slot) or an orphan, as its own occurrence. */
  private addOverride(override: EventComponent, masterShape: Shape | undefined, master: EventComponent | undefined): void {
    if (override.status === "CANCELLED") return;
    const shape = this.shapeOf(override);
    const details = this.detailsOf(override, shape, true, undefined, master);
    const slot = this.slotKeyOf(override.recurrenceId!, masterShape ?? shape);
    this.eventCount++;
    this.occurrences.push({ ...intervalAt(shape, override.start.local), slot, details });
  }

  /** The slot key of a RECURRENCE-ID: an instant, or a local date for all-day series. */
  private slotKeyOf(recurrenceId: IcsTime, shape: Shape): number {
    return shape.allDay ? this.dayOf(recurrenceId, shape) : this.instantOf(recurrenceId);
  }

  /**
   * The local date a RECURRENCE-ID or EXDATE names in an all-day series. A
   * date-time in a zone of its own, or floating, names the date it is
   * written on: Exchange writes an all-day slot as midnight in its TZID
   * (docs/imperfect-feeds.md, the Exchange all-day override row), which in the calendar's zone may fall on the day
   * before. A UTC date-time is the instant of the slot's start in the
   * calendar's zone, as producers that convert all-day starts to UTC write.
   */
  private dayOf(time: IcsTime, shape: Shape): number {
    if (time.kind === "date") return time.local;
    if (time.zone !== UTC_ZONE) return floorTo(time.local, DAY_MS);
    return floorTo(instantToLocal(shape.zone, this.instantOf(time)), DAY_MS);
  }

  private instantOf(time: IcsTime): number {
    const zone = time.kind === "date-time" && time.zone !== undefined ? time.zone : this.calendarZone;
    return localToInstant(zone, time.local);
  }

  /** Zone and length of a component; refuses ends before starts and mixed types. */
  private shapeOf(event: EventComponent): Shape {
    const { start, end, duration } = event;
    const allDay = start.kind === "date";
    const zone = start.kind === "date-time" && start.zone !== undefined ? start.zone : this.calendarZone;
    let length: Length;
    if (end !== undefined) {
      if ((end.kind === "date") !== allDay) {
        throw new ComponentRefused(
          "UNREADABLE_COMPONENT",
          "DTEND and DTSTART must both be dates or both date-times; the event was left out",
        );
      }
      length = allDay
        ? { kind: "nominal", days: Math.round((end.local - start.local) / DAY_MS), exactMs: 0 }
        : { kind: "exact", ms: this.instantOf(end) - this.instantOf(start) };
    } else if (duration !== undefined) {
      if (allDay && duration.exactMs !== 0) {
        throw new ComponentRefused(
          "UNREADABLE_COMPONENT",
          "an all-day event's DURATION must be whole days or weeks (RFC 5545 §3.6.1); the event was left out",
        );
      }
      length = lengthOfDuration(duration);
    } else {
      length = allDay ? { kind: "nominal", days: 1, exactMs: 0 } : { kind: "exact", ms: 0 };
    }
    const shape: Shape = { allDay, zone, length };
    const interval = intervalAt(shape, start.local);
    if (interval.start < FIRST_INSTANT || interval.start > LAST_INSTANT) {
      throw new ComponentRefused("INSTANT_OUT_OF_RANGE", "the event starts outside the years 0001 to 9999; it was left out");
    }
    if (interval.end < interval.start) {
      throw new ComponentRefused("END_BEFORE_START", "the event ends before it starts; it was left out");
    }
    if (interval.end === LAST_INSTANT) {
      this.diagnostics.push(
        diagnostic("END_CLAMPED", "the event ends after the year 9999; its end was read as 9999-12-30T00:00:00Z", {
          uid: event.uid,
          line: event.line,
        }),
      );
    }
    return shape;
  }

  /** `master`: for an override, its series, whose CLASS it keeps unless it writes its own. */
  private detailsOf(
    event: EventComponent,
    shape: Shape,
    recurring: boolean,
    uidKey = event.uid === this.expanding.uid ? this.expanding.key : uidKeyOf(event.uid),
    master?: EventComponent,
  ): EventDetails {
    const floating = event.start.kind === "date-time" && event.start.zone === undefined;
    const inherited = event.about?.classification === undefined ? master?.about?.classification : undefined;
    const about = inherited === undefined ? event.about : { ...(event.about ?? emptyAbout()), classification: inherited };
    return {
      uid: event.uid,
      uidKey,
      summary: event.summary,
      location: event.location,
      searchable: searchableText(event.summary, event.location, event.description),
      status: event.status === "CANCELLED" ? "" : event.status,
      transparent: event.transparent,
      lastModified: event.lastModified,
      eventTimezone: shape.allDay || floating ? "" : shape.zone.name,
      allDay: shape.allDay,
      recurring,
      ...(about === undefined ? {} : { about }),
      ...(about?.classification === undefined || about.classification === "PUBLIC" ? {} : { classified: true }),
    };
  }

  private unsupported(event: EventComponent, message: string): void {
    this.diagnostics.push(diagnostic("UNSUPPORTED_VALUE", message, { uid: event.uid, line: event.line }));
  }
}

function lengthOfDuration(duration: IcsDuration): Length {
  return duration.days === 0 ? { kind: "exact", ms: duration.exactMs } : { kind: "nominal", ...duration };
}

/** A start as written, to tell distinct events that share a UID apart. */
function startKey(start: IcsTime): string {
  return start.kind === "date" ? `${start.local}` : `${start.local}@${start.zone?.name ?? ""}`;
}

/** A short, stable, URL-safe digest of a UID (96 bits): the first part of every event_id of its events. */
export function uidKeyOf(uid: string): string {
  return hash("sha256", uid, "base64url").slice(0, 16);
}

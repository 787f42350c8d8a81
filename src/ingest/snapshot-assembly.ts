/**
 * A packed snapshot made of groups (a UID's events, or a VEVENT that gave
 * none): some read afresh, the others kept from the calendar's previous
 * snapshot, copied column by column and never made into objects
 * (docs/decisions.md, "Rebuilds in proportion to the change"). A whole
 * build is the same assembly with nothing kept, so the two cannot differ
 * in how they pack, order or name anything.
 *
 * What a snapshot holds in an order is held in one that depends on its
 * content alone: occurrences by (start, event_id), series and versions by
 * key, diagnostics in feed order, groups by key.
 */
import type { ExpandedCalendar } from "../expand/expand-calendar.js";
import { compareOccurrences, type EventDetails, type Occurrence } from "../expand/occurrence.js";
import type { OnDemandSeries } from "../expand/series-tail.js";
import type { Diagnostic } from "../ics/diagnostic.js";
import { FeedZone } from "../ics/vtimezone-zone.js";
import { indexOrder } from "../index/index-order.js";
import { endsOf, type IndexParts, indexPartsOf } from "../index/interval-index.js";
import type { ZoneRules } from "../time/zone-rules.js";
import { ianaZone } from "../time/zones.js";
import { type DetailsRange, orderingReader, type PackedDetails, packDetails } from "./packed-details.js";
import { type PackedVersions, PackedVersionsBuilder } from "./packed-versions.js";
import { GROUP_HAS_DIAGNOSTICS, LONE_KEY, NO_GROUP, type PackedReuse } from "./reuse-state.js";
import { sharedFloat64, sharedInt32, sharedUint8, sharedUint32 } from "./shared-memory.js";
import { type StringTable, StringTableBuilder, stringCount, stringReader } from "./string-table.js";

/** A group read afresh. */
export interface FreshGroup {
  /** Its UID's digest (uidKeyOf), or LONE_KEY for a VEVENT that gave no event. */
  readonly key: string;
  /** Its place in `expanded.groups`, or -1 for a VEVENT that gave no event. */
  readonly span: number;
  /** What reading its VEVENTs' text found, in the order reported (expansion's own come from its span). */
  readonly readingDiagnostics: readonly Diagnostic[];
}

/** The previous snapshot, and which of its groups are read afresh or gone. */
export interface KeptGroups {
  readonly packed: AssembledParts;
  readonly reuse: PackedReuse;
  /** Per group of `reuse`: 1 when it is not kept. */
  readonly dropped: Uint8Array;
}

/** What an assembly is made from. */
export interface AssemblyInput {
  readonly expanded: ExpandedCalendar;
  /** In any order. */
  readonly fresh: readonly FreshGroup[];
  /** About no group: the feed's own, in the order reported (reading's, then expansion's). */
  readonly feedDiagnostics: readonly Diagnostic[];
  readonly kept?: KeptGroups;
}

/** The columns of a packed snapshot that an assembly makes. */
export interface AssembledParts {
  readonly eventCount: number;
  /** Each diagnostic's JSON, in feed order (inFeedOrder). */
  readonly diagnostics: StringTable;
  /** The line each names; Infinity for one about the whole feed. */
  readonly diagnosticLines: Float64Array;
  /** Starts, and ends in the leaves of the max-end tree (endsOf). */
  readonly index: IndexParts;
  /** Per index position: the recurrence slot, and which details. */
  readonly slots: Float64Array;
  readonly detailIds: Uint32Array;
  readonly details: PackedDetails;
  /** The JSON of each on-demand series' recipe, in key order. */
  readonly tails: StringTable;
  /** Each on-demand series' UID digest. */
  readonly tailKeys: StringTable;
  /** JSON of [TZID, VTIMEZONE as jCal] pairs: the feed's own zones that on-demand series use. */
  readonly feedZones: string;
  readonly versions: PackedVersions;
}

/** An assembly: the columns, the groups in key order, and where each item came from. */
export interface Assembled {
  readonly parts: AssembledParts;
  readonly groups: Pick<PackedReuse, "groupKeys" | "groupEvents" | "groupOccurrences" | "groupWork" | "groupFlags">;
  readonly itemGroups: Pick<PackedReuse, "detailGroups" | "tailGroups" | "versionGroups" | "diagnosticGroups">;
  /** Each kept group's new place (-1 when dropped), and each fresh group's (in the order given). */
  readonly keptPlaces: Int32Array;
  readonly freshPlaces: Int32Array;
}

/** A fresh group's key matches a kept group's: what the build read does not fit what it kept. */
export class AssemblyConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssemblyConflict";
  }
}

/** Assembles a snapshot's columns from fresh groups and the groups kept from the previous snapshot. */
export function assembleSnapshot(input: AssemblyInput): Assembled {
  const places = placeGroups(input);
  const { expanded, fresh, kept } = input;
  const spanStart = (ends: Uint32Array, span: number) => (span <= 0 ? 0 : ends[span - 1]);
  const freshSpans = fresh.map((group) => group.span);

  // Occurrences read afresh, each with its group's new place, in index order.
  const freshOccurrences: Occurrence[] = [];
  const freshOccurrenceGroups: number[] = [];
  for (const [f, span] of freshSpans.entries()) {
    if (span < 0) continue;
    const { occurrenceEnds } = expanded.groups;
    for (let i = spanStart(occurrenceEnds, span); i < occurrenceEnds[span]; i++) {
      freshOccurrences.push(expanded.occurrences[i]);
      freshOccurrenceGroups.push(places.fresh[f]);
    }
  }
  const order = indexOrder(freshOccurrences, compareOccurrences);

  const details = assembleDetails(kept, places, order, freshOccurrences, freshOccurrenceGroups);
  const index = assembleIndex(kept, details, order, freshOccurrences);
  const tails = assembleTails(kept, places, expanded, freshSpans);
  const versions = assembleVersions(kept, places, expanded, fresh, freshSpans);
  const diagnostics = assembleDiagnostics(input, places);

  let eventCount = 0;
  for (const events of places.groups.groupEvents) eventCount += events;
  return {
    parts: {
      eventCount,
      diagnostics: diagnostics.table,
      diagnosticLines: diagnostics.lines,
      index: index.index,
      slots: index.slots,
      detailIds: index.detailIds,
      details: details.packed,
      tails: tails.recipes,
      tailKeys: tails.keys,
      feedZones: feedZonesOf(kept?.packed.feedZones, tails.fresh),
      versions: versions.packed,
    },
    groups: places.groups,
    itemGroups: {
      detailGroups: details.groups,
      tailGroups: tails.groups,
      versionGroups: versions.groups,
      diagnosticGroups: diagnostics.groups,
    },
    keptPlaces: places.kept,
    freshPlaces: places.fresh,
  };
}

/** The groups' new order (by key; kept and fresh never share one) and their columns. */
interface Places {
  readonly kept: Int32Array;
  readonly fresh: Int32Array;
  /** The fresh groups (their indexes in AssemblyInput.fresh) in key order. */
  readonly freshOrder: readonly number[];
  readonly groups: Assembled["groups"];
}

function placeGroups({ expanded, fresh, kept }: AssemblyInput): Places {
  const keptCount = kept === undefined ? 0 : kept.dropped.length;
  const keyOfKept = kept === undefined ? () => "" : stringReader(kept.reuse.groupKeys);
  const freshOrder = orderByKey(fresh.map((group) => group.key));
  let alive = 0;
  for (let g = 0; g < keptCount; g++) if (kept!.dropped[g] === 0) alive++;
  const count = alive + fresh.length;
  const keptPlaces = new Int32Array(keptCount).fill(-1);
  const freshPlaces = new Int32Array(fresh.length);
  const keys = new StringTableBuilder();
  const events = sharedUint32(count);
  const occurrences = sharedUint32(count);
  const work = sharedFloat64(count);
  const flags = sharedUint8(count);
  const { groups } = expanded;
  const spanSize = (ends: Uint32Array, span: number) => ends[span] - (span === 0 ? 0 : ends[span - 1]);
  let at = 0;
  mergeInKeyOrder(
    { count: keptCount, key: keyOfKept, alive: (g) => kept!.dropped[g] === 0 },
    freshOrder.map((f) => fresh[f].key),
    (from, to) => {
      const { reuse } = kept!;
      keys.addRange(reuse.groupKeys, from, to);
      events.set(reuse.groupEvents.subarray(from, to), at);
      occurrences.set(reuse.groupOccurrences.subarray(from, to), at);
      work.set(reuse.groupWork.subarray(from, to), at);
      flags.set(reuse.groupFlags.subarray(from, to), at);
      for (let g = from; g < to; g++) keptPlaces[g] = at++;
    },
    (j) => {
      const f = freshOrder[j];
      const { key, span, readingDiagnostics } = fresh[f];
      freshPlaces[f] = at;
      keys.add(key);
      if (span >= 0) {
        events[at] = groups.eventCounts[span];
        occurrences[at] = spanSize(groups.occurrenceEnds, span);
        work[at] = groups.work[span];
      }
      const diagnosed = readingDiagnostics.length > 0 || (span >= 0 && spanSize(groups.diagnosticEnds, span) > 0);
      flags[at] = diagnosed ? GROUP_HAS_DIAGNOSTICS : 0;
      at++;
    },
  );
  return {
    kept: keptPlaces,
    fresh: freshPlaces,
    freshOrder,
    groups: { groupKeys: keys.build(), groupEvents: events, groupOccurrences: occurrences, groupWork: work, groupFlags: flags },
  };
}

/** Kept items in key order: how many, each one's key, and whether it is kept. */
interface KeptItems {
  readonly count: number;
  readonly key: (i: number) => string;
  readonly alive: (i: number) => boolean;
}

/**
 * Walks kept items (sorted by key) and fresh keys (sorted) in key order,
 * handing over runs of kept items [from, to) and fresh items one by one.
 * Each fresh key finds its place by a binary search, so the kept items'
 * keys are read only there: a build that reads one event afresh reads a
 * few dozen keys of the others, not all of them. A fresh key equal to a
 * kept one is a conflict (an item never comes from two groups).
 */
function mergeInKeyOrder(
  kept: KeptItems,
  freshKeys: readonly string[],
  onKept: (from: number, to: number) => void,
  onFresh: (j: number) => void,
): void {
  const places = freshKeys.map((key) => {
    let low = 0;
    let high = kept.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareKeys(kept.key(middle), key) < 0) low = middle + 1;
      else high = middle;
    }
    if (key !== LONE_KEY && low < kept.count && kept.alive(low) && kept.key(low) === key) {
      throw new AssemblyConflict("an item read afresh has the key of one kept");
    }
    return low;
  });
  let next = 0;
  for (let i = 0; i < kept.count; ) {
    while (next < freshKeys.length && places[next] <= i) onFresh(next++);
    if (!kept.alive(i)) {
      i++;
      continue;
    }
    let end = i + 1;
    const stop = next < freshKeys.length ? places[next] : kept.count;
    while (end < stop && kept.alive(end)) end++;
    onKept(i, end);
    i = end;
  }
  while (next < freshKeys.length) onFresh(next++);
}

/** A group key's order: UID digests (base64url) byte-wise, LONE_KEY after them all. */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The indexes of `keys` in key order, equal keys in the order given. Keys
 * hold no NUL: each is sorted with its index after one, by the engine's own
 * string order (several times faster than a comparator for tens of
 * thousands).
 */
function orderByKey(keys: readonly string[]): number[] {
  const width = String(keys.length).length;
  const tagged = keys.map((key, i) => `${key}\u0000${String(i).padStart(width, "0")}`).sort();
  return tagged.map((entry) => Number(entry.slice(entry.lastIndexOf("\u0000") + 1)));
}

function sharedFrom<T extends Uint32Array | Float64Array | Uint8Array | Int32Array>(
  make: (length: number) => T,
  values: readonly number[],
): T {
  const array = make(values.length);
  array.set(values);
  return array;
}

/** Details: the kept ones first (in their order, compacted), then each fresh details once, in index order. */
function assembleDetails(
  kept: KeptGroups | undefined,
  places: Places,
  order: Uint32Array,
  freshOccurrences: readonly Occurrence[],
  freshOccurrenceGroups: readonly number[],
) {
  const ranges: DetailsRange[] = [];
  const keptIds = new Int32Array(kept === undefined ? 0 : kept.packed.details.count).fill(-1);
  let keptCount = 0;
  if (kept !== undefined) {
    const { detailGroups } = kept.reuse;
    for (let id = 0; id < keptIds.length; ) {
      if (places.kept[detailGroups[id]] < 0) {
        id++;
        continue;
      }
      let end = id + 1;
      while (end < keptIds.length && places.kept[detailGroups[end]] >= 0) end++;
      ranges.push({ from: id, to: end });
      for (let k = id; k < end; k++) keptIds[k] = keptCount++;
      id = end;
    }
  }
  const freshIds = new Map<EventDetails, number>();
  const freshDetails: EventDetails[] = [];
  const freshGroups: number[] = [];
  for (const i of order) {
    const { details } = freshOccurrences[i];
    if (freshIds.has(details)) continue;
    freshIds.set(details, keptCount + freshDetails.length);
    freshGroups.push(freshOccurrenceGroups[i]);
    freshDetails.push(details);
  }
  const groups = sharedUint32(keptCount + freshDetails.length);
  if (kept !== undefined) {
    const { detailGroups } = kept.reuse;
    for (let id = 0; id < keptIds.length; id++) if (keptIds[id] >= 0) groups[keptIds[id]] = places.kept[detailGroups[id]];
  }
  groups.set(freshGroups, keptCount);
  const packed = packDetails(freshDetails, kept === undefined ? undefined : { details: kept.packed.details, ranges });
  return { packed, keptIds, freshIds, groups };
}

/**
 * The index: the kept occurrences (in their order) and the fresh ones
 * (sorted), merged by (start, event_id). The kept ones are copied in runs
 * between the fresh ones, which find their place by a binary search on the
 * starts; only occurrences of one start have their event_ids compared.
 */
function assembleIndex(
  kept: KeptGroups | undefined,
  details: ReturnType<typeof assembleDetails>,
  order: Uint32Array,
  freshOccurrences: readonly Occurrence[],
) {
  // The kept occurrences, compacted: their starts, ends, slots and (new) detail ids.
  let keptStarts = new Float64Array(0);
  let keptEnds = new Float64Array(0);
  let keptSlots = new Float64Array(0);
  let keptDetailIds = new Uint32Array(0);
  let ordering: ((id: number) => Pick<EventDetails, "uidKey" | "recurring" | "allDay">) | undefined;
  if (kept !== undefined) {
    const { packed } = kept;
    const starts = packed.index.starts;
    const ends = endsOf(packed.index);
    const { slots, detailIds } = packed;
    const { keptIds } = details;
    let count = 0;
    for (let position = 0; position < detailIds.length; position++) if (keptIds[detailIds[position]] >= 0) count++;
    keptStarts = new Float64Array(count);
    keptEnds = new Float64Array(count);
    keptSlots = new Float64Array(count);
    keptDetailIds = new Uint32Array(count);
    let at = 0;
    for (let position = 0; position < detailIds.length; ) {
      if (keptIds[detailIds[position]] < 0) {
        position++;
        continue;
      }
      let end = position + 1;
      while (end < detailIds.length && keptIds[detailIds[end]] >= 0) end++;
      keptStarts.set(starts.subarray(position, end), at);
      keptEnds.set(ends.subarray(position, end), at);
      keptSlots.set(slots.subarray(position, end), at);
      for (let p = position; p < end; p++) keptDetailIds[at + p - position] = keptIds[detailIds[p]];
      at += end - position;
      position = end;
    }
    ordering = orderingReader(packed.details);
    // Details are read by their old ids.
    const oldIdOf = new Int32Array(details.groups.length).fill(-1);
    for (let id = 0; id < keptIds.length; id++) if (keptIds[id] >= 0) oldIdOf[keptIds[id]] = id;
    const read = ordering;
    ordering = (id) => read(oldIdOf[id]);
  }
  const keptCount = keptStarts.length;
  // Where each fresh occurrence goes among the kept: after every kept one before it.
  const places = order.map((i) => {
    const occurrence = freshOccurrences[i];
    let low = 0;
    let high = keptCount;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (keptStarts[middle] < occurrence.start) low = middle + 1;
      else high = middle;
    }
    while (low < keptCount && keptStarts[low] === occurrence.start) {
      const other = {
        start: keptStarts[low],
        end: keptEnds[low],
        slot: keptSlots[low],
        details: ordering!(keptDetailIds[low]),
      } as Occurrence;
      if (compareOccurrences(other, occurrence) > 0) break;
      low++;
    }
    return low;
  });
  const size = keptCount + order.length;
  const starts = sharedFloat64(size);
  const ends = new Float64Array(size);
  const slots = sharedFloat64(size);
  const detailIds = sharedUint32(size);
  let from = 0;
  let at = 0;
  const copyKept = (to: number) => {
    if (to === from) return;
    starts.set(keptStarts.subarray(from, to), at);
    ends.set(keptEnds.subarray(from, to), at);
    slots.set(keptSlots.subarray(from, to), at);
    detailIds.set(keptDetailIds.subarray(from, to), at);
    at += to - from;
    from = to;
  };
  for (const [f, i] of order.entries()) {
    copyKept(places[f]);
    const occurrence = freshOccurrences[i];
    starts[at] = occurrence.start;
    ends[at] = occurrence.end;
    slots[at] = occurrence.slot;
    detailIds[at] = details.freshIds.get(occurrence.details)!;
    at++;
  }
  copyKept(keptCount);
  return { index: indexPartsOf(starts, ends, sharedFloat64), slots, detailIds };
}

/** On-demand series by key: the kept ones and the fresh ones (recipes made now), merged. */
function assembleTails(kept: KeptGroups | undefined, places: Places, expanded: ExpandedCalendar, freshSpans: readonly number[]) {
  const fresh: { tail: OnDemandSeries; group: number }[] = [];
  const { tailEnds } = expanded.groups;
  for (const [f, span] of freshSpans.entries()) {
    if (span < 0) continue;
    for (let i = span === 0 ? 0 : tailEnds[span - 1]; i < tailEnds[span]; i++)
      fresh.push({ tail: expanded.tails[i], group: places.fresh[f] });
  }
  const sorted = orderByKey(fresh.map(({ tail }) => tail.uidKey)).map((i) => fresh[i]);
  const recipes = new StringTableBuilder();
  const keys = new StringTableBuilder();
  const groups: number[] = [];
  const placeOf = (t: number) => places.kept[kept!.reuse.tailGroups[t]];
  mergeInKeyOrder(
    {
      count: kept === undefined ? 0 : stringCount(kept.packed.tailKeys),
      key: kept === undefined ? () => "" : stringReader(kept.packed.tailKeys),
      alive: (t) => placeOf(t) >= 0,
    },
    sorted.map(({ tail }) => tail.uidKey),
    (from, to) => {
      recipes.addRange(kept!.packed.tails, from, to);
      keys.addRange(kept!.packed.tailKeys, from, to);
      for (let t = from; t < to; t++) groups.push(placeOf(t));
    },
    (j) => {
      const { tail, group } = sorted[j];
      recipes.add(JSON.stringify(tail.recipe()));
      keys.add(tail.uidKey);
      groups.push(group);
    },
  );
  return { recipes: recipes.build(), keys: keys.build(), groups: sharedFrom(sharedUint32, groups), fresh: sorted.map(({ tail }) => tail) };
}

/** Versions by key: the kept ones and the fresh ones, merged. */
function assembleVersions(
  kept: KeptGroups | undefined,
  places: Places,
  expanded: ExpandedCalendar,
  fresh: readonly FreshGroup[],
  freshSpans: readonly number[],
) {
  const sorted = freshVersionsByKey(places, expanded, fresh, freshSpans);
  const builder = new PackedVersionsBuilder();
  const keptCount = kept === undefined ? 0 : kept.packed.versions.starts.length;
  // Each kept version's group's new place (-1: dropped).
  const keptPlaces = new Int32Array(keptCount);
  let alive = 0;
  for (let v = 0; v < keptCount; v++) {
    keptPlaces[v] = places.kept[kept!.reuse.versionGroups[v]];
    if (keptPlaces[v] >= 0) alive++;
  }
  const groups = sharedUint32(alive + sorted.length);
  let at = 0;
  mergeInKeyOrder(
    { count: keptCount, key: kept === undefined ? () => "" : stringReader(kept.packed.versions.keys), alive: (v) => keptPlaces[v] >= 0 },
    sorted.map(({ version }) => version.key),
    (from, to) => {
      builder.addRange(kept!.packed.versions, from, to);
      groups.set(keptPlaces.subarray(from, to), at);
      at += to - from;
    },
    (j) => {
      builder.add(sorted[j].version);
      groups[at++] = sorted[j].group;
    },
  );
  return { packed: builder.build(), groups };
}

/**
 * The fresh groups' versions by key, each with its group's place. A group
 * has one version of its own key but where a UID names several events:
 * when each has, the groups' key order is the versions' too, and they are
 * not sorted again.
 */
function freshVersionsByKey(places: Places, expanded: ExpandedCalendar, fresh: readonly FreshGroup[], freshSpans: readonly number[]) {
  const { versionEnds } = expanded.groups;
  const firstOf = (span: number) => (span === 0 ? 0 : versionEnds[span - 1]);
  const versionsOf = (span: number) => (span < 0 ? [] : expanded.versions.slice(firstOf(span), versionEnds[span]));
  const ownKeys = freshSpans.every((span, f) => {
    if (span < 0) return true;
    const count = versionEnds[span] - firstOf(span);
    return count === 0 || (count === 1 && expanded.versions[firstOf(span)].key === fresh[f].key);
  });
  if (ownKeys) {
    return places.freshOrder.flatMap((f) => versionsOf(freshSpans[f]).map((version) => ({ version, group: places.fresh[f] })));
  }
  const found = freshSpans.flatMap((span, f) => versionsOf(span).map((version) => ({ version, group: places.fresh[f] })));
  return orderByKey(found.map(({ version }) => version.key)).map((i) => found[i]);
}

/**
 * Diagnostics in feed order: by line, those about the whole feed last, each
 * in the order reported. Only one group's diagnostics share a line (a line
 * is one VEVENT's), so the kept ones, in their order, the fresh ones group
 * by group (reading's, then expansion's) and the feed's own, sorted stably
 * by line, stand as a whole build reports them.
 */
function assembleDiagnostics({ expanded, fresh, feedDiagnostics, kept }: AssemblyInput, places: Places) {
  type Entry = { readonly line: number; readonly group: number } & ({ readonly kept: number } | { readonly diagnostic: Diagnostic });
  const entries: Entry[] = [];
  const lineOf = (diagnostic: Diagnostic) => diagnostic.line ?? Number.POSITIVE_INFINITY;
  if (kept !== undefined) {
    const { diagnosticGroups } = kept.reuse;
    for (let d = 0; d < diagnosticGroups.length; d++) {
      const group = diagnosticGroups[d];
      if (group === NO_GROUP || places.kept[group] < 0) continue;
      entries.push({ line: kept.packed.diagnosticLines[d], group: places.kept[group], kept: d });
    }
  }
  const { diagnosticEnds } = expanded.groups;
  for (const [f, { span, readingDiagnostics }] of fresh.entries()) {
    const group = places.fresh[f];
    for (const diagnostic of readingDiagnostics) entries.push({ line: lineOf(diagnostic), group, diagnostic });
    if (span < 0) continue;
    for (let i = span === 0 ? 0 : diagnosticEnds[span - 1]; i < diagnosticEnds[span]; i++) {
      const diagnostic = expanded.diagnostics[i];
      entries.push({ line: lineOf(diagnostic), group, diagnostic });
    }
  }
  for (const diagnostic of feedDiagnostics) entries.push({ line: lineOf(diagnostic), group: NO_GROUP, diagnostic });
  // A stable sort.
  entries.sort((a, b) => a.line - b.line || 0);
  const table = new StringTableBuilder();
  for (const entry of entries) {
    if ("kept" in entry) table.addRange(kept!.packed.diagnostics, entry.kept, entry.kept + 1);
    else table.add(JSON.stringify(entry.diagnostic));
  }
  return {
    table: table.build(),
    lines: sharedFrom(
      sharedFloat64,
      entries.map((entry) => entry.line),
    ),
    groups: sharedFrom(
      sharedInt32,
      entries.map((entry) => entry.group),
    ),
  };
}

/**
 * The feed's own zones the series use: those the kept snapshot carried, and
 * those of the fresh series. Every other zone a series names must be the
 * zone database's of that name, the only one another thread can find.
 */
function feedZonesOf(keptZones: string | undefined, fresh: readonly OnDemandSeries[]): string {
  const zones = new Map<string, unknown[]>(keptZones === undefined ? [] : (JSON.parse(keptZones) as [string, unknown[]][]));
  for (const tail of fresh) {
    for (const zone of tail.series.zones()) {
      if (zone instanceof FeedZone) zones.set(zone.name, zone.definition);
      else if (!sameZoneByName(zone)) throw new Error(`zone ${zone.name} is neither the zone database's nor the feed's own`);
    }
  }
  return JSON.stringify([...zones]);
}

/**
 * Instants where a zone found by name must agree with the zone the feed was
 * read in: every zone that is not a feed's own VTIMEZONE comes from the zone
 * database by its name.
 */
const ZONE_SAMPLES = [Date.UTC(1950, 0, 15), Date.UTC(2000, 6, 15), Date.UTC(2026, 0, 15), Date.UTC(2026, 6, 15), Date.UTC(2150, 0, 15)];

/** The zone of this name on any thread, when it is the same rules as `zone`. */
function sameZoneByName(zone: ZoneRules): boolean {
  const named = ianaZone(zone.name);
  return named !== undefined && ZONE_SAMPLES.every((instant) => named.offsetAt(instant) === zone.offsetAt(instant));
}

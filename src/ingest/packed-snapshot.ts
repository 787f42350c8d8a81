/**
 * A snapshot in the form that crosses from an ingest worker to the main
 * thread cheaply: occurrences as typed arrays (the index's own, transferred,
 * not copied), the events' details as columns (packed-details.ts) and the
 * on-demand series as a string table of JSON recipes, with the feed's own
 * VTIMEZONEs they use; each detail and recipe is made only when a search
 * first needs it. The main thread only wraps these; it never sorts, expands
 * or makes an object per occurrence.
 */
import type { EventDetails, Occurrence } from "../expand/occurrence.js";
import { type OnDemandRecipe, OnDemandSeries, type SeriesTail, type TailBatch, type TailRequest } from "../expand/series-tail.js";
import type { Availability } from "../ics/availability.js";
import type { Diagnostic } from "../ics/diagnostic.js";
import { FeedZone, vtimezoneZone } from "../ics/vtimezone-zone.js";
import { endsOf, type IndexParts, IntervalIndex } from "../index/interval-index.js";
import type { ZoneRules } from "../time/zone-rules.js";
import { ianaZone } from "../time/zones.js";
import { detailsReader, type PackedDetails, packDetails } from "./packed-details.js";
import { type PackedVersions, packVersions, unpackVersions } from "./packed-versions.js";
import type { Snapshot, ZoneSource } from "./snapshot.js";
import { type StringTable, stringCount, stringReader, stringTable, stringTableBuffers } from "./string-table.js";

/** A snapshot as an ingest worker sends it: plain values, typed arrays and string tables, their buffers transferred. */
export interface PackedSnapshot {
  readonly id: string;
  readonly calendarId: string;
  readonly zone: string;
  readonly zoneSource: ZoneSource;
  readonly dataAsOf: number;
  readonly eventCount: number;
  /** The feed was cut and its complete components are served in part (Snapshot.partial). */
  readonly partial: boolean;
  /** JSON of the diagnostics list. */
  readonly diagnostics: string;
  /** Starts, and ends in the leaves of the max-end tree (endsOf). */
  readonly index: IndexParts;
  /** Per index position: the recurrence slot, and which details. */
  readonly slots: Float64Array;
  readonly detailIds: Uint32Array;
  /** The events' details that detailIds point at. */
  readonly details: PackedDetails;
  /** The JSON of each on-demand series' recipe. */
  readonly tails: StringTable;
  /** Each on-demand series' UID digest, so a look-up by event_id need not rebuild the others. */
  readonly tailKeys: StringTable;
  /** JSON of [TZID, VTIMEZONE as jCal] pairs: the feed's own zones that on-demand series use (no other thread knows them by name). */
  readonly feedZones: string;
  /** Each event's version, for comparing snapshots (ChangesSince). */
  readonly versions: PackedVersions;
  /** JSON of the feed's VAVAILABILITY (plain data: zone names and wall times); "" when it has none. */
  readonly availability?: string;
}

/**
 * Instants where a zone found by name must agree with the zone the feed was
 * read in, checked as packing goes: every zone that is not a feed's own
 * VTIMEZONE comes from the zone database by its name.
 */
const ZONE_SAMPLES = [Date.UTC(1950, 0, 15), Date.UTC(2000, 6, 15), Date.UTC(2026, 0, 15), Date.UTC(2026, 6, 15), Date.UTC(2150, 0, 15)];

/** The zone of this name on any thread, when it is the same rules as `zone`. */
function sameZoneByName(zone: ZoneRules): boolean {
  const named = ianaZone(zone.name);
  return named !== undefined && ZONE_SAMPLES.every((instant) => named.offsetAt(instant) === zone.offsetAt(instant));
}

/**
 * Packs a snapshot built on this thread, with the buffers to transfer; once
 * they are transferred the snapshot's index is empty here.
 */
export function packSnapshot(snapshot: Snapshot): { packed: PackedSnapshot; transfer: ArrayBuffer[] } {
  const tails = snapshot.tails.map((tail) => {
    if (!(tail instanceof OnDemandSeries)) throw new Error("only a snapshot's on-demand series can be packed");
    return tail;
  });
  const feedZones = new Map<string, unknown[]>();
  for (const zone of [snapshot.zone, ...tails.flatMap((tail) => tail.series.zones())]) {
    if (zone instanceof FeedZone) feedZones.set(zone.name, zone.definition);
    else if (!sameZoneByName(zone)) throw new Error(`zone ${zone.name} is neither the zone database's nor the feed's own`);
  }

  const { index } = snapshot;
  const size = index.size;
  const slots = new Float64Array(size);
  const detailIds = new Uint32Array(size);
  const ids = new Map<EventDetails, number>();
  const details: EventDetails[] = [];
  for (let position = 0; position < size; position++) {
    const occurrence = index.item(position);
    slots[position] = occurrence.slot;
    let id = ids.get(occurrence.details);
    if (id === undefined) {
      id = details.length;
      ids.set(occurrence.details, id);
      details.push(occurrence.details);
    }
    detailIds[position] = id;
  }
  const detailColumns = packDetails(details);
  const tailTable = stringTable(tails.map((tail) => JSON.stringify(tail.recipe())));
  const tailKeys = stringTable(tails.map((tail) => tail.uidKey));
  const versions = packVersions(snapshot.versions);
  const parts = index.parts;
  const packed: PackedSnapshot = {
    id: snapshot.id,
    calendarId: snapshot.calendarId,
    zone: snapshot.zone.name,
    zoneSource: snapshot.zoneSource,
    dataAsOf: snapshot.dataAsOf,
    eventCount: snapshot.eventCount,
    partial: snapshot.partial === true,
    diagnostics: JSON.stringify(snapshot.diagnostics),
    index: parts,
    slots,
    detailIds,
    details: detailColumns.packed,
    tails: tailTable,
    tailKeys,
    feedZones: JSON.stringify([...feedZones]),
    versions: versions.packed,
    availability: snapshot.availability === undefined ? "" : JSON.stringify(snapshot.availability),
  };
  const arrays = [parts.starts, parts.maxEnds, slots, detailIds];
  return {
    packed,
    transfer: [
      ...arrays.map((array) => array.buffer as ArrayBuffer),
      ...detailColumns.transfer,
      ...stringTableBuffers(tailTable),
      ...stringTableBuffers(tailKeys),
      ...versions.transfer,
    ],
  };
}

/** A snapshot over a packed one: what a search touches is made on first use. */
export function unpackSnapshot(packed: PackedSnapshot): Snapshot {
  const zone = ianaZone(packed.zone);
  if (zone === undefined) throw new Error(`a packed snapshot names zone ${packed.zone}, unknown on this thread`);
  const details: (EventDetails | undefined)[] = new Array(packed.details.count);
  const readDetails = detailsReader(packed.details);
  const detailsOf = (id: number): EventDetails => {
    let found = details[id];
    if (found === undefined) {
      found = readDetails(id);
      details[id] = found;
    }
    return found;
  };
  const { slots, detailIds } = packed;
  const starts = packed.index.starts;
  const ends = endsOf(packed.index);
  const index = new IntervalIndex<Occurrence>(packed.index, (position) => ({
    start: starts[position],
    end: ends[position],
    slot: slots[position],
    details: detailsOf(detailIds[position]),
  }));
  const recipe = stringReader(packed.tails);
  const tailKey = stringReader(packed.tailKeys);
  const zoneNamed = carriedZones(packed.feedZones);
  const tails: SeriesTail[] = [];
  for (let i = 0; i < stringCount(packed.tails); i++) {
    tails.push(new LazyTail(tailKey(i), () => JSON.parse(recipe(i)) as OnDemandRecipe, zoneNamed));
  }
  let diagnostics: readonly Diagnostic[] | undefined;
  return {
    id: packed.id,
    calendarId: packed.calendarId,
    zone,
    zoneSource: packed.zoneSource,
    dataAsOf: packed.dataAsOf,
    eventCount: packed.eventCount,
    versions: unpackVersions(packed.versions),
    get diagnostics(): readonly Diagnostic[] {
      diagnostics ??= JSON.parse(packed.diagnostics) as Diagnostic[];
      return diagnostics;
    },
    index,
    tails,
    ...(packed.partial ? { partial: true } : {}),
    ...(packed.availability === undefined || packed.availability === ""
      ? {}
      : { availability: JSON.parse(packed.availability) as Availability[] }),
  };
}

/**
 * Zones by name for a packed snapshot's series: the feed's own VTIMEZONEs it
 * carries (each read once, when first used), else the zone database's.
 */
function carriedZones(feedZones: string): (name: string) => ZoneRules | undefined {
  const definitions = new Map(JSON.parse(feedZones) as [string, unknown[]][]);
  const read = new Map<string, ZoneRules>();
  return (name) => {
    const definition = definitions.get(name);
    if (definition === undefined) return ianaZone(name);
    let zone = read.get(name);
    if (zone === undefined) {
      // The worker read this VTIMEZONE before packing it, so it reads here too.
      zone = vtimezoneZone(name, definition);
      read.set(name, zone);
    }
    return zone;
  };
}

/**
 * An on-demand series rebuilt from its recipe when a search first asks for
 * it, so a snapshot of 10,000 such series costs the main thread nothing until
 * searched (and then a little per series, inside the search's budget).
 */
class LazyTail implements SeriesTail {
  private built?: OnDemandSeries;
  constructor(
    readonly uidKey: string,
    private readonly recipe: () => OnDemandRecipe,
    private readonly zoneNamed: (name: string) => ZoneRules | undefined,
  ) {}

  private series(): OnDemandSeries {
    if (this.built === undefined) {
      const built = OnDemandSeries.fromRecipe(this.recipe(), this.zoneNamed);
      // packSnapshot packs only series whose zones are the zone database's or carried with it.
      if (built === undefined) throw new Error("an on-demand series names a zone unknown on this thread");
      this.built = built;
    }
    return this.built;
  }

  get reordered(): boolean {
    return this.series().reordered;
  }

  get reachAhead(): number {
    return this.series().reachAhead;
  }

  earliestStart(request: TailRequest): number {
    return this.series().earliestStart(request);
  }

  next(request: TailRequest, after: number, wanted: number, out: Occurrence[]): TailBatch {
    return this.series().next(request, after, wanted, out);
  }
}

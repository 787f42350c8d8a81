/**
 * A snapshot in the form that crosses from an ingest worker to the main
 * thread cheaply: occurrences as typed arrays, the events' details and the
 * on-demand series as tables of UTF-8 JSON with offsets, all transferred, not
 * copied; each table entry is decoded only when a search first needs it. The main thread only wraps these; it never sorts,
 * expands or makes an object per occurrence.
 */
import type { EventDetails, Occurrence } from "../expand/occurrence.js";
import { type OnDemandRecipe, OnDemandSeries, type SeriesTail, type TailBatch, type TailRequest } from "../expand/series-tail.js";
import type { Diagnostic } from "../ics/diagnostic.js";
import { type IndexParts, IntervalIndex } from "../index/interval-index.js";
import type { Snapshot, ZoneSource } from "../store/snapshot.js";
import type { ZoneRules } from "../time/zone-rules.js";
import { ianaZone } from "../time/zones.js";

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
  readonly index: IndexParts;
  /** Per index position: end, slot, and which details. */
  readonly ends: Float64Array;
  readonly slots: Float64Array;
  readonly detailIds: Uint32Array;
  /** The string table: UTF-8 JSON of each EventDetails, one after another; entry i is bytes [offsets[i], offsets[i + 1]). */
  readonly details: Uint8Array;
  readonly detailOffsets: Uint32Array;
  /** UTF-8 JSON of each on-demand series' recipe, laid out like `details`. */
  readonly tails: Uint8Array;
  readonly tailOffsets: Uint32Array;
}

/**
 * Instants where a zone found by name must agree with the zone the feed was
 * read in: a feed's VTIMEZONE that shadows an IANA name must not be swapped
 * for the IANA rules.
 */
const ZONE_SAMPLES = [Date.UTC(1950, 0, 15), Date.UTC(2000, 6, 15), Date.UTC(2026, 0, 15), Date.UTC(2026, 6, 15), Date.UTC(2150, 0, 15)];

/** The zone of this name on any thread, when it is the same rules as `zone`. */
function sameZoneByName(zone: ZoneRules): boolean {
  const named = ianaZone(zone.name);
  return named !== undefined && ZONE_SAMPLES.every((instant) => named.offsetAt(instant) === zone.offsetAt(instant));
}

/** Lays strings out as UTF-8 bytes, one after another, with their start offsets (plus the end). */
function table(entries: readonly string[]): { bytes: Uint8Array; offsets: Uint32Array } {
  const encoded = entries.map((entry) => encoder.encode(entry));
  const offsets = new Uint32Array(entries.length + 1);
  let at = 0;
  encoded.forEach((entry, i) => {
    offsets[i] = at;
    at += entry.length;
  });
  offsets[entries.length] = at;
  const bytes = new Uint8Array(at);
  for (const [i, entry] of encoded.entries()) bytes.set(entry, offsets[i]);
  return { bytes, offsets };
}

/** Entry `i` of a table, parsed. */
function entry<T>(bytes: Uint8Array, offsets: Uint32Array, i: number): T {
  return JSON.parse(decoder.decode(bytes.subarray(offsets[i], offsets[i + 1]))) as T;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Packs a snapshot built on this thread, with the buffers to transfer; once
 * they are transferred the snapshot's index is empty here. Undefined
 * when one of its zones cannot be found by name on another thread (a feed's
 * own VTIMEZONE): such a snapshot is built where it is used.
 */
export function packSnapshot(snapshot: Snapshot): { packed: PackedSnapshot; transfer: ArrayBuffer[] } | undefined {
  const tails = snapshot.tails.filter((tail): tail is OnDemandSeries => tail instanceof OnDemandSeries);
  if (tails.length !== snapshot.tails.length) return undefined;
  const zones = [snapshot.zone, ...tails.flatMap((tail) => tail.series.zones())];
  if (!zones.every(sameZoneByName)) return undefined;

  const { index } = snapshot;
  const size = index.size;
  const ends = new Float64Array(size);
  const slots = new Float64Array(size);
  const detailIds = new Uint32Array(size);
  const ids = new Map<EventDetails, number>();
  const details: string[] = [];
  for (let position = 0; position < size; position++) {
    const occurrence = index.item(position);
    ends[position] = occurrence.end;
    slots[position] = occurrence.slot;
    let id = ids.get(occurrence.details);
    if (id === undefined) {
      id = details.length;
      ids.set(occurrence.details, id);
      details.push(JSON.stringify(occurrence.details));
    }
    detailIds[position] = id;
  }
  const detailTable = table(details);
  const tailTable = table(tails.map((tail) => JSON.stringify(tail.recipe())));
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
    ends,
    slots,
    detailIds,
    details: detailTable.bytes,
    detailOffsets: detailTable.offsets,
    tails: tailTable.bytes,
    tailOffsets: tailTable.offsets,
  };
  const buffers = [
    parts.starts,
    parts.maxEnds,
    ends,
    slots,
    detailIds,
    detailTable.bytes,
    detailTable.offsets,
    tailTable.bytes,
    tailTable.offsets,
  ];
  return { packed, transfer: buffers.map((array) => array.buffer as ArrayBuffer) };
}

/** A snapshot over a packed one: what a search touches is made on first use. */
export function unpackSnapshot(packed: PackedSnapshot): Snapshot {
  const zone = ianaZone(packed.zone);
  if (zone === undefined) throw new Error(`a packed snapshot names zone ${packed.zone}, unknown on this thread`);
  const details: (EventDetails | undefined)[] = new Array(packed.detailOffsets.length - 1);
  const detailsOf = (id: number): EventDetails => {
    let found = details[id];
    if (found === undefined) {
      found = entry<EventDetails>(packed.details, packed.detailOffsets, id);
      details[id] = found;
    }
    return found;
  };
  const { ends, slots, detailIds } = packed;
  const starts = packed.index.starts;
  const index = new IntervalIndex<Occurrence>(packed.index, (position) => ({
    start: starts[position],
    end: ends[position],
    slot: slots[position],
    details: detailsOf(detailIds[position]),
  }));
  const tails: SeriesTail[] = [];
  for (let i = 0; i + 1 < packed.tailOffsets.length; i++) {
    tails.push(new LazyTail(() => entry<OnDemandRecipe>(packed.tails, packed.tailOffsets, i)));
  }
  let diagnostics: readonly Diagnostic[] | undefined;
  return {
    id: packed.id,
    calendarId: packed.calendarId,
    zone,
    zoneSource: packed.zoneSource,
    dataAsOf: packed.dataAsOf,
    eventCount: packed.eventCount,
    get diagnostics(): readonly Diagnostic[] {
      diagnostics ??= JSON.parse(packed.diagnostics) as Diagnostic[];
      return diagnostics;
    },
    index,
    tails,
    ...(packed.partial ? { partial: true } : {}),
  };
}

/**
 * An on-demand series rebuilt from its recipe when a search first asks for
 * it, so a snapshot of 10,000 such series costs the main thread nothing until
 * searched (and then a little per series, inside the search's budget).
 */
class LazyTail implements SeriesTail {
  private built?: OnDemandSeries;
  constructor(private readonly recipe: () => OnDemandRecipe) {}

  private series(): OnDemandSeries {
    if (this.built === undefined) {
      const built = OnDemandSeries.fromRecipe(this.recipe(), ianaZone);
      // packSnapshot only packs series whose zones every thread knows by name.
      if (built === undefined) throw new Error("an on-demand series names a zone unknown on this thread");
      this.built = built;
    }
    return this.built;
  }

  earliestStart(request: TailRequest): number {
    return this.series().earliestStart(request);
  }

  next(request: TailRequest, after: number, wanted: number, out: Occurrence[]): TailBatch {
    return this.series().next(request, after, wanted, out);
  }
}

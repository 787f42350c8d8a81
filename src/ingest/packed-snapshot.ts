/**
 * A snapshot in the form that crosses between an ingest worker and the main
 * thread cheaply: occurrences as typed arrays, the events' details as
 * columns (packed-details.ts) and the on-demand series as a string table of
 * JSON recipes, with the feed's own VTIMEZONEs they use, all on shared
 * memory (shared-memory.ts); each detail and recipe is made only when a
 * search first needs it. The main thread only wraps these; it never sorts,
 * expands or makes an object per occurrence. The next build of the
 * calendar reads the same arrays, and the reuse state beside them, to keep
 * what a reload did not change (docs/decisions.md, "Rebuilds in proportion
 * to the change").
 */
import type { EventDetails, Occurrence } from "../expand/occurrence.js";
import { type OnDemandRecipe, OnDemandSeries, type SeriesTail, type TailBatch, type TailRequest } from "../expand/series-tail.js";
import type { Availability } from "../ics/availability.js";
import type { Diagnostic } from "../ics/diagnostic.js";
import { vtimezoneZone } from "../ics/vtimezone-zone.js";
import { endsOf, IntervalIndex } from "../index/interval-index.js";
import type { ZoneRules } from "../time/zone-rules.js";
import { ianaZone } from "../time/zones.js";
import type { BuildReport } from "./build-report.js";
import { detailsReader } from "./packed-details.js";
import { unpackVersions } from "./packed-versions.js";
import type { Reuse } from "./reuse-state.js";
import type { Snapshot, ZoneSource } from "./snapshot.js";
import type { AssembledParts } from "./snapshot-assembly.js";
import { stringCount, stringReader } from "./string-table.js";

/** A snapshot as an ingest worker sends it: plain values, and typed arrays and string tables on shared memory. */
export interface PackedSnapshot extends AssembledParts {
  readonly id: string;
  readonly calendarId: string;
  readonly zone: string;
  readonly zoneSource: ZoneSource;
  readonly dataAsOf: number;
  /** The feed was cut and its complete components are served in part (Snapshot.partial). */
  readonly partial: boolean;
  readonly build: BuildReport;
  /** What the calendar's next build may reuse, or why nothing. */
  readonly reuse: Reuse;
  /** JSON of the feed's VAVAILABILITY (plain data: zone names and wall times); "" when it has none. */
  readonly availability: string;
}

/** The packed form of each snapshot unpacked here, for the calendar's next build (ingest.ts, IngestOptions.previous). */
const packedForms = new WeakMap<Snapshot, PackedSnapshot>();

/** The packed snapshot `snapshot` was unpacked from, when it was built in a worker and no build has started from it yet. */
export function packedFormOf(snapshot: Snapshot): PackedSnapshot | undefined {
  return packedForms.get(snapshot);
}

/**
 * Lets go of what a later build could reuse of `snapshot` (its reuse state,
 * some 65 bytes a VEVENT), once a build has started from it: only a
 * calendar's current snapshot is built from, and the replaced one is kept
 * only for the cursors on it.
 */
export function releasePackedForm(snapshot: Snapshot): void {
  packedForms.delete(snapshot);
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
  const diagnostic = stringReader(packed.diagnostics);
  const snapshot: Snapshot = {
    id: packed.id,
    calendarId: packed.calendarId,
    zone,
    zoneSource: packed.zoneSource,
    dataAsOf: packed.dataAsOf,
    eventCount: packed.eventCount,
    versions: unpackVersions(packed.versions),
    get diagnostics(): readonly Diagnostic[] {
      diagnostics ??= Array.from({ length: stringCount(packed.diagnostics) }, (_, i) => JSON.parse(diagnostic(i)) as Diagnostic);
      return diagnostics;
    },
    index,
    tails,
    build: packed.build,
    ...(packed.partial ? { partial: true } : {}),
    ...(packed.availability === "" ? {} : { availability: JSON.parse(packed.availability) as Availability[] }),
  };
  packedForms.set(snapshot, packed);
  return snapshot;
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

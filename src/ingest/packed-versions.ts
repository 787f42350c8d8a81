/**
 * A snapshot's event versions (expand/event-versions.ts) in the form that
 * crosses from an ingest worker cheaply: keys, digests and summaries as
 * string tables, spans and flags as typed arrays, their buffers
 * transferred. The main thread makes a version only when a comparison of
 * snapshots finds it changed.
 */
import type { EventVersion, VersionTable } from "../expand/event-versions.js";
import { type StringTable, stringReader, stringTable, stringTableBuffers } from "./string-table.js";

/** Versions as columns, in key order. */
export interface PackedVersions {
  readonly keys: StringTable;
  readonly digests: StringTable;
  readonly summaries: StringTable;
  readonly starts: Float64Array;
  /** Infinity for a series without end. */
  readonly ends: Float64Array;
  /** Bit 0: recurring; bit 1: classified. */
  readonly flags: Uint8Array;
}

/** Packs versions in key order, with the buffers to transfer. */
export function packVersions(table: VersionTable): { packed: PackedVersions; transfer: ArrayBuffer[] } {
  const versions = Array.from({ length: table.size }, (_, position) => table.at(position));
  const starts = Float64Array.from(versions, (version) => version.start);
  const ends = Float64Array.from(versions, (version) => version.end);
  const flags = Uint8Array.from(versions, (version) => (version.recurring ? 1 : 0) | (version.classified ? 2 : 0));
  const packed: PackedVersions = {
    keys: stringTable(versions.map((version) => version.key)),
    digests: stringTable(versions.map((version) => version.digest)),
    summaries: stringTable(versions.map((version) => version.summary)),
    starts,
    ends,
    flags,
  };
  return {
    packed,
    transfer: [
      ...stringTableBuffers(packed.keys),
      ...stringTableBuffers(packed.digests),
      ...stringTableBuffers(packed.summaries),
      starts.buffer as ArrayBuffer,
      ends.buffer as ArrayBuffer,
      flags.buffer as ArrayBuffer,
    ],
  };
}

/** A table over packed versions. */
export function unpackVersions(packed: PackedVersions): VersionTable {
  const key = stringReader(packed.keys);
  const digest = stringReader(packed.digests);
  const summary = stringReader(packed.summaries);
  return {
    size: packed.starts.length,
    key,
    digest,
    at: (position): EventVersion => ({
      key: key(position),
      digest: digest(position),
      start: packed.starts[position],
      end: packed.ends[position],
      recurring: (packed.flags[position] & 1) !== 0,
      summary: summary(position),
      classified: (packed.flags[position] & 2) !== 0,
    }),
  };
}

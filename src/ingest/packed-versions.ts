/**
 * A snapshot's event versions (expand/event-versions.ts) in the form that
 * crosses from an ingest worker cheaply: keys, digests and summaries as
 * string tables, spans and flags as typed arrays, all on shared memory. The
 * main thread makes a version only when a comparison of snapshots finds it
 * changed; a later build copies the versions of the events a reload did not
 * change.
 */
import type { EventVersion, VersionTable } from "../expand/event-versions.js";
import { sharedFloat64, sharedUint8 } from "./shared-memory.js";
import { type StringTable, StringTableBuilder, stringReader } from "./string-table.js";

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

/** Packs versions given in key order. */
export function packVersions(table: VersionTable): PackedVersions {
  const builder = new PackedVersionsBuilder();
  for (let position = 0; position < table.size; position++) builder.add(table.at(position));
  return builder.build();
}

/** Builds packed versions from versions and ranges of packed ones, added in key order. */
export class PackedVersionsBuilder {
  private readonly keys = new StringTableBuilder();
  private readonly digests = new StringTableBuilder();
  private readonly summaries = new StringTableBuilder();
  /** What was added, in order: one version, or versions [from, to) of a packed set. */
  private readonly parts: (
    | { readonly version: EventVersion }
    | { readonly packed: PackedVersions; readonly from: number; readonly to: number }
  )[] = [];

  add(version: EventVersion): void {
    this.keys.add(version.key);
    this.digests.add(version.digest);
    this.summaries.add(version.summary);
    this.parts.push({ version });
  }

  /** Appends versions [from, to) of `packed`, copied. */
  addRange(packed: PackedVersions, from: number, to: number): void {
    this.keys.addRange(packed.keys, from, to);
    this.digests.addRange(packed.digests, from, to);
    this.summaries.addRange(packed.summaries, from, to);
    this.parts.push({ packed, from, to });
  }

  build(): PackedVersions {
    const count = this.keys.size;
    const starts = sharedFloat64(count);
    const ends = sharedFloat64(count);
    const flags = sharedUint8(count);
    let at = 0;
    for (const part of this.parts) {
      if ("version" in part) {
        const { version } = part;
        starts[at] = version.start;
        ends[at] = version.end;
        flags[at] = (version.recurring ? 1 : 0) | (version.classified ? 2 : 0);
        at++;
        continue;
      }
      const { packed, from, to } = part;
      starts.set(packed.starts.subarray(from, to), at);
      ends.set(packed.ends.subarray(from, to), at);
      flags.set(packed.flags.subarray(from, to), at);
      at += to - from;
    }
    return { keys: this.keys.build(), digests: this.digests.build(), summaries: this.summaries.build(), starts, ends, flags };
  }
}

/** A table over packed versions. */
export function unpackVersions(packed: PackedVersions): VersionTable {
  const key = stringReader(packed.keys);
  const digest = stringReader(packed.digests);
  const summary = stringReader(packed.summaries);
  const { keys, digests } = packed;
  return {
    size: packed.starts.length,
    key,
    digest,
    ...(keys.encoding === "latin1" && digests.encoding === "latin1" ? { latin1: { keys, digests } } : {}),
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

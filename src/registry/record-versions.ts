/**
 * Making the next version of a record, the same way in both engines: what
 * an admin wrote (the checked spec), where it is placed, and the version
 * facts (etag, change number, who and when).
 */
import { RegistryError } from "./registry-error.js";
import { calendarShardKey, canonicalJson, etagOf, type Placement } from "./registry-keys.js";
import type { CalendarRecord, CalendarSpec, PersonRecord, PersonSpec } from "./registry-records.js";

/** Who makes a change, when, at which change number. */
export interface VersionFacts {
  readonly changeNumber: number;
  readonly by: string;
  readonly at: number;
}

/** The calendar `spec` as stored at `facts`; `previous` keeps its creation facts. */
export function calendarVersion(spec: CalendarSpec, placement: Placement, facts: VersionFacts, previous?: CalendarRecord): CalendarRecord {
  return {
    ...spec,
    shardGroup: placement.groupOf(calendarShardKey(spec)),
    etag: etagOf(spec.id, facts.changeNumber),
    createdBy: previous?.createdBy ?? facts.by,
    createdAt: previous?.createdAt ?? facts.at,
    updatedBy: facts.by,
    updatedAt: facts.at,
    changeNumber: facts.changeNumber,
  };
}

/** The person `spec` as stored at `facts`. */
export function personVersion(spec: PersonSpec, placement: Placement, facts: VersionFacts): PersonRecord {
  return {
    ...spec,
    shardGroup: placement.groupOf(spec.principalId),
    etag: etagOf(spec.principalId, facts.changeNumber),
    updatedBy: facts.by,
    updatedAt: facts.at,
    changeNumber: facts.changeNumber,
  };
}

/** The spec part of a calendar record: what an admin wrote. */
export function calendarSpecOf(record: CalendarRecord): CalendarSpec {
  return {
    id: record.id,
    name: record.name,
    source: record.source,
    ...(record.zone === undefined ? {} : { zone: record.zone }),
    refreshMs: record.refreshMs,
    readers: record.readers,
    freeBusyReaders: record.freeBusyReaders,
    ...(record.shardKey === undefined ? {} : { shardKey: record.shardKey }),
  };
}

/** True when a create of `spec` repeats the one that made `record` (and nothing changed it since). */
export function repeatsCreate(record: CalendarRecord, spec: CalendarSpec): boolean {
  return canonicalJson(calendarSpecOf(record)) === canonicalJson(spec);
}

/** The live calendar `record` of `id`: NOT_FOUND when there is none, ETAG_MISMATCH when an etag is given and is not its own. */
export function checkedVersion(record: CalendarRecord | undefined, id: string, etag: string | undefined): CalendarRecord {
  if (record === undefined) throw new RegistryError("NOT_FOUND", `no calendar has id "${id}"`);
  if (etag !== undefined && etag !== record.etag) {
    throw new RegistryError("ETAG_MISMATCH", `calendar ${id} changed since etag ${etag} was read: read it again and reapply the change`);
  }
  return record;
}

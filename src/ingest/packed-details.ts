/**
 * The events' details of a snapshot as columns, to cross from an ingest
 * worker to the main thread cheaply: their strings in one string table,
 * their flags and instants in typed arrays, all on shared memory. Packing
 * reads each field once (no JSON per event); unpacking makes an
 * EventDetails only when a search first reaches an occurrence of it; a
 * later build keeps the details of the events a reload did not change by
 * copying their columns.
 */
import type { EventDetails } from "../expand/occurrence.js";
import type { EventAbout } from "../ics/event-about.js";
import { sharedFloat64, sharedUint8 } from "./shared-memory.js";
import { type StringTable, StringTableBuilder, stringReader } from "./string-table.js";

/** The string fields of one details, in the order they follow one another in the table; then the JSON of `about`. */
const STRING_FIELDS = ["uid", "uidKey", "summary", "location", "searchable", "eventTimezone"] as const;
type StringField = (typeof STRING_FIELDS)[number];
/** The fields of EventDetails that only some details have, packed apart from the others. */
type OptionalField = "classified" | "about";
/** Strings per details: the fields, then `about` as JSON ("" when absent). */
const STRINGS_PER_DETAILS = STRING_FIELDS.length + 1;

/** EventDetails.status, by its code in the `flags` column. */
const STATUSES: readonly EventDetails["status"][] = ["", "CONFIRMED", "TENTATIVE"];
const STATUS_MASK = 0b11;
const TRANSPARENT = 1 << 2;
const ALL_DAY = 1 << 3;
const RECURRING = 1 << 4;
const HAS_LAST_MODIFIED = 1 << 5;
const CLASSIFIED = 1 << 6;

/** Details i's fields; the same i as the packed occurrences' detail ids. */
export interface PackedDetails {
  readonly count: number;
  /** Details after details: string field f (STRING_FIELDS) of details i is entry i * STRINGS_PER_DETAILS + f, its `about` the last. */
  readonly strings: StringTable;
  /** Status code and flags (the bits above). */
  readonly flags: Uint8Array;
  /** Meaningful where flags has HAS_LAST_MODIFIED. */
  readonly lastModified: Float64Array;
}

/** Details [from, to) of a packed set. */
export interface DetailsRange {
  readonly from: number;
  readonly to: number;
}

/**
 * `fresh` as columns, after the ranges of `kept` (ids in the order given,
 * then the fresh ones): a build keeps an unchanged event's details by
 * copying them, bytes and all.
 */
export function packDetails(
  fresh: readonly EventDetails[],
  kept?: { readonly details: PackedDetails; readonly ranges: readonly DetailsRange[] },
): PackedDetails {
  const keptCount = kept === undefined ? 0 : kept.ranges.reduce((sum, range) => sum + range.to - range.from, 0);
  const count = keptCount + fresh.length;
  const strings = new StringTableBuilder();
  const flags = sharedUint8(count);
  const lastModified = sharedFloat64(count);
  let at = 0;
  for (const { from, to } of kept?.ranges ?? []) {
    const source = kept!.details;
    strings.addRange(source.strings, from * STRINGS_PER_DETAILS, to * STRINGS_PER_DETAILS);
    flags.set(source.flags.subarray(from, to), at);
    lastModified.set(source.lastModified.subarray(from, to), at);
    at += to - from;
  }
  for (const one of fresh) {
    for (const field of STRING_FIELDS) strings.add(one[field]);
    strings.add(one.about === undefined ? "" : JSON.stringify(one.about));
    flags[at] =
      STATUSES.indexOf(one.status) |
      (one.transparent ? TRANSPARENT : 0) |
      (one.allDay ? ALL_DAY : 0) |
      (one.recurring ? RECURRING : 0) |
      (one.lastModified === undefined ? 0 : HAS_LAST_MODIFIED) |
      (one.classified === true ? CLASSIFIED : 0);
    lastModified[at] = one.lastModified ?? 0;
    at++;
  }
  return { count, strings: strings.build(), flags, lastModified };
}

/** What comparing occurrences needs of a packed details (compareOccurrences): read without making the whole details. */
export function orderingReader(packed: PackedDetails): (i: number) => Pick<EventDetails, "uidKey" | "recurring" | "allDay"> {
  const string = stringReader(packed.strings);
  const uidKeyField = STRING_FIELDS.indexOf("uidKey");
  return (i) => ({
    uidKey: string(i * STRINGS_PER_DETAILS + uidKeyField),
    recurring: (packed.flags[i] & RECURRING) !== 0,
    allDay: (packed.flags[i] & ALL_DAY) !== 0,
  });
}

/**
 * Reads details of a packed set, each made anew on each call: the caller
 * keeps what it reuses. `about`, which only GetEvent reads, is parsed on
 * first use. Every field of EventDetails is named here, optional
 * ones too, so a field added to the type fails to compile until it is packed
 * rather than vanishing in transit.
 */
export function detailsReader(packed: PackedDetails): (i: number) => EventDetails {
  const string = stringReader(packed.strings);
  return (i) => {
    const field = (name: StringField) => string(i * STRINGS_PER_DETAILS + STRING_FIELDS.indexOf(name));
    const flags = packed.flags[i];
    const details: EventDetails = {
      uid: field("uid"),
      uidKey: field("uidKey"),
      summary: field("summary"),
      location: field("location"),
      searchable: field("searchable"),
      status: STATUSES[flags & STATUS_MASK],
      transparent: (flags & TRANSPARENT) !== 0,
      lastModified: (flags & HAS_LAST_MODIFIED) !== 0 ? packed.lastModified[i] : undefined,
      eventTimezone: field("eventTimezone"),
      allDay: (flags & ALL_DAY) !== 0,
      recurring: (flags & RECURRING) !== 0,
    } satisfies Record<Exclude<keyof EventDetails, OptionalField>, unknown>;
    // The optional fields, present only where they were (OptionalField names each, so a new one fails to compile).
    if ((flags & CLASSIFIED) !== 0) (details as { classified?: boolean }).classified = true;
    const aboutText = string(i * STRINGS_PER_DETAILS + STRING_FIELDS.length);
    if (aboutText !== "") {
      let about: EventAbout | undefined;
      Object.defineProperty(details, "about", {
        enumerable: true,
        get: () => {
          about ??= JSON.parse(aboutText) as EventAbout;
          return about;
        },
      });
    }
    return details;
  };
}

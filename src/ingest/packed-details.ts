/**
 * The events' details of a snapshot as columns, to cross from an ingest
 * worker to the main thread cheaply: their strings in one string table,
 * their flags and instants in typed arrays. Packing reads each field once
 * (no JSON per event); unpacking makes an EventDetails only when a search
 * first reaches an occurrence of it.
 */
import type { EventDetails } from "../expand/occurrence.js";
import type { EventAbout } from "../ics/event-about.js";
import { type StringTable, stringReader, stringTable, stringTableBuffers } from "./string-table.js";

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

/** `details` as columns, with the buffers that may be transferred. */
export function packDetails(details: readonly EventDetails[]): { packed: PackedDetails; transfer: ArrayBuffer[] } {
  const count = details.length;
  const strings: string[] = [];
  const flags = new Uint8Array(count);
  const lastModified = new Float64Array(count);
  details.forEach((one, i) => {
    for (const field of STRING_FIELDS) strings.push(one[field]);
    strings.push(one.about === undefined ? "" : JSON.stringify(one.about));
    flags[i] =
      STATUSES.indexOf(one.status) |
      (one.transparent ? TRANSPARENT : 0) |
      (one.allDay ? ALL_DAY : 0) |
      (one.recurring ? RECURRING : 0) |
      (one.lastModified === undefined ? 0 : HAS_LAST_MODIFIED) |
      (one.classified === true ? CLASSIFIED : 0);
    lastModified[i] = one.lastModified ?? 0;
  });
  const table = stringTable(strings);
  return {
    packed: { count, strings: table, flags, lastModified },
    transfer: [...stringTableBuffers(table), flags.buffer as ArrayBuffer, lastModified.buffer as ArrayBuffer],
  };
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

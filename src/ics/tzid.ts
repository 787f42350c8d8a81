/**
 * TZIDs as real producers write them, without a VTIMEZONE (docs/imperfect-feeds.md, the TZID rows).
 * RFC 5545 leaves a TZID's text to the producer; the forms below are common
 * enough that Google Calendar, Thunderbird and python-icalendar all read them
 * as one zone, so calq does too, and says which reading it applied:
 *
 * - vendor prefixes: `/mozilla.org/20070129_1/America/New_York`,
 *   `/freeassociation.sourceforge.net/Tzfile/Europe/London`,
 *   `/softwarestudio.org/Olson_20011030_5/America/New_York`: the longest
 *   trailing part that is an IANA name;
 * - Outlook/OWA display names: `(UTC-05:00) Eastern Time (US & Canada)` by a
 *   table of the US and Canada names, and the city-list forms
 *   (`(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna`) by the
 *   first city that names an IANA zone.
 *
 * IANA and Windows names themselves are read by `time/zones.ts`.
 */
import type { ZoneRules } from "../time/zone-rules.js";
import { ianaZone } from "../time/zones.js";

/** A zone found for a TZID that is not a plain IANA or Windows name, and how. */
export interface TzidReading {
  readonly zone: ZoneRules;
  /** The rule applied, for the warning. */
  readonly rule: string;
}

/**
 * Outlook display names that list no city. Written by hand from the names
 * Windows shows; the rest of its list names cities, read by `cityZone`.
 */
const DISPLAY_NAMES: Readonly<Record<string, string>> = {
  "eastern time (us & canada)": "America/New_York",
  "central time (us & canada)": "America/Chicago",
  "mountain time (us & canada)": "America/Denver",
  "pacific time (us & canada)": "America/Los_Angeles",
  "atlantic time (canada)": "America/Halifax",
  alaska: "America/Anchorage",
  hawaii: "Pacific/Honolulu",
  arizona: "America/Phoenix",
  newfoundland: "America/St_Johns",
  saskatchewan: "America/Regina",
  "indiana (east)": "America/Indiana/Indianapolis",
  "coordinated universal time": "UTC",
};

/** The zone of a TZID in one of the producer forms above, or undefined. */
export function producerTzid(tzid: string): TzidReading | undefined {
  const name = tzid.trim().replace(/^"|"$/g, "");
  if (name.startsWith("/")) {
    const parts = name.split("/").filter((part) => part !== "");
    for (let first = 1; first < parts.length; first++) {
      const zone = ianaZone(parts.slice(first).join("/"));
      if (zone !== undefined) return { zone, rule: `the vendor-prefixed TZID "${name}" was read as ${zone.name}` };
    }
    return undefined;
  }
  // The "(UTC-05:00) " prefix is left out by some exports; a name of the table is distinctive without it.
  const display = /^\((?:UTC|GMT)(?:[+-]\d{1,2}:?\d{2})?\)\s*(.+)$/i.exec(name);
  if (display === null && DISPLAY_NAMES[name.toLowerCase()] === undefined) return undefined;
  const label = (display?.[1] ?? name).trim();
  const listed = DISPLAY_NAMES[label.toLowerCase()];
  const zone = listed === undefined ? cityZone(label) : ianaZone(listed);
  return zone === undefined ? undefined : { zone, rule: `the Outlook display name "${name}" was read as ${zone.name}` };
}

let cities: Map<string, string> | undefined;

/** The IANA zone of the first city in a comma-separated list that names one ("Bangkok, Hanoi, Jakarta" → Asia/Bangkok). */
function cityZone(list: string): ZoneRules | undefined {
  cities ??= new Map(
    Intl.supportedValuesOf("timeZone").map((zone) => [zone.slice(zone.lastIndexOf("/") + 1).toLowerCase(), zone] as const),
  );
  for (const city of list.split(",")) {
    const key = city
      .trim()
      .replace(/\s*\(.*\)$/, "")
      .replace(/ /g, "_")
      .toLowerCase();
    const zone = cities.get(key);
    if (zone !== undefined) return ianaZone(zone);
  }
  return undefined;
}

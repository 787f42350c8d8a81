/**
 * Zone names to zone rules: IANA names through the runtime's time-zone
 * database, Windows names (as Outlook writes them in TZID) through CLDR's
 * mapping, and nothing else. Fixed offsets and abbreviations are not zones.
 */
import { findIana } from "windows-iana";
import { TransitionCachedZone, UTC_ZONE, type ZoneRules } from "./zone-rules.js";

/** Rules by lower-cased name: every spelling of a zone shares one, so the map stays as small as the database. */
const ianaZones = new Map<string, ZoneRules>();

/**
 * The rules of a zone the IANA database knows (as the runtime does, names
 * matched case-insensitively, links included), or undefined. The returned
 * rules carry the name as given. Feeds may use any such name; requests are
 * held to a stricter form (see `request-window.ts`).
 */
export function ianaZone(name: string): ZoneRules | undefined {
  if (name === "" || /^[+\-\d]/.test(name)) return undefined;
  const key = name.toLowerCase();
  let zone = ianaZones.get(key);
  if (zone === undefined) {
    zone = loadIanaZone(name);
    if (zone === undefined) return undefined;
    ianaZones.set(key, zone);
  }
  return renamed(zone, name);
}

function loadIanaZone(name: string): ZoneRules | undefined {
  if (name.toLowerCase() === "utc" || name.toLowerCase() === "etc/utc") return UTC_ZONE;
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      era: "short",
    });
  } catch {
    return undefined;
  }
  return new TransitionCachedZone(name, (instant) => intlOffsetAt(format, instant));
}

/** The offset Intl implies at `instant`, to the second. */
function intlOffsetAt(format: Intl.DateTimeFormat, instant: number): number {
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let beforeCommonEra = false;
  for (const part of format.formatToParts(instant)) {
    switch (part.type) {
      case "year":
        year = Number(part.value);
        break;
      case "month":
        month = Number(part.value);
        break;
      case "day":
        day = Number(part.value);
        break;
      case "hour":
        hour = Number(part.value);
        break;
      case "minute":
        minute = Number(part.value);
        break;
      case "second":
        second = Number(part.value);
        break;
      case "era":
        beforeCommonEra = part.value === "BC" || part.value === "B";
        break;
    }
  }
  if (beforeCommonEra) year = 1 - year;
  const wall = new Date(0);
  wall.setUTCFullYear(year, month - 1, day);
  wall.setUTCHours(hour, minute, second, 0);
  const wholeSecond = Math.floor(instant / 1000) * 1000;
  return wall.getTime() - wholeSecond;
}

/**
 * The IANA zone a Windows zone name stands for (CLDR's territory "001"
 * choice), e.g. "W. Europe Standard Time" to Europe/Berlin.
 */
export function windowsZone(name: string): ZoneRules | undefined {
  const candidates = findIana(name);
  if (candidates === undefined || candidates.length === 0) return undefined;
  const zone = ianaZone(candidates[0]);
  return zone === undefined ? undefined : renamed(zone, candidates[0]);
}

/** The same rules under another spelling (a small view, never cached). */
function renamed(zone: ZoneRules, name: string): ZoneRules {
  if (zone.name === name) return zone;
  return { name, offsetAt: (instant) => zone.offsetAt(instant) };
}

/**
 * Zone rules from a feed's own VTIMEZONE, for TZIDs that are neither IANA nor
 * Windows names. ical.js reads the STANDARD/DAYLIGHT rules; calq caches the
 * transitions like any other zone.
 */
import ICAL from "ical.js";
import { civil } from "../time/civil.js";
import { TransitionCachedZone, type ZoneRules } from "../time/zone-rules.js";

/**
 * Zone rules for one VTIMEZONE component (jCal form), named by its TZID.
 * Throws for observances that recur more often than yearly: real zones never
 * do, and ical.js would expand them without end.
 */
export function vtimezoneZone(tzid: string, jcal: unknown[]): ZoneRules {
  const component = new ICAL.Component(jcal as never);
  for (const observance of component.getAllSubcomponents()) {
    for (const rule of observance.getAllProperties("rrule")) {
      const freq = (rule.getFirstValue() as { freq?: string } | null)?.freq;
      if (freq !== "YEARLY") throw new Error(`its ${observance.name.toUpperCase()} recurs ${String(freq)}, not YEARLY`);
    }
  }
  const timezone = new ICAL.Timezone(component);
  const utc = ICAL.Timezone.utcTimezone;
  return new TransitionCachedZone(tzid, (instant) => {
    const wholeSecond = Math.floor(instant / 1000) * 1000;
    const at = new Date(wholeSecond);
    const time = ICAL.Time.fromData(
      {
        year: at.getUTCFullYear(),
        month: at.getUTCMonth() + 1,
        day: at.getUTCDate(),
        hour: at.getUTCHours(),
        minute: at.getUTCMinutes(),
        second: at.getUTCSeconds(),
        isDate: false,
      },
      utc,
    );
    const local = time.convertToZone(timezone);
    return civil(local.year, local.month, local.day, local.hour, local.minute, local.second) - wholeSecond;
  });
}

/**
 * calq.yaml and the registry serve calendars side by side (docs/decisions.md,
 * "The calendar registry"), and an id names one calendar: the registry
 * refuses to create an id calq.yaml declares (the engines' `reservedIds`),
 * and a replica refuses to start when its group's registry rows and
 * calq.yaml share an id anyway (calq.yaml changed under a running registry).
 */
import { RegistryError } from "./registry-error.js";
import type { CalendarRecord } from "./registry-records.js";

/** The ids both calq.yaml and the registry's rows hold, sorted; start refuses when there is any, naming them. */
export function calendarIdsInBoth(configIds: Iterable<string>, registryCalendars: Iterable<Pick<CalendarRecord, "id">>): string[] {
  const declared = new Set(configIds);
  const both = new Set<string>();
  for (const calendar of registryCalendars) if (declared.has(calendar.id)) both.add(calendar.id);
  return [...both].sort();
}

/** CALENDAR_ALREADY_EXISTS when calq.yaml declares `id`. */
export function refuseReservedId(id: string, reservedIds: ReadonlySet<string> | undefined): void {
  if (reservedIds?.has(id)) {
    throw new RegistryError("CALENDAR_ALREADY_EXISTS", `calendar ${id} is declared in calq.yaml; a registry calendar needs another id`);
  }
}

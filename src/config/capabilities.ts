/**
 * What a principal may do beyond reading its own calendars. Capabilities come
 * from calq.yaml or a JWT's scopes; the server checks them at execution.
 */

/** The capability to read the calendars that list one as reader (implied for calq.yaml principals; a JWT scope). */
export const READ = "calendar.read";
/** The capability to read calendars one is not a reader of (audit-logged). */
export const READ_ANY = "calendar.read.any";
/** The capability to see feed state, reload and import (CalendarAdminService; audit-logged). */
export const ADMIN = "calendar.admin";
/** Every capability calq knows; JWT scopes outside it are ignored. */
export const KNOWN_CAPABILITIES: ReadonlySet<string> = new Set([READ, READ_ANY, ADMIN]);

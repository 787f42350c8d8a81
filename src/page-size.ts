/**
 * Bounds the service enforces and the tool schemas state: how many
 * occurrences one SearchEvents page may hold, how many calendars one
 * QueryFreeBusy may name. Both read them here, so a model that follows the
 * schema is never refused INVALID_LIMIT or, for the count, INVALID_CALENDAR_IDS.
 */

/** The page size when a request sends limit 0 (unset). */
export const DEFAULT_LIMIT = 20;

/** The largest limit a request may send; more is INVALID_LIMIT. */
export const MAX_LIMIT = 100;

/** The most calendars one QueryFreeBusy may name; more is INVALID_CALENDAR_IDS (stated in the tool schema too). */
export const MAX_CALENDARS_PER_REQUEST = 50;

/** FindFreeSlots: the slots when a request sends limit 0 (unset), and the most one may ask for. */
export const DEFAULT_SLOTS = 10;
export const MAX_SLOTS = 50;

/** FindFreeSlots: the bounds of duration_minutes and step_minutes (a step of 0 means the default). */
export const MIN_SLOT_MINUTES = 5;
export const MAX_SLOT_MINUTES = 1440;

/** FindFreeSlots: the step when a request sends step_minutes 0 (unset). */
export const DEFAULT_STEP_MINUTES = 30;

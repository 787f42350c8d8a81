/**
 * The live registry of calendars, readers and people: what the admin
 * service, the server's start and the command may use (docs/decisions.md,
 * "The calendar registry"). Engines and their files stay behind this surface.
 */
export type { CalendarRegistry, LinkState, Subscription, SubscriptionListener, WriteContext } from "./calendar-registry.js";
export { calendarIdsInBoth } from "./config-overlap.js";
export type { EmbeddedRegistryOptions } from "./embedded-registry.js";
export { openRegistry, REGISTRY_ENGINES, type RegistrySettings } from "./open-registry.js";
export type { PostgresRegistryOptions } from "./postgres-registry.js";
export type { LinkTiming } from "./postgres-subscription.js";
export { type FieldViolation, isRegistryFailure, REGISTRY_FAILURES, RegistryError, type RegistryFailure } from "./registry-error.js";
export {
  type FollowerEvent,
  type FollowerSource,
  type FollowerStatus,
  followRegistry,
  RegistryFollower,
  type RegistryFollowerOptions,
} from "./registry-follower.js";
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, placeOf } from "./registry-keys.js";
export type * from "./registry-records.js";
export { AUDIT_ACTIONS, CREDENTIAL_SCHEMES, SOURCE_KINDS, WEEKDAYS } from "./registry-records.js";
export { checkCalendarSpec, checkPersonSpec, MAX_READERS } from "./spec-validation.js";

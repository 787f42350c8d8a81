/**
 * Names for the bounds the server's handlers use, each read from the field
 * that declares it in the contract (proto/calq/v1/calendar_service.proto,
 * the `bounds` option): the page size of a search, how many calendars one
 * request may name, and the slots, durations and steps of FindFreeSlots.
 * Nothing here is a number of its own.
 */
import { FindFreeSlotsRequestSchema, QueryFreeBusyRequestSchema, SearchEventsRequestSchema } from "../gen/calq/v1/calendar_service_pb.js";
import { declaredBound } from "./contract/index.js";

/** The page size when a SearchEvents request sends limit 0 (unset). */
export const DEFAULT_LIMIT = declaredBound(SearchEventsRequestSchema.field.limit, "zeroMeans");

/** The largest limit a SearchEvents request may send; more is INVALID_LIMIT. */
export const MAX_LIMIT = declaredBound(SearchEventsRequestSchema.field.limit, "max");

/** The most calendars one request may name; more is INVALID_CALENDAR_IDS. */
export const MAX_CALENDARS_PER_REQUEST = declaredBound(QueryFreeBusyRequestSchema.field.calendarIds, "maxItems");

/** FindFreeSlots: the slots when a request sends limit 0 (unset). */
export const DEFAULT_SLOTS = declaredBound(FindFreeSlotsRequestSchema.field.limit, "zeroMeans");

/** FindFreeSlots: the most slots a request may ask for. */
export const MAX_SLOTS = declaredBound(FindFreeSlotsRequestSchema.field.limit, "max");

/** FindFreeSlots: the shortest slot, in minutes. */
export const MIN_SLOT_MINUTES = declaredBound(FindFreeSlotsRequestSchema.field.durationMinutes, "min");

/** FindFreeSlots: the longest slot, in minutes. */
export const MAX_SLOT_MINUTES = declaredBound(FindFreeSlotsRequestSchema.field.durationMinutes, "max");

/** FindFreeSlots: the step, in minutes, when a request sends step_minutes 0 (unset). */
export const DEFAULT_STEP_MINUTES = declaredBound(FindFreeSlotsRequestSchema.field.stepMinutes, "zeroMeans");

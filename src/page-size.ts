/**
 * How many occurrences one SearchEvents page may hold. The service enforces
 * it and the tool schema states it, so both read it here: a model that
 * follows the schema is never refused INVALID_LIMIT.
 */

/** The page size when a request sends limit 0 (unset). */
export const DEFAULT_LIMIT = 20;

/** The largest limit a request may send; more is INVALID_LIMIT. */
export const MAX_LIMIT = 100;

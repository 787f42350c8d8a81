/**
 * The one error type of the registry. Every refusal and failure a caller can
 * act on is a RegistryError with a failure kind from one table; the admin
 * service maps the kind to a gRPC status at its edge and nowhere else. An
 * internal failure keeps its original error as `cause`, classified by its
 * type or code, never by its message.
 */

/** A request field at fault and why, as a google.rpc.BadRequest field violation. */
export interface FieldViolation {
  /** The field's path in the spec, e.g. `source.url` or `readers[2]`. */
  readonly field: string;
  readonly description: string;
}

/**
 * Each failure kind once, with the gRPC code the admin service answers it
 * with (docs/decisions.md, "The calendar registry").
 */
export const REGISTRY_FAILURES = {
  /** The spec is invalid as a whole; `violations` lists every field at fault and nothing was applied. */
  INVALID_SPEC: "INVALID_ARGUMENT",
  /** Another calendar with this id exists and this create asks for different content. */
  CALENDAR_ALREADY_EXISTS: "ALREADY_EXISTS",
  /** No calendar (or person) with this id. */
  NOT_FOUND: "NOT_FOUND",
  /** The etag sent is not the current one: someone else changed it since it was read. */
  ETAG_MISMATCH: "ABORTED",
  /** A page token from another query, or altered. */
  INVALID_PAGE_TOKEN: "INVALID_ARGUMENT",
  /** The database cannot be reached or refused for now; nothing was applied. Retry later. */
  UNAVAILABLE: "UNAVAILABLE",
  /** The registry's stored shard groups are not the ones configured; placement would disagree. */
  PLACEMENT_MISMATCH: "FAILED_PRECONDITION",
  /** The embedded registry's folder is held by another live process. */
  LOCKED: "FAILED_PRECONDITION",
  /** Stored data that cannot be read (a damaged file, a newer format). */
  DATA_LOSS: "DATA_LOSS",
} as const;

/** A failure kind: a key of REGISTRY_FAILURES. */
export type RegistryFailure = keyof typeof REGISTRY_FAILURES;

/** A registry refusal or failure; `message` names what is at fault and never holds a secret value. */
export class RegistryError extends Error {
  constructor(
    readonly failure: RegistryFailure,
    message: string,
    readonly details: { readonly violations?: readonly FieldViolation[]; readonly cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "RegistryError";
  }

  /** Every field at fault (INVALID_SPEC), else empty. */
  get violations(): readonly FieldViolation[] {
    return this.details.violations ?? [];
  }
}

/** True when `error` is a RegistryError of kind `failure`. */
export function isRegistryFailure(error: unknown, failure: RegistryFailure): error is RegistryError {
  return error instanceof RegistryError && error.failure === failure;
}

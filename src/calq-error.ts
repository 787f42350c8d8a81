/**
 * The one error type of calq's engine. Every refusal the contract lists is a
 * CalqError with its reason; the server turns it into a gRPC status with a
 * google.rpc.ErrorInfo at the edge, and nowhere else.
 */

/** The refusal reasons of SPEC §8 and of the admin service, exactly as sent in ErrorInfo.reason. */
export type Reason =
  | "INVALID_INTERVAL"
  | "INVALID_TIMESTAMP"
  | "UNKNOWN_TIMEZONE"
  | "TIMEZONE_OFFSET_MISMATCH"
  | "AMBIGUOUS_TIMEZONE"
  | "NONEXISTENT_LOCAL_TIME"
  | "INVALID_MATCH_MODE"
  | "INVALID_LIMIT"
  | "INVALID_CURSOR"
  | "CURSOR_EXPIRED"
  | "CALENDAR_NOT_ACCESSIBLE"
  | "UNAUTHENTICATED"
  | "PROVIDER_UNAVAILABLE"
  // The admin service's own (calendar_admin_service.proto):
  | "ADMIN_CAPABILITY_REQUIRED"
  | "CALENDAR_NOT_FOUND"
  | "NOT_FILE_BACKED"
  | "FEED_REJECTED"
  | "FEED_NOT_WRITABLE";

/**
 * A refusal a caller can act on. `message` is safe to show to a model: it
 * never holds calendar names, feed locations, paths or upstream words.
 */
export class CalqError extends Error {
  constructor(
    readonly reason: Reason,
    message: string,
    /** The request field at fault, when one is (becomes a BadRequest violation). */
    readonly field?: string,
    /** Facts the caller can act on, e.g. the two candidate instants of a fold. */
    readonly metadata: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "CalqError";
  }
}

/**
 * The one error type of calq's engine. Every refusal the contract lists is a
 * CalqError with its reason; the server turns it into a gRPC status with a
 * google.rpc.ErrorInfo at the edge, and nowhere else.
 */
import type { Reason as ReasonValue } from "../gen/calq/v1/reasons_pb.js";

/**
 * A refusal reason, exactly as sent in ErrorInfo.reason: a value of
 * calq.v1.Reason (proto/calq/v1/reasons.proto) without its REASON_ prefix.
 * The proto is the one list: a reason added there is a reason here.
 */
export type Reason = Exclude<keyof typeof ReasonValue, "UNSPECIFIED">;

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
    /** Every field at fault with why, when a request is refused whole for several (a registry spec); each becomes a BadRequest violation. */
    readonly violations: readonly { readonly field: string; readonly description: string }[] = [],
  ) {
    super(message);
    this.name = "CalqError";
  }
}

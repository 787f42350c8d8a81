/**
 * What the server learns about one call while serving it: the correlation
 * id it was given on arrival, who the caller turned out to be, and the calq
 * reason of a refusal. Logs and metrics read it when the call ends.
 */
import { createContextKey, type HandlerContext } from "@connectrpc/connect";

/** One call, as learnt while serving it. */
export interface CallInfo {
  /** Names the call in the log, and in an INTERNAL error's message. */
  readonly correlationId: string;
  /** Set once the caller is authenticated. */
  principalId?: string;
  /** The calq reason of a refusal (reasons.proto), when there was one. */
  reason?: string;
}

/** Where a call's CallInfo sits among its context values; undefined outside a served call. */
export const CALL_INFO = createContextKey<CallInfo | undefined>(undefined, { description: "calq call info" });

/** When a call's headers arrived (performance.now()): its duration counts any wait to start (fair-start.ts). */
export const ARRIVED_AT = createContextKey<number | undefined>(undefined, { description: "calq call arrival" });

/** The connection a call arrived on (an HTTP/2 session or an HTTP/1.1 socket), for bounds kept per connection. */
export const CONNECTION = createContextKey<object | undefined>(undefined, { description: "calq connection" });

/** The CallInfo of the call being served, if any. */
export function callInfo(context: Pick<HandlerContext, "values">): CallInfo | undefined {
  return context.values.get(CALL_INFO);
}

/**
 * A served call as the use cases see it (app/call.ts): its caller from
 * authentication, recorded on the call for its log line; its deadline and
 * cancellation from the transport; its work run in turns with other calls.
 */
import type { HandlerContext } from "@connectrpc/connect";
import { type Call, callOf } from "../app/call.js";
import type { Turns } from "../app/turns.js";
import type { Authenticator } from "../auth/authenticator.js";
import { callInfo } from "./call-info.js";

/** Authenticates a handler's call (UNAUTHENTICATED otherwise) and describes it for the use cases. */
export function callOfContext(authenticator: Authenticator, turns: Turns): (context: HandlerContext) => Promise<Call> {
  return async (context) => {
    const principal = await authenticator.authenticate(context);
    const info = callInfo(context);
    if (info !== undefined) info.principalId = principal.id;
    return callOf({ principal, correlationId: info?.correlationId, timeoutMs: context.timeoutMs(), signal: context.signal }, turns);
  };
}

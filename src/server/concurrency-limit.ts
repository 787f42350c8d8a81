/**
 * A bound on the calls served at once, so a burst cannot pile up work and
 * memory until everyone times out: past the bound a call is refused at once
 * with RESOURCE_EXHAUSTED, which gRPC clients treat as "retry with backoff".
 * Health and reflection are never refused: probes must see a busy server as
 * alive.
 */
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

const EXEMPT = new Set(["grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]);

/** Refuses calls beyond `maxConcurrentCalls` in flight at once. */
export function concurrencyLimit(maxConcurrentCalls: number): Interceptor {
  let inFlight = 0;
  return (next) => async (request) => {
    if (EXEMPT.has(request.service.typeName)) return next(request);
    if (inFlight >= maxConcurrentCalls) {
      throw new ConnectError("the server is handling as many calls as it allows; retry with backoff", Code.ResourceExhausted);
    }
    inFlight++;
    try {
      return await next(request);
    } finally {
      inFlight--;
    }
  };
}

/**
 * The standard gRPC health service (grpc.health.v1.Health), so load
 * balancers and orchestrators know when to send calq traffic. The server is
 * NOT_SERVING until the first load of its calendars has finished, SERVING
 * then, and NOT_SERVING again once it starts draining before exit. Every
 * served service shares that state: they all read the same calendars.
 *
 * While draining, the port stays open for the grace period (see
 * dual-protocol-listener.ts) so probes on new connections read NOT_SERVING
 * instead of "connection refused"; every other new call is refused
 * UNAVAILABLE, which gRPC clients read as "retry, elsewhere". Calls that
 * began before the drain run on to their end.
 */
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { CONNECTION } from "./call-info.js";
import { callCutShort } from "./errors.js";

/** Where the server is in its life. */
export type Phase = "starting" | "serving" | "draining";

/** The server's phase, and who is waiting to hear when it changes. */
export class HealthState {
  private current: Phase = "starting";
  private waiters = new Set<() => void>();

  get phase(): Phase {
    return this.current;
  }

  /** Moves to a later phase (never back) and wakes every Watch. */
  enter(phase: Phase): void {
    const order: Phase[] = ["starting", "serving", "draining"];
    if (order.indexOf(phase) <= order.indexOf(this.current)) return;
    this.current = phase;
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const wake of waiters) wake();
  }

  /** Resolves at the next phase change, or when `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        signal.removeEventListener("abort", wake);
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
      signal.addEventListener("abort", wake, { once: true });
    });
  }
}

/**
 * A bound on open Watch streams, in all and per connection: Watch needs no
 * credentials, and each open stream holds memory until its client leaves.
 * One limiter serves every router of the server, so the bound is the
 * server's.
 */
export class WatchLimiter {
  private open = 0;
  private readonly byConnection = new WeakMap<object, number>();

  constructor(
    private readonly maxStreams: number,
    private readonly maxPerConnection: number,
  ) {}

  /** Takes a place for a stream on `connection`, or refuses RESOURCE_EXHAUSTED; the returned function gives it back. */
  acquire(connection: object | undefined): () => void {
    const key = connection ?? this;
    const onConnection = this.byConnection.get(key) ?? 0;
    if (this.open >= this.maxStreams || (connection !== undefined && onConnection >= this.maxPerConnection)) {
      throw new ConnectError(
        this.open >= this.maxStreams
          ? `the server has ${this.maxStreams} health Watch streams open, as many as it allows; use Check, or retry with backoff`
          : `this connection has ${this.maxPerConnection} health Watch streams open, as many as one connection may; close one first`,
        Code.ResourceExhausted,
      );
    }
    this.open++;
    this.byConnection.set(key, onConnection + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      this.byConnection.set(key, (this.byConnection.get(key) ?? 1) - 1);
    };
  }
}

/**
 * Registers grpc.health.v1.Health. It answers about "" (the whole server)
 * and every service on the router; Check refuses other names with NOT_FOUND,
 * as the health protocol says, and Watch reports them SERVICE_UNKNOWN.
 */
export function registerHealth(router: ConnectRouter, state: HealthState, watchers: WatchLimiter): void {
  const known = (service: string) => service === "" || router.handlers.some((handler) => handler.service.typeName === service);
  const status = () => (state.phase === "serving" ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);

  router.service(Health, {
    check(request) {
      if (!known(request.service)) throw new ConnectError(`unknown service ${request.service}`, Code.NotFound);
      return { status: status() };
    },
    async *watch(request, context) {
      const release = watchers.acquire(context.values.get(CONNECTION));
      try {
        // A draining server ends the stream after saying so, so draining is not held up by watchers.
        // Only changes are sent: starting and draining are both NOT_SERVING.
        let sent: ServingStatus | undefined;
        for (;;) {
          const now = known(request.service) ? status() : ServingStatus.SERVICE_UNKNOWN;
          if (now !== sent) yield { status: now };
          sent = now;
          if (state.phase === "draining") return;
          await state.changed(context.signal);
          // Past the client's deadline the stream ends DEADLINE_EXCEEDED; after the client left, CANCELLED: never OK, never INTERNAL.
          if (context.signal.aborted) throw callCutShort(context.signal.reason);
        }
      } finally {
        release();
      }
    },
  });
}

/** While draining, refuses every new call but health ones with UNAVAILABLE; calls already running are not touched. */
export function refuseWhileDraining(state: HealthState): Interceptor {
  return (next) => async (request) => {
    if (state.phase === "draining" && request.service.typeName !== Health.typeName) {
      throw new ConnectError("calq is shutting down; retry on another instance", Code.Unavailable);
    }
    return next(request);
  };
}

/**
 * The interceptor every call passes through: it gives the call its
 * correlation id, turns whatever the handler threw into what the caller may
 * see (errors.ts), and reports the outcome of the call once it has ended, to
 * the RPC log and the metrics.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { DescMessage } from "@bufbuild/protobuf";
import type { ConnectError, Interceptor, StreamResponse } from "@connectrpc/connect";
import { CalqError } from "../calq-error.js";
import type { Logger } from "../log.js";
import { codeName } from "../rpc/status.js";
import { ARRIVED_AT, CALL_INFO, type CallInfo } from "./call-info.js";
import { callCutShort, toWireError } from "./errors.js";

/** How one call ended. */
export interface CallOutcome {
  /** Fully qualified service name, e.g. calq.v1.CalendarService. */
  readonly service: string;
  readonly method: string;
  /** The gRPC status code name: OK, INVALID_ARGUMENT, ... */
  readonly code: string;
  /** The calq reason of a refusal (reasons.proto). */
  readonly reason?: string;
  readonly durationMs: number;
  readonly principalId?: string;
  readonly correlationId: string;
}

/** Told how each call ended: the RPC log, the metrics. */
export type CallListener = (outcome: CallOutcome) => void;

/** The outermost interceptor: correlation id in, wire error and outcome out. */
export function observeCalls(log: Logger, listeners: readonly CallListener[]): Interceptor {
  return (next) => async (request) => {
    const info: CallInfo = { correlationId: randomUUID() };
    request.contextValues.set(CALL_INFO, info);
    const started = request.contextValues.get(ARRIVED_AT) ?? performance.now();
    const end = (error?: ConnectError) => {
      // A call cut short by its deadline or by the client ended with the signal's reason, not OK.
      const cause = error ?? (request.signal.aborted ? callCutShort(request.signal.reason) : undefined);
      const outcome: CallOutcome = {
        service: request.service.typeName,
        method: request.method.name,
        code: codeName(cause?.code),
        reason: info.reason,
        durationMs: performance.now() - started,
        principalId: info.principalId,
        correlationId: info.correlationId,
      };
      for (const listener of listeners) listener(outcome);
    };
    const toWire = (error: unknown): ConnectError => {
      if (error instanceof CalqError) info.reason = error.reason;
      return toWireError(error, log, request.method.name, info.correlationId);
    };

    let response: Awaited<ReturnType<typeof next>>;
    try {
      response = await next(request);
    } catch (error) {
      const wire = toWire(error);
      end(wire);
      throw wire;
    }
    if (!response.stream) {
      end();
      return response;
    }
    // A stream has ended only when its last message is sent, or it fails.
    return { ...response, message: observedStream(response, toWire, end) } as typeof response;
  };
}

async function* observedStream(
  response: StreamResponse<DescMessage, DescMessage>,
  toWire: (error: unknown) => ConnectError,
  end: (error?: ConnectError) => void,
) {
  let failure: ConnectError | undefined;
  try {
    yield* response.message;
  } catch (error) {
    failure = toWire(error);
    throw failure;
  } finally {
    // Also reached when the client goes away mid-stream.
    end(failure);
  }
}

/**
 * The RPC log: one line per call with its method, status code, calq reason,
 * duration, principal id and correlation id, and an audit line for each call
 * to an audited service. Health and reflection calls are logged at debug
 * level, since orchestrators poll them all day, and so are calls their
 * client cancelled: leaving is the client's right, not a fault.
 */

import type { Logger } from "../log.js";
import type { CallListener } from "./call-observer.js";

const QUIET_SERVICES = new Set([
  "grpc.health.v1.Health",
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
]);

/** `audited` names the services whose every call also gets an audit line (the admin service). */
export function rpcLog(log: Logger, audited: ReadonlySet<string>): CallListener {
  return (outcome) => {
    const failed = outcome.code === "INTERNAL" || outcome.code === "UNKNOWN";
    const fields = {
      method: `${outcome.service}/${outcome.method}`,
      code: outcome.code,
      reason: outcome.reason,
      principal: outcome.principalId,
      correlation_id: outcome.correlationId,
    };
    log({
      level: failed ? "error" : QUIET_SERVICES.has(outcome.service) || outcome.code === "CANCELLED" ? "debug" : "info",
      msg: "rpc",
      ...fields,
      duration_ms: Math.round(outcome.durationMs * 1000) / 1000,
    });
    if (audited.has(outcome.service)) log({ level: "info", kind: "audit", msg: "admin call", ...fields });
  };
}

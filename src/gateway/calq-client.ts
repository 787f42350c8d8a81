/**
 * The gateway's only way to the service: the generated CalendarService
 * client over gRPC (HTTP/2), so the gateway can run in another process or
 * on another machine. The caller's own token travels with each call.
 */
import { type CallOptions, type Client, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { CalendarService } from "../../gen/calq/v1/calendar_service_pb.js";
import { shardRouting } from "../rpc/shard-routing.js";

/** The generated client of calq.v1.CalendarService. */
export type CalqClient = Client<typeof CalendarService>;

/**
 * A client of the calq service at `serviceUrl` (http://127.0.0.1:50051, or
 * https://... trusting the system's CAs, or `ca` when given). Calls about
 * calendars carry the shard headers a balancer routes on, once the client
 * knows the calendars' groups (rpc/shard-routing.ts).
 */
export function createCalqClient(serviceUrl: string, tls: { readonly ca?: Buffer } = {}): CalqClient {
  const nodeOptions = tls.ca === undefined ? undefined : { ca: tls.ca };
  return createClient(CalendarService, createGrpcTransport({ baseUrl: serviceUrl, nodeOptions, interceptors: [shardRouting()] }));
}

/** Call options that present `token` as the caller's credentials, as the service expects them. */
export function asCaller(token: string, timeoutMs = 10_000): CallOptions {
  return { headers: { authorization: `Bearer ${token}` }, timeoutMs };
}

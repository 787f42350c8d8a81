/**
 * How a client command (`calq search`, `calq busy`, `calq slots`) reaches a
 * running server: the same --address, --token and --tls-ca options with the
 * same environment defaults, one gRPC client, and one way to print a
 * refusal. Kept apart so every command that calls the service connects and
 * fails alike.
 */
import { readFileSync } from "node:fs";
import { type CallOptions, type Client, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { CalendarAdminService } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { CalendarService } from "../../gen/calq/v1/calendar_service_pb.js";
import type { Environment } from "../config/calq-config.js";
import { shardRouting } from "../rpc/shard-routing.js";
import { calqErrorInfo, codeName } from "../rpc/status.js";

/** The parseArgs options every client command takes, defaulted from CALQ_ADDRESS, CALQ_TOKEN and CALQ_TLS_CA. */
export function connectionOptions(env: Environment) {
  return {
    address: { type: "string", default: env.CALQ_ADDRESS ?? "127.0.0.1:50051" },
    token: { type: "string", default: env.CALQ_TOKEN },
    "tls-ca": { type: "string", default: env.CALQ_TLS_CA },
  } as const;
}

/** What connectionOptions parse to. */
export interface ConnectionValues {
  readonly address?: string;
  readonly token?: string;
  readonly "tls-ca"?: string;
}

/** A client of the service and the options each call sends: the bearer token and a 30-second deadline. */
export interface ServiceClient {
  readonly client: Client<typeof CalendarService>;
  readonly callOptions: CallOptions;
}

/** Connects over gRPC, with TLS trusting --tls-ca when it is given, else in plain text, routing by shard group. */
export function serviceClient(values: ConnectionValues): ServiceClient {
  const ca = values["tls-ca"];
  const transport = createGrpcTransport({
    baseUrl: `${ca === undefined ? "http" : "https"}://${values.address}`,
    nodeOptions: ca === undefined ? undefined : { ca: readFileSync(ca) },
    // Behind a balancer routing on shard groups, the first call learns each calendar's group; later calls go straight there.
    interceptors: [shardRouting()],
  });
  const headers = values.token === undefined ? undefined : { authorization: `Bearer ${values.token}` };
  return { client: createClient(CalendarService, transport), callOptions: { headers, timeoutMs: 30_000 } };
}

/** A client of the admin service (`calq calendars`, `calq people`) and the options each call sends. */
export interface AdminClient {
  readonly client: Client<typeof CalendarAdminService>;
  readonly callOptions: CallOptions;
}

/** Connects to the admin service as serviceClient connects to the search service; any replica takes a registry change. */
export function adminClient(values: ConnectionValues): AdminClient {
  const ca = values["tls-ca"];
  const transport = createGrpcTransport({
    baseUrl: `${ca === undefined ? "http" : "https"}://${values.address}`,
    nodeOptions: ca === undefined ? undefined : { ca: readFileSync(ca) },
    interceptors: [shardRouting()],
  });
  const headers = values.token === undefined ? undefined : { authorization: `Bearer ${values.token}` };
  return { client: createClient(CalendarAdminService, transport), callOptions: { headers, timeoutMs: 30_000 } };
}

/** "calq: REASON: what to do", with the refusal's facts (e.g. both instants of a repeated hour). */
export function describeFailure(error: unknown): string {
  const failure = ConnectError.from(error);
  const info = calqErrorInfo(failure);
  const facts = Object.entries(info?.metadata ?? {}).map(([key, value]) => `\n  ${key}: ${value}`);
  return `calq: ${info?.reason ?? codeName(failure.code)}: ${failure.rawMessage}${facts.join("")}`;
}

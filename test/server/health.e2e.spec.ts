/**
 * grpc.health.v1 over a real port: NOT_SERVING while the first load is still
 * reading a feed (a local HTTP provider that holds its answer stands in for a
 * slow source), SERVING once it is done, NOT_SERVING again while draining.
 */
import type { ServerResponse } from "node:http";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import {
  HealthCheckRequestSchema,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.js";
import { parseConfig } from "../../src/config/calq-config.js";
import { type RunningServer, startServer } from "../../src/server/server.js";
import { startFeedServer } from "../support/feed-server.js";
import { ics, vevent } from "../support/feeds.js";

const serialize = (service: string) => Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service })));
const deserialize = (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes);

function check(client: grpc.Client, service: string): Promise<ServingStatus> {
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest("/grpc.health.v1.Health/Check", serialize, deserialize, service, (error, response) =>
      error ? reject(error) : resolve(response!.status),
    ),
  );
}

/** A Watch stream: the statuses seen so far, and a promise of how it ended. */
function watch(client: grpc.Client, service: string) {
  const seen: ServingStatus[] = [];
  const call = client.makeServerStreamRequest("/grpc.health.v1.Health/Watch", serialize, deserialize, service);
  let notify = () => {};
  call.on("data", (response: HealthCheckResponse) => {
    seen.push(response.status);
    notify();
  });
  const ended = new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve));
  call.on("error", () => {});
  const nth = (count: number) =>
    new Promise<void>((resolve) => {
      notify = () => seen.length >= count && resolve();
      notify();
    });
  return { seen, ended, nth };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("health", () => {
  it("is NOT_SERVING while the first load runs, SERVING after it, NOT_SERVING while draining (closed once)", async () => {
    let held!: (response: ServerResponse) => void;
    const answer = new Promise<ServerResponse>((resolve) => (held = resolve));
    const provider = await startFeedServer((_request, response) => held(response));
    cleanups.push(() => provider.close());
    const config = parseConfig({ calendars: [{ id: "work", source: provider.url, readers: [] }] }, "/srv/calq", "calq.yaml", {});

    let listening!: (port: number) => void;
    const port = new Promise<number>((resolve) => (listening = resolve));
    const started = startServer({ config, env: {}, port: 0, log: () => {}, onListening: (address) => listening(address.port) });
    const client = new grpc.Client(`127.0.0.1:${await port}`, grpc.credentials.createInsecure());
    cleanups.push(() => client.close());

    expect(await check(client, "")).toBe(ServingStatus.NOT_SERVING);
    expect(await check(client, "calq.v1.CalendarService")).toBe(ServingStatus.NOT_SERVING);
    await expect(check(client, "calq.v1.NoSuchService")).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    const overall = watch(client, "");
    const unknown = watch(client, "calq.v1.NoSuchService");
    await overall.nth(1);
    await unknown.nth(1);

    // The feed arrives: the first load completes.
    (await answer).writeHead(200).end(ics(...vevent("UID:a", "DTSTART:20261002T020000Z", "SUMMARY:A")));
    const server: RunningServer = await started;
    expect(await check(client, "")).toBe(ServingStatus.SERVING);
    expect(await check(client, "grpc.reflection.v1.ServerReflection")).toBe(ServingStatus.SERVING);
    await overall.nth(2);

    const closing = server.close(1_000);
    // A second close (a second signal while draining) is the first one.
    expect(server.close(0)).toBe(closing);
    await closing;
    const status = await overall.ended;
    expect(status.code).toBe(grpc.status.OK);
    expect(overall.seen).toEqual([ServingStatus.NOT_SERVING, ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
    expect(unknown.seen[0]).toBe(ServingStatus.SERVICE_UNKNOWN);
    expect(server.health.phase).toBe("draining");
  });
});

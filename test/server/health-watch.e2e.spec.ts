/**
 * health Watch needs no credentials and holds a stream open, so it is
 * bounded, in all and per connection; and a client that leaves a Watch
 * (cancels it, or drops its connection) has done nothing wrong: the call
 * ends CANCELLED, logged at debug, never INTERNAL. Real sockets, real
 * HTTP/2 clients.
 */
import http from "node:http";
import http2 from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { HealthCheckRequestSchema } from "../../gen/grpc/health/v1/health_pb.js";
import { ics } from "../support/feeds.js";
import { type GrpcStatus, grpcFrame } from "../support/raw-http.js";
import { startTestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(limits: { maxWatchStreams?: number; maxWatchStreamsPerConnection?: number } = {}) {
  const lines: Record<string, unknown>[] = [];
  const served = await startTestServer({
    calendars: { work: ics() },
    config: { calendars: [{ id: "work", source: "work.ics", readers: [] }], principals: [] },
    log: (record) => lines.push(record),
    serve: limits,
  });
  cleanups.push(() => served.close());
  return { served, lines };
}

function session(address: string): http2.ClientHttp2Session {
  const opened = http2.connect(`http://${address}`);
  opened.on("error", () => {});
  cleanups.push(() => void opened.destroy());
  return opened;
}

const request = grpcFrame(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema)));

/** A Watch on `on`: resolves `opened` at its first status message, `ended` with its gRPC status. */
function watch(on: http2.ClientHttp2Session) {
  const stream = on.request({
    ":method": "POST",
    ":path": "/grpc.health.v1.Health/Watch",
    "content-type": "application/grpc",
    te: "trailers",
  });
  stream.on("error", () => {});
  const opened = new Promise<void>((resolve) => stream.once("data", () => resolve()));
  const ended = new Promise<GrpcStatus>((resolve) => {
    const read = (fields: http2.IncomingHttpHeaders) =>
      fields["grpc-status"] !== undefined && resolve({ status: Number(fields["grpc-status"]), message: String(fields["grpc-message"]) });
    stream.on("response", read);
    stream.on("trailers", read);
  });
  stream.end(request);
  return { stream, opened, ended };
}

const watchLines = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => line.msg === "rpc" && line.method === "grpc.health.v1.Health/Watch");

describe("a Watch its client leaves", () => {
  it("ends CANCELLED, logged at debug, when the client cancels it (grpc-js)", async () => {
    const { served, lines } = await serve();
    const client = new grpc.Client(served.address, grpc.credentials.createInsecure());
    cleanups.push(() => client.close());
    const call = client.makeServerStreamRequest(
      "/grpc.health.v1.Health/Watch",
      () => Buffer.from(request.subarray(5)),
      (bytes: Buffer) => bytes,
      {},
    );
    call.on("error", () => {});
    await new Promise((resolve) => call.once("data", resolve));
    call.cancel();
    await waitFor("the Watch's log line", () => watchLines(lines).length === 1);
    expect(watchLines(lines)[0]).toMatchObject({ level: "debug", code: "CANCELLED" });
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
  });

  it("ends CANCELLED, not INTERNAL, when the client drops its connection", async () => {
    const { served, lines } = await serve();
    const client = session(served.address);
    const { opened } = watch(client);
    await opened;
    client.destroy();
    await waitFor("the Watch's log line", () => watchLines(lines).length === 1);
    expect(watchLines(lines)[0]).toMatchObject({ level: "debug", code: "CANCELLED" });
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
  });

  it("ends CANCELLED, not INTERNAL, when a Connect streaming client over HTTP/1.1 goes away", async () => {
    const { served, lines } = await serve();
    const body = Buffer.from("{}");
    const watching = http.request(`${served.baseUrl}/grpc.health.v1.Health/Watch`, {
      method: "POST",
      headers: { "content-type": "application/connect+json", "connect-protocol-version": "1" },
    });
    watching.on("error", () => {});
    const firstMessage = new Promise<void>((resolve) => watching.on("response", (response) => response.once("data", () => resolve())));
    watching.end(Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), body]));
    await firstMessage;
    watching.destroy();
    await waitFor("the Watch's log line", () => watchLines(lines).length === 1);
    expect(watchLines(lines)[0]).toMatchObject({ level: "debug", code: "CANCELLED" });
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
  });
});

describe("Watch bounds", () => {
  it("refuses RESOURCE_EXHAUSTED past the per-connection bound, while another connection may still watch", async () => {
    const { served } = await serve({ maxWatchStreamsPerConnection: 2 });
    const first = session(served.address);
    const held = [watch(first), watch(first)];
    await Promise.all(held.map((stream) => stream.opened));
    const refused = await watch(first).ended;
    expect(refused.status).toBe(grpc.status.RESOURCE_EXHAUSTED);
    await watch(session(served.address)).opened;
    // Once one ends, the connection may watch again.
    held[0].stream.close(http2.constants.NGHTTP2_CANCEL);
    // Until the server has seen the cancel, a new Watch is refused; once it has, one opens.
    await waitFor("a Watch opened in the place the cancelled one left", async () => {
      const next = watch(first);
      const outcome = await Promise.race([next.opened.then(() => "open" as const), next.ended.then(() => "refused" as const)]);
      return outcome === "open";
    });
  });

  it("refuses RESOURCE_EXHAUSTED past the server's bound, whatever the connection", async () => {
    const { served } = await serve({ maxWatchStreams: 3 });
    const streams = [watch(session(served.address)), watch(session(served.address)), watch(session(served.address))];
    await Promise.all(streams.map((stream) => stream.opened));
    const refused = await watch(session(served.address)).ended;
    expect(refused.status).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(refused.message).toContain("Check");
  });
});

/**
 * Connections must earn their keep, on the service port and the metrics
 * port, with real sockets: one that never sends a byte, or sends its
 * headers a byte at a time, is closed at the headers timeout; an idle
 * HTTP/2 session is closed; a late request body is cut; the caps on
 * connections, streams and header size hold; and a drain closes idle and
 * unsniffed connections at once. No test times the server: where a close
 * must come from one cause, the other timeouts are set far beyond the test's
 * own timeout, so no other cause can close it while the test waits;
 * bench/hostile.ts measures how fast it happens.
 */
import http from "node:http";
import http2 from "node:http2";
import type net from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it } from "vitest";
import { HealthCheckRequestSchema } from "../../gen/grpc/health/v1/health_pb.js";
import { type ConnectionSettings, DEFAULT_SERVE_SETTINGS } from "../../src/config/server-config.js";
import { ics } from "../support/feeds.js";
import { closed, grpcCall, grpcFrame, rawSocket } from "../support/raw-http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server with these connection settings over the defaults, and the log lines it wrote. */
async function serve(connections: Partial<ConnectionSettings>, withMetrics = false) {
  const lines: Record<string, unknown>[] = [];
  const served: TestServer = await startTestServer({
    calendars: { work: ics() },
    config: { calendars: [{ id: "work", source: "work.ics", readers: [] }], principals: [] },
    log: (record) => lines.push(record),
    serve: {
      connections: { ...DEFAULT_SERVE_SETTINGS.connections, ...connections },
      ...(withMetrics ? { admin: { host: "127.0.0.1", port: 0 } } : {}),
    },
  });
  cleanups.push(() => served.close());
  return { served, lines };
}

const check = grpcFrame(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema)));

/** Longer than any test waits: a timeout set to this cannot be why a connection closed during a test. */
const NEVER_MS = 600_000;

/** One HTTP/2 frame: type, flags, stream id, payload. */
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type, 3);
  header.writeUInt8(flags, 4);
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}

/** The type and stream of each frame in bytes a server sent, and a GOAWAY's error code. */
function framesOf(bytes: Buffer): { type: number; stream: number; errorCode?: number }[] {
  const frames: { type: number; stream: number; errorCode?: number }[] = [];
  for (let at = 0; at + 9 <= bytes.length; at += 9 + bytes.readUIntBE(at, 3)) {
    const type = bytes.readUInt8(at + 3);
    const errorCode = type === 7 && at + 17 <= bytes.length ? bytes.readUInt32BE(at + 13) : undefined;
    frames.push({ type, stream: bytes.readUInt32BE(at + 5) & 0x7fffffff, errorCode });
  }
  return frames;
}

/** An HPACK literal header field without indexing: by static-table name index, or (index 0) with the name spelt out. Short strings only. */
function literal(index: number, value: string, name?: string): Buffer {
  const text = (word: string) => Buffer.concat([Buffer.from([word.length]), Buffer.from(word)]);
  return Buffer.concat([Buffer.from([index]), ...(name === undefined ? [] : [text(name)]), text(value)]);
}

/** An HTTP/2 session to the server, closed after the test. */
function session(address: string): http2.ClientHttp2Session {
  const opened = http2.connect(`http://${address}`);
  opened.on("error", () => {});
  cleanups.push(() => void opened.destroy());
  return opened;
}

describe("the headers timeout", () => {
  it("closes a connection that never sends a byte (the protocol sniff is timed too)", async () => {
    const { served } = await serve({ headersTimeoutMs: 300 });
    const socket = await rawSocket(served.address);
    cleanups.push(() => void socket.destroy());
    // Closed by the timeout, not at once: a timer never fires early.
    const ms = await closed(socket);
    expect(ms).toBeGreaterThanOrEqual(200);
  });

  it("closes an HTTP/1.1 client that sends its headers a byte at a time", async () => {
    const { served } = await serve({ headersTimeoutMs: 500 });
    const socket = await rawSocket(served.address);
    const drip = setInterval(() => socket.writable && socket.write("x"), 50);
    cleanups.push(() => {
      clearInterval(drip);
      socket.destroy();
    });
    socket.write("POST /grpc.health.v1.Health/Check HTTP/1.1\r\nHost: calq\r\nX-Slow: ");
    await closed(socket);
  });

  it("closes an HTTP/2 client that sends the preface and no request", async () => {
    const { served } = await serve({ headersTimeoutMs: 300 });
    const socket = await rawSocket(served.address);
    cleanups.push(() => void socket.destroy());
    socket.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    await closed(socket);
  });

  it("holds on the metrics port too", async () => {
    const { served } = await serve({ headersTimeoutMs: 300 }, true);
    const socket = await rawSocket(`127.0.0.1:${served.server.adminPort}`);
    cleanups.push(() => void socket.destroy());
    await closed(socket);
  });
});

describe("idle and late", () => {
  it("closes an HTTP/2 session once it has had no call in flight for the idle timeout", async () => {
    const { served } = await serve({ idleTimeoutMs: 300 });
    const client = session(served.address);
    expect((await grpcCall(client, "/grpc.health.v1.Health/Check", (stream) => stream.end(check))).status).toBe(0);
    await closed(client);
  });

  it("keeps a session with a live stream open past the idle timeout, PINGing it", async () => {
    const { served } = await serve({ idleTimeoutMs: 200, keepaliveIntervalMs: 200 });
    const client = session(served.address);
    // The server PINGs a session only once it has been quiet for the keepalive interval, here the idle
    // timeout too: a PING rather than a close says the live stream kept the session past the idle timeout.
    const outcome = new Promise<"pinged" | "closed">((resolve) => {
      client.once("ping", () => resolve("pinged"));
      client.once("close", () => resolve("closed"));
    });
    const watch = client.request({
      ":method": "POST",
      ":path": "/grpc.health.v1.Health/Watch",
      "content-type": "application/grpc",
      te: "trailers",
    });
    watch.on("error", () => {});
    watch.resume();
    watch.end(check);
    expect(await outcome).toBe("pinged");
    // Still open and serving once the PING is answered.
    expect((await grpcCall(client, "/grpc.health.v1.Health/Check", (stream) => stream.end(check))).status).toBe(0);
    expect(client.closed).toBe(false);
  });

  it("closes a session whose live stream's peer stops answering PINGs", async () => {
    const { served } = await serve({ idleTimeoutMs: 200, keepaliveIntervalMs: 200 });
    // A hand-made HTTP/2 client (Node's own answers every PING): it opens a Watch and then never acknowledges anything.
    const socket = await rawSocket(served.address);
    cleanups.push(() => void socket.destroy());
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    socket.write(Buffer.concat([Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), frame(4, 0, 0, Buffer.alloc(0))]));
    await new Promise((resolve) => socket.once("data", resolve));
    const headers = Buffer.concat([
      Buffer.from([0x83, 0x86]), // :method POST, :scheme http (static table)
      literal(4, "/grpc.health.v1.Health/Watch"), // :path
      literal(1, served.address), // :authority
      literal(0, "application/grpc", "content-type"),
      literal(0, "trailers", "te"),
    ]);
    socket.write(Buffer.concat([frame(4, 1, 0, Buffer.alloc(0)), frame(1, 4, 1, headers), frame(0, 1, 1, check)]));
    await closed(socket);
    // Closed for the right reason: the Watch was answered (HEADERS and DATA on stream 1), then PINGed,
    // and nothing went wrong before: no stream reset, no GOAWAY but the NO_ERROR one of the close itself.
    const frames = framesOf(received).map(({ type, stream }) => ({ type, stream }));
    expect(frames).toContainEqual({ type: 1, stream: 1 });
    expect(frames).toContainEqual({ type: 0, stream: 1 });
    const ping = frames.findIndex((each) => each.type === 6 && each.stream === 0);
    expect(ping).toBeGreaterThanOrEqual(0);
    expect(frames.filter((each) => each.type === 3)).toEqual([]);
    const goaways = framesOf(received).filter((each) => each.type === 7);
    for (const goaway of goaways) expect(goaway.errorCode).toBe(0);
  });

  it("cuts a unary call whose body does not arrive within the request timeout, and logs it", async () => {
    const { served, lines } = await serve({ requestTimeoutMs: 300 });
    const client = session(served.address);
    const stream = client.request({
      ":method": "POST",
      ":path": "/grpc.health.v1.Health/Check",
      "content-type": "application/grpc",
      te: "trailers",
    });
    stream.on("error", () => {});
    stream.write(check.subarray(0, 3));
    await new Promise<void>((resolve) => stream.on("close", () => resolve()));
    expect(stream.rstCode).toBe(http2.constants.NGHTTP2_CANCEL);
    const logged = await waitFor("the call's log line", () =>
      lines.find((line) => line.msg === "rpc" && line.method === "grpc.health.v1.Health/Check"),
    );
    expect(logged).toMatchObject({ code: "DEADLINE_EXCEEDED" });
  });
});

describe("caps", () => {
  it("closes connections beyond the per-address cap on arrival, and admits again once one closes", async () => {
    // Silent sockets are never closed by a timeout here: only the cap can close one.
    const { served } = await serve({ maxConnectionsPerAddress: 3, headersTimeoutMs: NEVER_MS, idleTimeoutMs: NEVER_MS });
    const kept = await Promise.all([1, 2, 3].map(() => rawSocket(served.address)));
    cleanups.push(() => {
      for (const socket of kept) socket.destroy();
    });
    const extra = await rawSocket(served.address);
    await closed(extra);
    for (const socket of kept) expect(socket.destroyed).toBe(false);
    kept[0].destroy();
    // The place is free once the server has seen the close; until then a new connection is still refused.
    const answered = await waitFor("a connection admitted in the freed place", async () => {
      const again = session(served.address);
      const status = await grpcCall(again, "/grpc.health.v1.Health/Check", (stream) => stream.end(check)).catch(() => undefined);
      if (status === undefined) again.destroy();
      return status;
    });
    expect(answered.status).toBe(0);
  });

  it("closes connections beyond the total cap, on the metrics port too", async () => {
    const { served } = await serve({ maxConnections: 2, headersTimeoutMs: NEVER_MS, idleTimeoutMs: NEVER_MS }, true);
    for (const address of [served.address, `127.0.0.1:${served.server.adminPort}`]) {
      const kept = await Promise.all([1, 2].map(() => rawSocket(address)));
      cleanups.push(() => {
        for (const socket of kept) socket.destroy();
      });
      await closed(await rawSocket(address));
      for (const socket of kept) expect(socket.destroyed).toBe(false);
    }
  });

  it("advertises the stream cap and the header list limit in its HTTP/2 SETTINGS", async () => {
    const { served } = await serve({ maxConcurrentStreams: 7, maxHeaderListBytes: 8_192 });
    const client = session(served.address);
    const settings = await new Promise<http2.Settings>((resolve) => client.once("remoteSettings", resolve));
    expect(settings).toMatchObject({ maxConcurrentStreams: 7, maxHeaderListSize: 8_192 });
  });

  it("refuses an HTTP/2 header list over the limit: the stream is reset unanswered", async () => {
    const { served } = await serve({ maxHeaderListBytes: 4_096 });
    const client = session(served.address);
    await new Promise((resolve) => client.once("remoteSettings", resolve));
    const stream = client.request({
      ":method": "POST",
      ":path": "/grpc.health.v1.Health/Check",
      "content-type": "application/json",
      "x-padding": "p".repeat(20_000),
    });
    let answered = false;
    stream.on("response", () => (answered = true));
    stream.on("error", () => {});
    stream.end("{}");
    await new Promise((resolve) => stream.on("close", resolve));
    expect(answered).toBe(false);
    expect(stream.rstCode).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
  });

  it("refuses an HTTP/1.1 header block over the limit with 431", async () => {
    const { served } = await serve({ maxHeaderListBytes: 4_096 });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = http.request(`http://${served.address}/grpc.health.v1.Health/Check`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-padding": "p".repeat(8_000) },
      });
      request.on("response", (response) => resolve(response.statusCode));
      request.on("error", reject);
      request.end("{}");
    });
    expect(status).toBe(431);
  });
});

describe("the drain", () => {
  it("closes idle HTTP/1.1 keep-alive connections and idle HTTP/2 sessions at once", async () => {
    const { served } = await serve({ headersTimeoutMs: NEVER_MS, idleTimeoutMs: NEVER_MS });
    const agent = new http.Agent({ keepAlive: true });
    cleanups.push(() => agent.destroy());
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const request = http.request(`http://${served.address}/grpc.health.v1.Health/Check`, {
        agent,
        method: "POST",
        headers: { "content-type": "application/json" },
      });
      request.on("response", (response) => {
        response.resume();
        response.on("end", () => resolve(request.socket!));
      });
      request.on("error", reject);
      request.end("{}");
    });
    const client = session(served.address);
    expect((await grpcCall(client, "/grpc.health.v1.Health/Check", (stream) => stream.end(check))).status).toBe(0);
    // The drain ends within the test's timeout only if it did not wait for its grace period.
    await served.server.close(NEVER_MS);
    expect(socket.destroyed).toBe(true);
    expect(client.closed || client.destroyed).toBe(true);
  });

  it("closes connections that have not sent a byte at once, long before the grace period", async () => {
    const { served } = await serve({ headersTimeoutMs: NEVER_MS, idleTimeoutMs: NEVER_MS });
    const silent = await rawSocket(served.address);
    // Neither the headers timeout nor the grace period can end within the test's timeout: only the drain closes it.
    const closing = served.server.close(NEVER_MS);
    await closed(silent);
    await closing;
  });
});

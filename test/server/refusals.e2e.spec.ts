/**
 * Refusals made by the protocol layer, before calq's own code sees the call,
 * are visible and correctly coded: a body that does not parse is
 * INVALID_ARGUMENT with a correlation id (never INTERNAL), over gRPC,
 * gRPC-Web and Connect; and each refusal (malformed, oversized, wrong
 * content type, cut by its client) gets one RPC log line and is counted in
 * calq_rpc_total with its code.
 */
import http from "node:http";
import http2 from "node:http2";
import { fromBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { ics } from "../support/feeds.js";
import { grpc } from "../support/grpc-client.js";
import { framesRead, grpcCall, grpcFrame } from "../support/raw-http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

const SEARCH = "/calq.v1.CalendarService/SearchEvents";
/** Not a protobuf message: field 31, wire type 7 (no such type). */
const GARBAGE = new Uint8Array([0xff, 0xff, 0xff, 0xff]);

let served: TestServer;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  served = await startTestServer({
    calendars: { work: ics() },
    config: { calendars: [{ id: "work", source: "work.ics", readers: ["an"] }], principals: [{ id: "an", tokens: ["token-an"] }] },
    log: (record) => lines.push(record),
    serve: { admin: { host: "127.0.0.1", port: 0 }, maxRequestBytes: 1024 },
  });
});

afterAll(() => served.close());

/** The RPC log lines with this correlation id, or of this code for SearchEvents. */
const rpcLines = (match: (line: Record<string, unknown>) => boolean) => lines.filter((line) => line.msg === "rpc" && match(line));

/** calq_rpc_total for SearchEvents with `code`. */
async function searchCount(code: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${served.server.adminPort}/metrics`)).text();
  const series = `calq_rpc_total{method="calq.v1.CalendarService/SearchEvents",code="${code}"} `;
  const line = text.split("\n").find((candidate) => candidate.startsWith(series));
  return line === undefined ? 0 : Number(line.slice(series.length));
}

/** An HTTP/1.1 POST of `body` to `path`; status, headers and body as text. */
function post(path: string, contentType: string, body: Uint8Array | string, headers: http.OutgoingHttpHeaders = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const request = http.request(`${served.baseUrl}${path}`, { method: "POST", headers: { "content-type": contentType, ...headers } });
    request.on("response", (response) => {
      let text = "";
      response.setEncoding("latin1");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("a body that does not parse", () => {
  it("is INVALID_ARGUMENT over gRPC, with a correlation id that names its one log line, and is counted", async () => {
    const before = await searchCount("INVALID_ARGUMENT");
    const session = http2.connect(`http://${served.address}`);
    session.on("error", () => {});
    try {
      const status = await grpcCall(session, SEARCH, (stream) => stream.end(grpcFrame(GARBAGE)), { authorization: "Bearer token-an" });
      expect(status.status).toBe(grpc.status.INVALID_ARGUMENT);
      const details = fromBinary(StatusSchema, Buffer.from(status.detailsBin!, "base64")).details;
      const info = fromBinary(ErrorInfoSchema, details[0].value);
      expect(info).toMatchObject({ reason: "MALFORMED_REQUEST", domain: "calq" });
      const correlationId = info.metadata.correlation_id;
      expect(status.message).toContain(correlationId);
      expect(rpcLines((line) => line.correlation_id === correlationId)).toEqual([
        expect.objectContaining({ method: "calq.v1.CalendarService/SearchEvents", code: "INVALID_ARGUMENT", level: "info" }),
      ]);
      expect(lines.filter((line) => line.level === "error")).toEqual([]);
      expect(await searchCount("INVALID_ARGUMENT")).toBe(before + 1);
    } finally {
      session.destroy();
    }
  });

  it("is INVALID_ARGUMENT over gRPC-Web, in the trailer frame", async () => {
    const response = await post(SEARCH, "application/grpc-web+proto", grpcFrame(GARBAGE), { authorization: "Bearer token-an" });
    expect(response.status).toBe(200);
    expect(response.body).toMatch(/grpc-status: ?3\b/);
    // grpc-message is percent-encoded.
    expect(response.body).toContain("correlation%20id");
  });

  it("is invalid_argument over Connect, binary or JSON, with a correlation id", async () => {
    for (const [contentType, body] of [
      ["application/proto", GARBAGE],
      ["application/json", "{not json"],
    ] as const) {
      const response = await post(SEARCH, contentType, body, { authorization: "Bearer token-an" });
      expect(response.status, contentType).toBe(400);
      const error = JSON.parse(response.body) as { code: string; message: string };
      expect(error.code).toBe("invalid_argument");
      expect(error.message).toMatch(/correlation id [0-9a-f-]{36}/);
    }
  });
});

describe("other refusals of the protocol layer", () => {
  it("logs and counts an oversized body RESOURCE_EXHAUSTED", async () => {
    const before = await searchCount("RESOURCE_EXHAUSTED");
    const response = await post(SEARCH, "application/json", JSON.stringify({ calendarId: "x".repeat(4096) }));
    expect(response.status).toBe(429);
    expect(await searchCount("RESOURCE_EXHAUSTED")).toBe(before + 1);
  });

  it("counts the bytes of a body sent without a length as they arrive, and refuses it once over the limit", async () => {
    const response = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${served.baseUrl}${SEARCH}`, { method: "POST", headers: { "content-type": "application/json" } });
      request.on("response", (answer) => {
        answer.resume();
        resolve(answer.statusCode!);
      });
      request.on("error", reject);
      // Chunked, no Content-Length: only counting can tell. The body never ends; the answer must come anyway.
      request.write(`{"calendarId":"${"x".repeat(600)}`);
      request.write("x".repeat(600));
    });
    expect(response).toBe(429);
  });

  it("logs and counts an unsupported content type as the request's fault, not the server's", async () => {
    const before = await searchCount("INVALID_ARGUMENT");
    const response = await post(SEARCH, "text/plain", "hello");
    expect(response.status).toBe(415);
    expect(await searchCount("INVALID_ARGUMENT")).toBe(before + 1);
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
  });

  it("logs a unary call its client cancels while sending the body as CANCELLED, at debug", async () => {
    const session = http2.connect(`http://${served.address}`);
    session.on("error", () => {});
    const seen = rpcLines((line) => line.code === "CANCELLED").length;
    const stream = session.request({ ":method": "POST", ":path": SEARCH, "content-type": "application/grpc", te: "trailers" });
    stream.on("error", () => {});
    stream.write(grpcFrame(new Uint8Array(0), 100).subarray(0, 5));
    // The server has the call and the start of its body before the client cancels.
    await framesRead(session);
    stream.close(http2.constants.NGHTTP2_CANCEL);
    await waitFor("the cancelled call's log line", () => rpcLines((line) => line.code === "CANCELLED").length === seen + 1);
    expect(rpcLines((line) => line.code === "CANCELLED").at(-1)).toMatchObject({
      level: "debug",
      method: "calq.v1.CalendarService/SearchEvents",
    });
    session.destroy();
  });
});

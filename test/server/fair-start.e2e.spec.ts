/**
 * Calls start one per turn of the event loop, connections taking turns
 * (src/server/fair-start.ts): a connection that opens its hundred streams at
 * once does not hold another connection's call behind all of them. Real
 * sockets: a bare HTTP/2 client bursts, a gRPC client (grpc-js) calls.
 */
import http2 from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it } from "vitest";
import { HealthCheckRequestSchema } from "../../gen/grpc/health/v1/health_pb.js";
import { ics } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { grpcFrame } from "../support/raw-http.js";
import { startTestServer } from "../support/test-server.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const BURST = 100;

describe("a burst of streams on one connection", () => {
  it("does not hold a call on another connection behind it", async () => {
    const lines: Record<string, unknown>[] = [];
    const served = await startTestServer({
      calendars: { work: ics() },
      config: {
        calendars: [{ id: "work", source: "work.ics", readers: ["reader"] }],
        principals: [{ id: "reader", tokens: ["reader-token"] }],
      },
      log: (record) => lines.push(record),
    });
    cleanups.push(() => served.close());
    const caller = new CalqGrpcClient(served.address, "reader-token");
    cleanups.push(() => caller.close());
    await caller.listCalendars(); // the caller's connection is up before the burst
    const burster = http2.connect(`http://${served.address}`);
    burster.on("error", () => {});
    cleanups.push(() => void burster.destroy());

    const frame = grpcFrame(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema)));
    let firstAnswered!: () => void;
    const first = new Promise<void>((resolve) => (firstAnswered = resolve));
    const burst = Array.from(
      { length: BURST },
      () =>
        new Promise<void>((resolve) => {
          const stream = burster.request({
            ":method": "POST",
            ":path": "/grpc.health.v1.Health/Check",
            "content-type": "application/grpc",
            te: "trailers",
          });
          stream.on("response", firstAnswered);
          stream.on("close", resolve);
          stream.resume();
          stream.end(frame);
        }),
    );
    // By the first answer, the server has read the whole burst; only now does the other connection call.
    await first;
    await Promise.all([caller.listCalendars(), ...burst]);

    const calls = lines.filter((line) => line.msg === "rpc").map((line) => String(line.method));
    const listed = calls.lastIndexOf("calq.v1.CalendarService/ListCalendars");
    const checksBefore = calls.slice(0, listed).filter((method) => method === "grpc.health.v1.Health/Check").length;
    expect(calls.filter((method) => method === "grpc.health.v1.Health/Check")).toHaveLength(BURST);
    // Served in arrival order, the call would follow all of the burst; taking turns, it follows a few of it.
    expect(checksBefore).toBeLessThan(BURST / 2);
  });
});

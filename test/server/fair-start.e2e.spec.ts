/**
 * Calls start a few per turn of the event loop, connections taking turns
 * (src/server/fair-start.ts): connections that open their hundred streams at
 * once do not hold another connection's call behind all of them, and a call
 * its client resets while it waits is logged and holds nothing. Real
 * sockets: bare HTTP/2 clients burst, a gRPC client (grpc-js) calls.
 */
import http2 from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it } from "vitest";
import { HealthCheckRequestSchema } from "../../gen/grpc/health/v1/health_pb.js";
import { STARTS_PER_TURN } from "../../src/server/fair-start.js";
import { feed, ics } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { grpcFrame } from "../support/raw-http.js";
import { startTestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A bare HTTP/2 connection to `address`, closed after the test. */
function connection(address: string): http2.ClientHttp2Session {
  const session = http2.connect(`http://${address}`);
  session.on("error", () => {});
  cleanups.push(() => void session.destroy());
  return session;
}

/** `count` health Checks sent at once on `on`, calling `answered` at each answer; each promise resolves when its stream closes. */
function checks(on: http2.ClientHttp2Session, count: number, answered: () => void): Promise<void>[] {
  const frame = grpcFrame(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema)));
  return Array.from(
    { length: count },
    () =>
      new Promise<void>((resolve) => {
        const stream = on.request({
          ":method": "POST",
          ":path": "/grpc.health.v1.Health/Check",
          "content-type": "application/grpc",
          te: "trailers",
        });
        stream.on("error", () => {});
        stream.on("response", answered);
        stream.on("close", resolve);
        stream.resume();
        stream.end(frame);
      }),
  );
}

/** Connections that burst, each with as many streams as a connection may open at once (100). */
const BURSTERS = 4;
const BURST = 100;

describe("bursts of streams", () => {
  it("do not hold a call on another connection behind them", async () => {
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
    const bursters = Array.from({ length: BURSTERS }, () => connection(served.address));
    await Promise.all(bursters.map((burster) => new Promise((resolve) => burster.once("connect", resolve))));

    let firstAnswered!: () => void;
    const first = new Promise<void>((resolve) => (firstAnswered = resolve));
    const burst = bursters.flatMap((burster) => checks(burster, BURST, firstAnswered));
    // By the first answer, the server has read the whole burst; only now does the other connection call.
    await first;
    await Promise.all([caller.listCalendars(), ...burst]);

    const calls = lines.filter((line) => line.msg === "rpc").map((line) => String(line.method));
    const listed = calls.lastIndexOf("calq.v1.CalendarService/ListCalendars");
    const checksBefore = calls.slice(0, listed).filter((method) => method === "grpc.health.v1.Health/Check").length;
    expect(calls.filter((method) => method === "grpc.health.v1.Health/Check")).toHaveLength(BURSTERS * BURST);
    // Served in arrival order, the call follows every stream read before it (200 here without
    // fair start); taking turns, it follows the few turns' starts (16 each) the first answer took
    // to come back (63 here), with room for a few more turns on a busy machine.
    expect(checksBefore).toBeLessThan(8 * STARTS_PER_TURN);
  });

  it("logs a call its client resets while it waits to start as CANCELLED, and it holds no feed-sized upload place", async () => {
    const lines: Record<string, unknown>[] = [];
    const calendar = (summary: string, padding = 0) =>
      feed(
        ["X-WR-TIMEZONE:UTC"],
        [
          "UID:one@calq.test",
          "DTSTART:20261002T020000Z",
          "DTEND:20261002T030000Z",
          `SUMMARY:${summary}`,
          `DESCRIPTION:${"x".repeat(padding)}`,
        ],
      );
    const served = await startTestServer({
      calendars: { work: calendar("standup") },
      config: {
        calendars: [{ id: "work", source: "work.ics", readers: [] }],
        principals: [{ id: "ops", tokens: ["token-ops"], capabilities: ["calendar.admin"] }],
      },
      log: (record) => lines.push(record),
      serve: { maxLargeBodies: 1 },
    });
    cleanups.push(() => served.close());
    const burster = connection(served.address);

    // A burst on one connection, then an upload behind it whose body is still coming.
    let firstAnswered!: () => void;
    const first = new Promise<void>((resolve) => (firstAnswered = resolve));
    checks(burster, 90, firstAnswered);
    const upload = burster.request({
      ":method": "POST",
      ":path": "/calq.v1.CalendarAdminService/ImportCalendar",
      "content-type": "application/grpc",
      te: "trailers",
      authorization: "Bearer token-ops",
    });
    upload.on("error", () => {});
    upload.write(grpcFrame(Buffer.alloc(1024, 0x41), 200 * 1024));
    // The server is serving the burst; the upload still waits for its turn when its client resets it.
    await first;
    upload.close(http2.constants.NGHTTP2_CANCEL);

    const logged = await waitFor("the upload's log line", () =>
      lines.find((line) => line.msg === "rpc" && line.method === "calq.v1.CalendarAdminService/ImportCalendar"),
    );
    expect(logged).toMatchObject({ code: "CANCELLED" });
    // The one feed-sized upload place is free: a real upload gets it.
    const admin = new CalqGrpcClient(served.address, "token-ops");
    cleanups.push(() => admin.close());
    await expect(admin.importCalendar({ calendarId: "work", ics: Buffer.from(calendar("big", 100 * 1024)) })).resolves.toBeDefined();
  });
});

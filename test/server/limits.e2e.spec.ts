/**
 * Limits a well-behaved gRPC server keeps: a client's deadline ends the call
 * on the server too, and calls beyond the concurrency bound are refused at
 * once with RESOURCE_EXHAUSTED (health stays answerable).
 */
import http2 from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { CalendarService } from "../../gen/calq/v1/calendar_service_pb.js";
import { Health, HealthCheckRequestSchema } from "../../gen/grpc/health/v1/health_pb.js";
import { concurrencyLimit } from "../../src/server/concurrency-limit.js";
import { ics } from "../support/feeds.js";
import { startTestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

describe("deadlines", () => {
  it("the server ends a call at the client's deadline (grpc-timeout) with DEADLINE_EXCEEDED, and logs it", async () => {
    const lines: Record<string, unknown>[] = [];
    const served = await startTestServer({
      calendars: { work: ics() },
      config: { calendars: [{ id: "work", source: "work.ics", readers: [] }], principals: [] },
      log: (record) => lines.push(record),
    });
    // A bare HTTP/2 client that states a deadline and never cancels: only the server can end this call.
    const session = http2.connect(`http://${served.address}`);
    try {
      const body = toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema));
      const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), Buffer.from(body)]);
      const stream = session.request({
        ":method": "POST",
        ":path": "/grpc.health.v1.Health/Watch",
        "content-type": "application/grpc",
        te: "trailers",
        "grpc-timeout": "300m",
      });
      stream.end(frame);
      stream.resume();
      // Watch never ends by itself while the server serves.
      const trailers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.on("trailers", resolve));
      expect(trailers["grpc-status"]).toBe(String(grpc.status.DEADLINE_EXCEEDED));
      const logged = await waitFor("the Watch's log line", () =>
        lines.find((line) => line.msg === "rpc" && line.method === "grpc.health.v1.Health/Watch"),
      );
      expect(logged).toMatchObject({ code: "DEADLINE_EXCEEDED" });
    } finally {
      session.close();
      await served.close();
    }
  });
});

describe("concurrency limit", () => {
  it("refuses calls beyond the bound with RESOURCE_EXHAUSTED, and serves again once calls finish", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transport = createRouterTransport(
      ({ service }) => {
        service(CalendarService, {
          async listCalendars() {
            await held;
            return {};
          },
        });
        service(Health, { check: () => ({}), async *watch() {} });
      },
      { router: { interceptors: [concurrencyLimit(2)] } },
    );
    const calendars = createClient(CalendarService, transport);
    const inFlight = [calendars.listCalendars({}), calendars.listCalendars({})];
    const refused = await calendars.listCalendars({}).then(
      () => undefined,
      (error: unknown) => ConnectError.from(error),
    );
    expect(refused?.code).toBe(Code.ResourceExhausted);
    expect(refused?.rawMessage).toContain("retry with backoff");
    await expect(createClient(Health, transport).check({})).resolves.toBeDefined();
    release();
    await Promise.all(inFlight);
    await expect(calendars.listCalendars({})).resolves.toBeDefined();
  });
});

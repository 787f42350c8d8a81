/**
 * The RPC log: one JSON line per call with method, code, duration, principal
 * and correlation id; the same correlation id in an INTERNAL error; nothing
 * of the request's contents or credentials.
 */
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import { pinoLogger } from "../../src/logging/logger.js";
import { observeCalls } from "../../src/server/call-observer.js";
import { rpcLog } from "../../src/server/rpc-log.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/** A pino logger whose lines are parsed back into records. */
function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const log = pinoLogger("debug", { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

describe("pino-backed logger", () => {
  it("writes one JSON line per record with a string level, an ISO time and the message", () => {
    const { log, lines } = capturedLog();
    log({ level: "warn", msg: "calendar load failed", calendar_id: "work" });
    expect(lines).toEqual([
      { level: "warn", time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), msg: "calendar load failed", calendar_id: "work" },
    ]);
  });

  it("redacts credential-looking keys even when a caller slips", () => {
    const { log, lines } = capturedLog();
    log({ level: "info", msg: "oops", authorization: "Bearer s3cret", nested: { token: "s3cret" } });
    expect(JSON.stringify(lines)).not.toContain("s3cret");
  });
});

describe("one log line per RPC", () => {
  const { log, lines } = capturedLog();
  let served: TestServer;
  let client: CalqGrpcClient;

  beforeAll(async () => {
    served = await startTestServer({
      calendars: {
        work: ics(...vevent("UID:secret-meeting", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", "SUMMARY:Acquisition talks")),
      },
      config: {
        calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
        principals: [
          { id: "an", primary: "work", tokens: ["token-an"] },
          { id: "auditor", tokens: ["token-auditor"], capabilities: ["calendar.read.any"] },
        ],
      },
      log,
    });
    client = new CalqGrpcClient(served.address, "token-an");
  });

  afterAll(async () => {
    client.close();
    await served.close();
  });

  const request = { calendarId: "primary", start: "2026-10-02", endExclusive: "2026-10-03", timezone: "UTC", matchMode: MatchMode.OVERLAP };
  const rpcLines = () => lines.filter((line) => line.msg === "rpc");

  it("logs method, code, duration, principal and a correlation id, and no contents or tokens", async () => {
    const before = rpcLines().length;
    const response = await client.searchEvents(request);
    expect(response.events).toHaveLength(1);
    await failureOf(client.searchEvents({ ...request, limit: 500 }));
    await failureOf(client.searchEvents(request, "wrong-token"));

    const [ok, refused, unauthenticated] = rpcLines().slice(before);
    expect(ok).toMatchObject({ level: "info", method: "calq.v1.CalendarService/SearchEvents", code: "OK", principal: "an" });
    expect(ok.duration_ms).toEqual(expect.any(Number));
    expect(ok.correlation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(refused).toMatchObject({ code: "INVALID_ARGUMENT", reason: "INVALID_LIMIT", principal: "an" });
    expect(unauthenticated).toMatchObject({ code: "UNAUTHENTICATED", reason: "UNAUTHENTICATED" });
    expect(unauthenticated.principal).toBeUndefined();
    expect(new Set([ok, refused, unauthenticated].map((line) => line.correlation_id)).size).toBe(3);

    const text = JSON.stringify(lines);
    for (const secret of ["Acquisition", "secret-meeting", "token-an", "wrong-token"]) expect(text).not.toContain(secret);
  });

  it("gives a calendar.read.any audit line the correlation id of its RPC line", async () => {
    await client.searchEvents({ ...request, calendarId: "work" }, "token-auditor");
    const rpc = rpcLines().at(-1)!;
    expect(rpc).toMatchObject({ principal: "auditor", code: "OK" });
    expect(lines.filter((line) => line.kind === "audit").at(-1)).toMatchObject({
      capability: "calendar.read.any",
      principal: "auditor",
      calendar_id: "work",
      correlation_id: rpc.correlation_id,
    });
  });
});

describe("INTERNAL errors", () => {
  it("carry the correlation id of the call's log line, and the fault only goes to the log", async () => {
    const { log, lines } = capturedLog();
    const transport = createRouterTransport(
      ({ service }) =>
        service(Health, {
          check() {
            throw new Error("EIO reading /srv/feeds/private.ics");
          },
          async *watch() {},
        }),
      { router: { interceptors: [observeCalls(log, [rpcLog(log, new Set())])] } },
    );
    const error = await createClient(Health, transport)
      .check({})
      .then(
        () => undefined,
        (caught: unknown) => ConnectError.from(caught),
      );
    expect(error?.code).toBe(Code.Internal);
    expect(error?.rawMessage).not.toContain("/srv");
    const rpc = lines.find((line) => line.msg === "rpc")!;
    expect(rpc).toMatchObject({ level: "error", code: "INTERNAL" });
    expect(error?.rawMessage).toBe(`internal error; correlation id ${rpc.correlation_id}`);
    expect(lines.find((line) => line.msg === "internal error")).toMatchObject({ correlation_id: rpc.correlation_id });
  });

  it("audits every call to an audited service", async () => {
    const { log, lines } = capturedLog();
    const transport = createRouterTransport(({ service }) => service(Health, { check: () => ({}), async *watch() {} }), {
      router: { interceptors: [observeCalls(log, [rpcLog(log, new Set(["grpc.health.v1.Health"]))])] },
    });
    await createClient(Health, transport).check({});
    expect(lines.filter((line) => line.kind === "audit")).toEqual([
      expect.objectContaining({ msg: "admin call", method: "grpc.health.v1.Health/Check", code: "OK" }),
    ]);
  });
});

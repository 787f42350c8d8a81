/**
 * Body limits decided before the body is read: the import-sized limit only
 * for a caller whose credentials are verified and hold calendar.admin, the
 * small limit for everyone else, alike over gRPC, gRPC-Web and Connect; and a
 * cap on import-sized bodies in flight. The hostile case runs against a real
 * `calq serve` process so its RSS can be read (that bound is loose for CI);
 * how fast the refusals come is measured by bench/hostile.ts, not here.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/config/secret.js";
import { killed, startCalqServe } from "../support/calq-process.js";
import { feed } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, grpc } from "../support/grpc-client.js";
import { grpcCall } from "../support/raw-http.js";
import { startTestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

const IMPORT = "/calq.v1.CalendarAdminService/ImportCalendar";
const SIXTY_MB = 60 * 1024 * 1024;

const calendarText = (summary: string, padding = 0) =>
  feed(
    ["X-WR-TIMEZONE:UTC"],
    ["UID:one@calq.test", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", `SUMMARY:${summary}`, `DESCRIPTION:${"x".repeat(padding)}`],
  );

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The resident set of process `pid`, in MiB, from /proc. */
function rssMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];
  return Number(kib) / 1024;
}

/**
 * Starts an ImportCalendar over raw HTTP/2 whose envelope announces 60 MB,
 * and writes 1 MiB chunks while the server lets it (HTTP/2 flow control: a
 * server that does not read the body does not open its window), as a hostile
 * client would; resolves with the gRPC status and how many bytes the client
 * got to send before it.
 */
function hostileImport(session: http2.ClientHttp2Session, authorization: string) {
  const chunk = Buffer.alloc(1024 * 1024, 0x41);
  let sent = 0;
  return grpcCall(
    session,
    IMPORT,
    (stream) => {
      const header = Buffer.alloc(5);
      header.writeUInt32BE(SIXTY_MB, 1);
      stream.write(header);
      const pump = () => {
        while (sent < SIXTY_MB && !stream.destroyed) {
          sent += chunk.length;
          if (!stream.write(chunk)) return void stream.once("drain", pump);
        }
        if (!stream.destroyed) stream.end();
      };
      pump();
    },
    { authorization },
  ).then((status) => ({ ...status, sent }));
}

describe("a made-up token with a feed-sized body, against calq serve", () => {
  let dir: string;
  let child: ChildProcess;
  let address: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "calq-bodies-"));
    writeFileSync(join(dir, "work.ics"), calendarText("standup"));
    writeFileSync(
      join(dir, "calq.yaml"),
      [
        "feeds: {max_bytes: 70000000}",
        "calendars:",
        "  - {id: work, source: work.ics, readers: [an]}",
        "principals:",
        `  - {id: ops, tokens: ["sha256:${sha256Hex("token-ops")}"], capabilities: [calendar.admin]}`,
        `  - {id: an, primary: work, tokens: ["sha256:${sha256Hex("token-an")}"]}`,
      ].join("\n"),
    );
    ({ child, address } = await startCalqServe(["--data", dir, "--port", "0"]));
  });

  afterAll(async () => {
    await killed(child);
    rmSync(dir, { recursive: true, force: true });
  });

  it("is refused RESOURCE_EXHAUSTED before the body is read, 8 at once, without the server's RSS growing by their size", async () => {
    const idle = rssMiB(child.pid!);
    const session = http2.connect(`http://${address}`);
    session.on("error", () => {});
    cleanups.push(() => void session.destroy());
    const refusals = await Promise.all(Array.from({ length: 8 }, () => hostileImport(session, "Bearer made-up-token")));
    for (const refusal of refusals) {
      expect(refusal.status).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(refusal.message).toContain("calendar.admin");
      // Refused before the body was read: flow control never let the client hand over more than a chunk or so of 60 MB.
      expect(refusal.sent).toBeLessThanOrEqual(8 * 1024 * 1024);
    }
    // 8 × 60 MB read would be ~480 MB; a refusal before reading keeps the server near idle.
    expect(rssMiB(child.pid!) - idle).toBeLessThan(150);
  });

  it("is refused alike over gRPC-Web and Connect, from the declared length, before the body arrives", async () => {
    const port = Number(address.split(":")[1]);
    const post = (contentType: string) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const request = http.request({
          host: "127.0.0.1",
          port,
          path: IMPORT,
          method: "POST",
          headers: { "content-type": contentType, "content-length": SIXTY_MB, authorization: "Bearer made-up-token" },
        });
        request.on("response", (response) => {
          let body = "";
          response.setEncoding("latin1");
          response.on("data", (chunk: string) => (body += chunk));
          response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
        });
        request.on("error", reject);
        // Only the first bytes are ever sent: the answer must come without the rest.
        request.write(Buffer.alloc(1024, 0x41));
      });
    const connect = await post("application/json");
    expect(connect.status).toBe(429);
    expect(JSON.parse(connect.body)).toMatchObject({ code: "resource_exhausted" });
    const grpcWeb = await post("application/grpc-web+proto");
    const status = grpcWeb.headers["grpc-status"] ?? /grpc-status: ?(\d+)/.exec(grpcWeb.body)?.[1];
    expect(status).toBe(String(grpc.status.RESOURCE_EXHAUSTED));
  });
});

describe("the import-sized limit", () => {
  it("is given only to a verified calendar.admin holder: not to a reader, not to a made-up token", async () => {
    const served = await startTestServer({
      calendars: { work: calendarText("standup") },
      config: {
        calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
        principals: [
          { id: "an", primary: "work", tokens: ["token-an"] },
          { id: "ops", tokens: ["token-ops"], capabilities: ["calendar.admin"] },
        ],
      },
    });
    cleanups.push(() => served.close());
    const client = new CalqGrpcClient(served.address, "token-ops");
    cleanups.push(() => client.close());
    const big = { calendarId: "work", ics: Buffer.from(calendarText("big", 100 * 1024)) };
    for (const token of ["made-up", "token-an"]) {
      const failure = await failureOf(client.importCalendar(big, token));
      expect(failure.code, token).toBe(grpc.status.RESOURCE_EXHAUSTED);
    }
    await expect(client.importCalendar(big)).resolves.toBeDefined();
  });

  it("is held by at most max_large_bodies calls at once; past that, admins too are told to retry", async () => {
    const served = await startTestServer({
      calendars: { work: calendarText("standup") },
      config: {
        calendars: [{ id: "work", source: "work.ics", readers: [] }],
        principals: [{ id: "ops", tokens: ["token-ops"], capabilities: ["calendar.admin"] }],
      },
      serve: { maxLargeBodies: 1 },
    });
    cleanups.push(() => served.close());
    // One admin upload that is slow to arrive holds the only place.
    const session = http2.connect(`http://${served.address}`);
    session.on("error", () => {});
    cleanups.push(() => void session.destroy());
    const slow = session.request({
      ":method": "POST",
      ":path": IMPORT,
      "content-type": "application/grpc",
      te: "trailers",
      authorization: "Bearer token-ops",
    });
    slow.on("error", () => {});
    const header = Buffer.alloc(5);
    header.writeUInt32BE(200 * 1024, 1);
    slow.write(Buffer.concat([header, Buffer.alloc(1024, 0x41)]));

    const client = new CalqGrpcClient(served.address, "token-ops");
    cleanups.push(() => client.close());
    const big = { calendarId: "work", ics: Buffer.from(calendarText("big", 100 * 1024)) };
    // Until the server has read the slow upload's length it holds no place, and an import may pass.
    const busy = await waitFor("the slow upload to hold the only place", () =>
      client.importCalendar(big).then(
        () => undefined,
        (error: grpc.ServiceError) => failureOf(Promise.reject(error)),
      ),
    );
    expect(busy.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(busy.message).toContain("retry with backoff");
    // A small admin call still passes meanwhile.
    await expect(client.getCalendarStatus()).resolves.toBeDefined();

    slow.close(http2.constants.NGHTTP2_CANCEL);
    // Once the server has seen the cancel, the place is free again.
    await waitFor("an import in the place the cancelled upload left", () =>
      client.importCalendar(big).then(
        () => true,
        () => false,
      ),
    );
  });
});

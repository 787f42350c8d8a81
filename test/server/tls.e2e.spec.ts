/**
 * TLS and mTLS handshakes over a real port, with certificates made in the
 * test: gRPC (ALPN h2) and Connect (ALPN http/1.1) over TLS; with a client
 * CA, clients without a certificate from it are refused at the handshake,
 * and the certificate's subject CN names the principal.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { promisify } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CalendarService,
  GetCallerContextRequestSchema,
  type GetCallerContextResponse,
  GetCallerContextResponseSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { HealthCheckRequestSchema } from "../../gen/grpc/health/v1/health_pb.js";
import { DEFAULT_SERVE_SETTINGS, type TlsSettings } from "../../src/config/server-config.js";
import { certificateAuthority, leafCertificate, type Pem } from "../support/certificates.js";
import { ics, vevent } from "../support/feeds.js";
import { closed, grpcFrame, rawSocket } from "../support/raw-http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

let dir: string;
let ca: Pem;
let client: Pem;
let stranger: Pem;
let tlsSettings: TlsSettings;

beforeAll(async () => {
  ca = await certificateAuthority("calq test CA");
  const server = await leafCertificate(ca, "calq.test", "server");
  client = await leafCertificate(ca, "an", "client");
  stranger = await leafCertificate(await certificateAuthority("someone else's CA"), "an", "client");
  dir = mkdtempSync(join(tmpdir(), "calq-tls-"));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  tlsSettings = { certFile: write("server.crt", server.cert), keyFile: write("server.key", server.key), principalFromCertificate: false };
  write("ca.crt", ca.cert);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(tls: TlsSettings): Promise<TestServer> {
  return startTestServer({
    calendars: { work: ics(...vevent("UID:a", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", "SUMMARY:A")) },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [{ id: "an", primary: "work", tokens: ["token-an"] }],
    },
    serve: { tls },
  });
}

/** GetCallerContext over gRPC with the given channel credentials and optional bearer token. */
function whoAmI(address: string, credentials: grpc.ChannelCredentials, token?: string): Promise<GetCallerContextResponse> {
  const channel = new grpc.Client(address, credentials);
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set("authorization", `Bearer ${token}`);
  return new Promise<GetCallerContextResponse>((resolve, reject) =>
    channel.makeUnaryRequest(
      "/calq.v1.CalendarService/GetCallerContext",
      () => Buffer.from(toBinary(GetCallerContextRequestSchema, create(GetCallerContextRequestSchema))),
      (bytes: Buffer) => fromBinary(GetCallerContextResponseSchema, bytes),
      {},
      metadata,
      { deadline: Date.now() + 15_000 },
      (error, response) => (error ? reject(error) : resolve(response!)),
    ),
  ).finally(() => channel.close());
}

const trusting = (pem?: Pem) =>
  grpc.credentials.createSsl(
    Buffer.from(ca.cert),
    pem === undefined ? null : Buffer.from(pem.key),
    pem === undefined ? null : Buffer.from(pem.cert),
  );

describe("TLS", () => {
  let served: TestServer;
  beforeAll(async () => {
    served = await serve(tlsSettings);
  });
  afterAll(() => served.close());

  it("serves gRPC over TLS (ALPN h2) to a client that trusts the CA", async () => {
    expect((await whoAmI(served.address, trusting(), "token-an")).principalId).toBe("an");
  });

  it("serves Connect over TLS on HTTP/1.1 (ALPN http/1.1) on the same port", async () => {
    const transport = createConnectTransport({ baseUrl: `https://${served.address}`, httpVersion: "1.1", nodeOptions: { ca: ca.cert } });
    const response = await createClient(CalendarService, transport).getCallerContext({}, { headers: { authorization: "Bearer token-an" } });
    expect(response.principalId).toBe("an");
  });

  it("does not speak cleartext on a TLS port", async () => {
    await expect(whoAmI(served.address, grpc.credentials.createInsecure(), "token-an")).rejects.toMatchObject({
      code: grpc.status.UNAVAILABLE,
    });
  });

  it("is reachable by calq search --tls-ca", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(import.meta.dirname, "../../bin/calq.mjs"),
      "search",
      ...["--address", served.address, "--token", "token-an", "--tls-ca", join(dir, "ca.crt")],
      ...["--calendar", "primary", "--start", "2026-10-02", "--end-exclusive", "2026-10-03", "--timezone", "UTC", "--mode", "overlap"],
    ]);
    expect(stdout).toMatch(/2026-10-02 02:00 \+00:00\s+2026-10-02 03:00 \+00:00\s+inside\s+A/);
  });

  it("serves HTTP/2 and HTTP/1.1 to TLS clients that offer no ALPN, sorted by their first bytes", async () => {
    const [host, port] = [served.address.split(":")[0], Number(served.address.split(":")[1])];
    const session = http2.connect(`https://${served.address}`, {
      createConnection: () => tls.connect({ host, port, ca: ca.cert, servername: "calq.test" }),
    });
    session.on("error", () => {});
    try {
      const check = grpcFrame(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema)));
      const stream = session.request({
        ":method": "POST",
        ":path": "/grpc.health.v1.Health/Check",
        "content-type": "application/grpc",
        te: "trailers",
      });
      stream.resume();
      stream.end(check);
      const trailers = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        stream.on("trailers", resolve);
        stream.on("error", reject);
      });
      expect(trailers["grpc-status"]).toBe("0");
    } finally {
      session.destroy();
    }
    const http1 = await new Promise<number>((resolve, reject) => {
      const request = https.request(
        {
          host,
          port,
          path: "/grpc.health.v1.Health/Check",
          method: "POST",
          ca: ca.cert,
          servername: "calq.test",
          headers: { "content-type": "application/json" },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on("error", reject);
      request.end("{}");
    });
    expect(http1).toBe(200);
  });

  it("still needs credentials: TLS alone names no one", async () => {
    await expect(whoAmI(served.address, trusting())).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });
});

describe("certificate rotation", () => {
  it("serves new connections with a certificate rewritten on disk, without a restart, and keeps the old one while the new is incomplete", async () => {
    const rotating = mkdtempSync(join(tmpdir(), "calq-tls-rotate-"));
    const certFile = join(rotating, "server.crt");
    const keyFile = join(rotating, "server.key");
    const first = await leafCertificate(ca, "calq.test", "server");
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const logs: Record<string, unknown>[] = [];
    const rotated = await startTestServer({
      calendars: { work: ics(...vevent("UID:a", "DTSTART:20261002T020000Z", "SUMMARY:A")) },
      config: { calendars: [{ id: "work", source: "work.ics", readers: ["an"] }], principals: [{ id: "an", tokens: ["token-an"] }] },
      serve: { tls: { certFile, keyFile, principalFromCertificate: false } },
      log: (record) => logs.push(record),
    });
    try {
      expect((await whoAmI(rotated.address, trusting(), "token-an")).principalId).toBe("an");

      // Half a rotation (a new certificate, the old key) is refused, and the old pair stays in use.
      const otherCa = await certificateAuthority("the next CA");
      const next = await leafCertificate(otherCa, "calq.test", "server");
      writeFileSync(certFile, next.cert);
      await until(() => logs.some((record) => record.msg === "tls certificate not reloaded; the one in use stays"));
      expect((await whoAmI(rotated.address, trusting(), "token-an")).principalId).toBe("an");

      // The whole new pair: new connections get it.
      writeFileSync(keyFile, next.key);
      const trustingNext = grpc.credentials.createSsl(Buffer.from(otherCa.cert));
      await until(() => logs.some((record) => record.msg === "tls certificate reloaded"));
      expect((await whoAmI(rotated.address, trustingNext, "token-an")).principalId).toBe("an");
      await expect(whoAmI(rotated.address, trusting(), "token-an")).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    } finally {
      await rotated.close();
      rmSync(rotating, { recursive: true, force: true });
    }
  });
});

/** Waits for a log line (the certificate files are checked once a second). */
async function until(check: () => boolean): Promise<void> {
  await waitFor("the certificate watch's log line", check, { pauseMs: 100 });
}

describe("mTLS", () => {
  let served: TestServer;
  beforeAll(async () => {
    served = await serve({ ...tlsSettings, clientCaFile: join(dir, "ca.crt"), principalFromCertificate: true });
  });
  afterAll(() => served.close());

  it("takes the principal from the client certificate's subject CN", async () => {
    const caller = await whoAmI(served.address, trusting(client));
    expect(caller.principalId).toBe("an");
    expect(caller.primaryCalendarId).toBe("work");
  });

  it("lets a bearer token speak for the caller over an mTLS connection", async () => {
    expect((await whoAmI(served.address, trusting(client), "token-an")).principalId).toBe("an");
  });

  it("refuses the handshake without a client certificate", async () => {
    await expect(whoAmI(served.address, trusting(), "token-an")).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
  });

  it("refuses the handshake with a certificate from another CA", async () => {
    await expect(whoAmI(served.address, trusting(stranger))).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
  });
});

describe("silent TLS connections", () => {
  let served: TestServer;
  beforeAll(async () => {
    served = await startTestServer({
      calendars: { work: ics() },
      config: { calendars: [{ id: "work", source: "work.ics", readers: [] }], principals: [] },
      serve: { tls: tlsSettings, connections: { ...DEFAULT_SERVE_SETTINGS.connections, headersTimeoutMs: 300 } },
    });
  });
  afterAll(() => served.close());

  it("closes a connection that never starts its handshake, at the headers timeout", async () => {
    const socket = await rawSocket(served.address);
    await closed(socket);
  });

  it("closes a connection that chose HTTP/1.1 by ALPN and then sends nothing", async () => {
    const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const opened = tls.connect({ host: "127.0.0.1", port: served.server.port, ca: ca.cert, ALPNProtocols: ["http/1.1"] }, () =>
        resolve(opened),
      );
      opened.on("error", reject);
    });
    socket.on("error", () => {});
    socket.resume();
    expect(socket.alpnProtocol).toBe("http/1.1");
    await closed(socket);
  });
});

describe("the connection caps over TLS", () => {
  it("count a connection from its TCP accept, before any handshake", async () => {
    const served = await startTestServer({
      calendars: { work: ics() },
      config: { calendars: [{ id: "work", source: "work.ics", readers: [] }], principals: [] },
      // No headers timeout within the test: only the cap can close a connection that never starts its handshake.
      serve: {
        tls: tlsSettings,
        connections: {
          ...DEFAULT_SERVE_SETTINGS.connections,
          maxConnectionsPerAddress: 2,
          headersTimeoutMs: 600_000,
          idleTimeoutMs: 600_000,
        },
      },
    });
    const held = [await rawSocket(served.address), await rawSocket(served.address)];
    try {
      await closed(await rawSocket(served.address));
      for (const socket of held) expect(socket.destroyed).toBe(false);
    } finally {
      for (const socket of held) socket.destroy();
      await served.close();
    }
  });
});

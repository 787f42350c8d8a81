/**
 * SIGTERM to a real `calq serve` process: health turns NOT_SERVING, calls
 * in flight complete (a reflection stream the client is slow to finish, and
 * a unary SearchEvents), new connections during the grace period are still
 * accepted so a probe's Check reads NOT_SERVING while other new calls are
 * refused UNAVAILABLE, and the process exits 0; a call that outlives the
 * grace period is cut so the process still exits. A SIGTERM while the first
 * load is still reading a slow feed drains and exits 0 too, and the port is
 * printed before that load ends.
 *
 * The slow unary call is slow for a real reason, with no test hook in calq:
 * its JWT is checked against a JWKS file that is a named pipe, and the read
 * of that file (calq re-reads the JWKS when it changes) waits until the test
 * writes the keys, as a key file on a slow or hung network mount would.
 * Nothing else in a SearchEvents call waits: the search itself is
 * synchronous, so CPU-heavy expansions would finish before the signal is
 * even handled.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import {
  HealthCheckRequestSchema,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.js";
import {
  type ServerReflectionRequest,
  ServerReflectionRequestSchema,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from "../../gen/grpc/reflection/v1/reflection_pb.js";
import { startFeedServer } from "../support/feed-server.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { waitFor } from "../support/wait-for.js";

const CALQ = join(import.meta.dirname, "../../bin/calq.mjs");
const running: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh folder for a calq.yaml; removed after the test. */
function dataFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "calq-shutdown-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Served {
  readonly child: ChildProcess;
  readonly address: string;
  /** Resolves when stderr has shown a line containing `text`. */
  logged(text: string): Promise<void>;
  readonly exited: Promise<number | null>;
}

/** Starts `calq serve` and resolves once it is `ready`: its port printed, or (the default) its first load done. */
async function serve(graceSeconds: number, data = "data", ready: "listening" | "serving" = "serving"): Promise<Served> {
  // Each process its own embedded registry: one process holds a registry folder at a time.
  const registry = mkdtempSync(join(tmpdir(), "calq-registry-"));
  const child = spawn(process.execPath, [CALQ, "serve", "--data", data, "--port", "0", "--shutdown-grace-seconds", String(graceSeconds)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CALQ_REGISTRY_FOLDER: registry },
  });
  child.once("exit", () => rmSync(registry, { recursive: true, force: true }));
  running.push(child);
  let err = "";
  const watchers: (() => void)[] = [];
  child.stderr!.on("data", (chunk) => {
    err += chunk;
    for (const watcher of watchers) watcher();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const address = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = /listening on (\S+):(\d+)/.exec(out);
      if (match && (ready === "listening" || /^serving /m.test(out))) resolve(`${match[1]}:${match[2]}`);
    });
    void exited.then((code) => reject(new Error(`calq exited ${code}: ${err}`)));
  });
  const logged = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => err.includes(text) && resolve();
      watchers.push(check);
      check();
    });
  return { child, address, logged, exited };
}

/** A reflection stream: ask a question, await its answer, end when told. */
function reflectionStream(client: grpc.Client) {
  const call = client.makeBidiStreamRequest(
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    (message: ServerReflectionRequest) => Buffer.from(toBinary(ServerReflectionRequestSchema, message)),
    (bytes: Buffer) => fromBinary(ServerReflectionResponseSchema, bytes),
  );
  const answers: ServerReflectionResponse[] = [];
  let waiting: (() => void) | undefined;
  call.on("data", (answer: ServerReflectionResponse) => {
    answers.push(answer);
    waiting?.();
  });
  call.on("error", () => {});
  const status = new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve));
  return {
    status,
    ask(question: ServerReflectionRequest["messageRequest"]): Promise<ServerReflectionResponse> {
      const count = answers.length;
      return new Promise((resolve) => {
        waiting = () => answers.length > count && resolve(answers[count]);
        call.write(create(ServerReflectionRequestSchema, { messageRequest: question }));
      });
    },
    end: () => call.end(),
  };
}

function check(client: grpc.Client): Promise<ServingStatus> {
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      () => Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema))),
      (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes),
      {},
      (error, response) => (error ? reject(error) : resolve(response!.status)),
    ),
  );
}

function watchHealth(client: grpc.Client) {
  const seen: ServingStatus[] = [];
  const call = client.makeServerStreamRequest(
    "/grpc.health.v1.Health/Watch",
    () => Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema))),
    (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes),
    {},
  );
  call.on("data", (response: HealthCheckResponse) => seen.push(response.status));
  call.on("error", () => {});
  return { seen, status: new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve)) };
}

/** The reflection stream begun before the drain gets one more answer and ends OK; then the process exits 0. */
async function finishesThenExits(stream: ReturnType<typeof reflectionStream>, served: { exited: Promise<number | null> }): Promise<void> {
  const described = await stream.ask({ case: "fileContainingSymbol", value: "calq.v1.CalendarService" });
  expect(described.messageResponse.case).toBe("fileDescriptorResponse");
  stream.end();
  expect((await stream.status).code).toBe(grpc.status.OK);
  expect(await served.exited).toBe(0);
}

describe("SIGTERM", () => {
  it("closes idle and unsniffed connections at once: a silent socket and an idle client do not hold the exit for the grace period", async () => {
    // A grace period far past the test's timeout: the process exits in time only if nothing waits for it.
    const served = await serve(600);
    const [host, port] = served.address.split(":");
    const silent = await new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(port), host, () => resolve(socket));
      socket.on("error", reject);
    });
    silent.on("error", () => {});
    silent.resume();
    const client = new grpc.Client(served.address, grpc.credentials.createInsecure());
    try {
      expect(await check(client)).toBe(ServingStatus.SERVING);
      served.child.kill("SIGTERM");
      expect(await served.exited).toBe(0);
    } finally {
      client.close();
      silent.destroy();
    }
  });

  it("drains: health goes NOT_SERVING, the call in flight finishes, the process exits 0 (a second signal meanwhile changes nothing)", async () => {
    const served = await serve(10);
    const client = new grpc.Client(served.address, grpc.credentials.createInsecure());
    try {
      const health = watchHealth(client);
      const stream = reflectionStream(client);
      const listed = await stream.ask({ case: "listServices", value: "" });
      expect(listed.messageResponse.case).toBe("listServicesResponse");
      // Watch's first answer travels on its own stream: under load it can arrive after the reflection answer.
      await waitFor("the Watch's first answer", () => health.seen.length === 1);

      served.child.kill("SIGTERM");
      await served.logged('"msg":"draining"');
      // Ctrl-C after a SIGTERM, as an impatient operator sends it.
      served.child.kill("SIGINT");
      expect((await health.status).code).toBe(grpc.status.OK);
      expect(health.seen).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING]);

      // The client is slow: its second question comes after the server began draining.
      await finishesThenExits(stream, served);
    } finally {
      client.close();
    }
  });

  it("keeps accepting connections while draining: a new probe's Check reads NOT_SERVING, other new calls get UNAVAILABLE", async () => {
    const served = await serve(10);
    const client = new grpc.Client(served.address, grpc.credentials.createInsecure());
    try {
      const stream = reflectionStream(client);
      await stream.ask({ case: "listServices", value: "" });
      served.child.kill("SIGTERM");
      await served.logged('"msg":"draining"');

      // A load balancer's probe opens its own connection after the drain began.
      const probe = new grpc.Client(served.address, grpc.credentials.createInsecure());
      try {
        expect(await check(probe)).toBe(ServingStatus.NOT_SERVING);
      } finally {
        probe.close();
      }
      const caller = new CalqGrpcClient(served.address, "demo-an-token");
      try {
        const refused = await failureOf(
          caller.searchEvents({
            calendarId: "primary",
            start: "2026-10-02",
            endExclusive: "2026-10-03",
            timezone: "UTC",
            matchMode: MatchMode.OVERLAP,
          }),
        );
        expect(refused.code).toBe(grpc.status.UNAVAILABLE);
      } finally {
        caller.close();
      }

      // The call that began before the drain is still served to its end.
      await finishesThenExits(stream, served);
    } finally {
      client.close();
    }
  });

  it("lets a unary SearchEvents in flight when SIGTERM arrives finish OK", async () => {
    const data = dataFolder();
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" }] });
    const pipe = join(data, "jwks.json");
    execFileSync("mkfifo", [pipe]);
    // Should calq never open the pipe, a reader that does not wait releases the test's pending open.
    cleanups.push(async () => (await open(pipe, constants.O_RDONLY | constants.O_NONBLOCK)).close());
    writeFileSync(join(data, "work.ics"), ics(...vevent("UID:a", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", "SUMMARY:Review")));
    writeFileSync(
      join(data, "calq.yaml"),
      JSON.stringify({
        calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
        principals: [{ id: "an", primary: "work", tokens: [] }],
        auth: { jwt: { issuer: "https://id.calq.test", audience: "calq", jwks_file: "jwks.json" } },
      }),
    );
    const now = Math.floor(Date.now() / 1000);
    const bearer = await new SignJWT({ scope: "calendar.read" })
      .setSubject("an")
      .setIssuer("https://id.calq.test")
      .setAudience("calq")
      .setExpirationTime(now + 300)
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .sign(privateKey);

    const served = await serve(10, data);
    await served.logged('"msg":"calendar loaded"');
    const client = new CalqGrpcClient(served.address, bearer);
    try {
      const call = client.searchEvents({
        calendarId: "primary",
        start: "2026-10-02",
        endExclusive: "2026-10-03",
        timezone: "UTC",
        matchMode: MatchMode.OVERLAP,
      });
      // Opening the pipe for writing returns once calq has opened it to read the keys: the call is in flight.
      const keys = await open(pipe, "w");
      served.child.kill("SIGTERM");
      await served.logged('"msg":"draining"');
      await keys.writeFile(jwks);
      await keys.close();
      const response = await call;
      expect(response.events.map((event) => event.summary)).toEqual(["Review"]);
      expect(await served.exited).toBe(0);
    } finally {
      client.close();
    }
  });

  it("prints the port before the first load ends, is NOT_SERVING during it, and drains on SIGTERM then", async () => {
    let held!: (response: ServerResponse) => void;
    const answer = new Promise<ServerResponse>((resolve) => (held = resolve));
    const provider = await startFeedServer((_request, response) => held(response));
    cleanups.push(() => provider.close());
    const data = dataFolder();
    writeFileSync(
      join(data, "calq.yaml"),
      JSON.stringify({ calendars: [{ id: "work", source: provider.url, readers: [] }], principals: [] }),
    );

    const served = await serve(10, data, "listening");
    // calq has asked for the feed and is waiting: the load is not over, yet the port is known.
    await answer;
    const client = new grpc.Client(served.address, grpc.credentials.createInsecure());
    try {
      expect(await check(client)).toBe(ServingStatus.NOT_SERVING);
      const health = watchHealth(client);
      await waitFor("the Watch's first answer", () => health.seen.length > 0);
      served.child.kill("SIGTERM");
      expect(await served.exited).toBe(0);
      expect((await health.status).code).toBe(grpc.status.OK);
      expect(health.seen).toEqual([ServingStatus.NOT_SERVING]);
    } finally {
      client.close();
    }
  });

  it("cuts a call that outlives the grace period, and still exits 0", async () => {
    const served = await serve(0.5);
    const client = new grpc.Client(served.address, grpc.credentials.createInsecure());
    try {
      const stream = reflectionStream(client);
      await stream.ask({ case: "listServices", value: "" });
      served.child.kill("SIGTERM");
      expect(await served.exited).toBe(0);
      expect((await stream.status).code).not.toBe(grpc.status.OK);
    } finally {
      client.close();
    }
  });
});

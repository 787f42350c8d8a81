/**
 * Radicale (Debian's radicale package) as the real CalDAV server of the
 * CalDAV tests: started on a free loopback port (it binds port 0 and says
 * which port it got) with a temporary storage folder, a plain htpasswd file
 * for Basic auth and a config file written here, and stopped and removed
 * after. A counting proxy in front of it records each request and what the
 * answer carried, so a test can say how many resources a poll transferred
 * without trusting the reader's own count.
 *
 * Without radicale the tests that need it are skipped, unless
 * CALQ_SYSTEM_TESTS=required (CI sets it), when they fail and say how to
 * install it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { findProgram, systemGate } from "./system-program.js";

/** Why the CalDAV system tests cannot run here, and how to fix it. */
export const RADICALE_MISSING =
  "radicale is not installed: apt-get install -y radicale (CI's .ci/run installs it); without CALQ_SYSTEM_TESTS=required the tests that need it are skipped";

/**
 * Whether the radicale tests are skipped (and named in the run's last line):
 * system-program.ts decides, as for every program of the system. When it is
 * required and missing, the tests run and `startRadicale` fails with
 * RADICALE_MISSING.
 */
export function skipWithoutRadicale(): boolean {
  return systemGate(["radicale"]).verdict === "skip";
}

/** A running Radicale with one user, and the requests a test needs to shape its calendars. */
export interface RunningRadicale {
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly user: string;
  readonly password: string;
  /** The URL of the user's calendar collection `name` (with a trailing slash). */
  calendarUrl(name: string): URL;
  /** Creates the calendar collection `name` (MKCALENDAR). */
  makeCalendar(name: string): Promise<void>;
  /** Writes `text` as resource `resource` of calendar `name` (PUT); resolves to the status. */
  put(name: string, resource: string, text: string): Promise<number>;
  /**
   * The folder where radicale keeps calendar `name`'s resources, one .ics
   * file each: a file written there (after makeCalendar) is a resource, the
   * quick way to seed a calendar of thousands of events that PUTs would
   * take minutes to write.
   */
  calendarFolder(name: string): string;
  /** Deletes resource `resource` of calendar `name`. */
  remove(name: string, resource: string): Promise<void>;
  /** What radicale wrote to stderr (its log). */
  log(): string;
  stop(): Promise<void>;
}

/** Starts radicale and resolves once it says it is ready. */
export async function startRadicale(): Promise<RunningRadicale> {
  const binary = findProgram("radicale");
  if (binary === undefined) throw new Error(RADICALE_MISSING);
  const folder = mkdtempSync(join(tmpdir(), "calq-radicale-"));
  const user = "alice";
  const password = randomBytes(12).toString("hex");
  writeFileSync(join(folder, "users"), `${user}:${password}\n`);
  const config = join(folder, "config");
  writeFileSync(
    config,
    `[server]
hosts = 127.0.0.1:0
[auth]
type = htpasswd
htpasswd_filename = ${join(folder, "users")}
htpasswd_encryption = plain
# No pause after a wrong password: the tests send one on purpose.
delay = 0
[rights]
type = owner_only
[storage]
filesystem_folder = ${join(folder, "collections")}
[web]
type = none
[logging]
# "info" is where radicale says which port it bound.
level = info
`,
  );
  const child: ChildProcess = spawn(binary, ["--config", config], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, HOME: folder },
  });
  let log = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      child.stderr!.on("data", (chunk) => {
        log += chunk;
        const listening = /Listening on '\[?127\.0\.0\.1\]?:(\d+)'/.exec(log);
        if (listening !== null && log.includes("Radicale server ready")) resolve(Number(listening[1]));
      });
      child.once("exit", (code) => reject(new Error(`radicale exited (${code}) before it was ready: ${log}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const origin = `http://127.0.0.1:${port}`;
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  const calendarUrl = (name: string) => new URL(`/${user}/${name}/`, origin);
  const send = async (method: string, url: URL, body?: string, contentType?: string): Promise<number> => {
    const headers: Record<string, string> = { authorization };
    if (contentType !== undefined) headers["content-type"] = contentType;
    const response = await fetch(url, { method, headers, body });
    await response.arrayBuffer();
    return response.status;
  };
  return {
    origin,
    user,
    password,
    calendarUrl,
    makeCalendar: async (name) => {
      const status = await send("MKCALENDAR", calendarUrl(name));
      if (status !== 201) throw new Error(`MKCALENDAR answered ${status}: ${log}`);
    },
    calendarFolder: (name) => join(folder, "collections", "collection-root", user, name),
    put: (name, resource, text) => send("PUT", new URL(resource, calendarUrl(name)), text, "text/calendar; charset=utf-8"),
    remove: async (name, resource) => {
      const status = await send("DELETE", new URL(resource, calendarUrl(name)));
      if (status !== 200 && status !== 204) throw new Error(`DELETE answered ${status}`);
    },
    log: () => log,
    stop,
  };
}

/** One request that went through the counting proxy, and what its answer carried. */
export interface ProxiedRequest {
  readonly method: string;
  /** The request body (XML), to tell a sync-collection from a calendar-multiget. */
  readonly body: string;
  readonly status: number;
  /** Calendar object resources in the answer (each is one VCALENDAR). */
  readonly resources: number;
  /** Bytes on the wire (compressed, when the answer was). */
  readonly bytes: number;
  /** When the answer had all arrived (performance.now()). */
  readonly answeredAt: number;
}

/** A loopback HTTP proxy to one origin that records every request. */
export interface CountingProxy {
  /** http://127.0.0.1:PORT, to use in place of the target's origin. */
  readonly origin: string;
  readonly requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** Starts a proxy that forwards every request to `target` (an origin) unchanged and records it. */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const requests: ProxiedRequest[] = [];
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const body: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => body.push(chunk));
    incoming.on("end", () => {
      const sent = Buffer.concat(body);
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (answer) => {
          const received: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => received.push(chunk));
          answer.on("end", () => {
            const text = Buffer.concat(received);
            // Radicale compresses when asked (fetch asks); the count is of what the answer holds.
            const plain = answer.headers["content-encoding"] === "gzip" ? gunzipSync(text) : text;
            requests.push({
              method: incoming.method ?? "",
              body: sent.toString("utf8"),
              status: answer.statusCode ?? 0,
              resources: plain.toString("utf8").match(/BEGIN:VCALENDAR/g)?.length ?? 0,
              bytes: text.length,
              answeredAt: performance.now(),
            });
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(text);
          });
        },
      );
      forward.on("error", () => outgoing.destroy());
      forward.end(sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A calendar object resource of one event, as a CalDAV client would PUT it. */
export function eventResource(uid: string, summary: string, start = "20260105T090000Z", description?: string): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//calq tests//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20260101T000000Z",
    `DTSTART:${start}`,
    "DURATION:PT1H",
    `SUMMARY:${summary}`,
    ...(description === undefined ? [] : [`DESCRIPTION:${description}`]),
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

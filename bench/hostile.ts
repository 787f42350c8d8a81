/**
 * `node bin/run-ts.mjs bench/hostile.ts`: calq attacked as a hostile client
 * would, one attack at a time, each against a fresh `calq serve`
 * process on 127.0.0.1 that has been idle for 5 s. For each attack it
 * prints, and writes to its section of bench/RESULTS.md:
 *
 * - the latency of searches on another calendar during the attack (p50, p99,
 *   max), measured by a probe in its own process, so the attacking client's
 *   event loop never slows the probe;
 * - the server's RSS, idle and at its peak (from /proc);
 * - how long the server takes to recover once the attack stops: until ten
 *   probe searches in a row are back within max(20 ms, 2 × idle p99);
 * - what the server did to the attack (refusal codes and times, connections
 *   kept, streams refused).
 *
 * ATTACKS is the table: each row is one line of the issue's table, with how
 * to mount it and stop it. The HTTP-layer rows are here; the feed and search
 * rows (a 24 MB reload, a 10k-hourly-series calendar, a BYSETPOS feed, and
 * feeds large in count: a million RDATE lines, a VTIMEZONE of 10,000
 * changes, 100,000 nested VEVENTs) are added as rows of the same shape, with
 * calendars of their own in `feeds`.
 *
 * Not a test, not run in CI. Every attack is bounded in count and time and
 * talks to 127.0.0.1 only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import http2 from "node:http2";
import net from "node:net";
import os from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { create, toBinary } from "@bufbuild/protobuf";
import { ReloadOutcome } from "../gen/calq/v1/calendar_admin_service_pb.js";
import { MatchMode } from "../gen/calq/v1/calendar_service_pb.js";
import { HealthCheckRequestSchema } from "../gen/grpc/health/v1/health_pb.js";
import { sha256Hex } from "../src/config/secret.js";
import { CalqGrpcClient } from "../test/support/grpc-client.js";
import { generateFeed, generateHourlySeries } from "./generate-feed.js";
import { percentile, writeResultsSection } from "./results-file.js";

const ROOT = join(import.meta.dirname, "..");
/** The served folder, once main() has made it: the feed attacks write their feeds there. */
const DATA = { dir: "" };
const READER_TOKEN = "bench-reader-token";
const ADMIN_TOKEN = "bench-admin-token";
/** The attacker of the expensive-call rows: a caller of its own, so calls take turns with the probe's. */
const ATTACKER_TOKEN = "bench-attacker-token";
/** Calendars of a 5-minute series each, read together by the free/busy row. */
const TICK_CALENDARS = Array.from({ length: 49 }, (_, i) => `tick${String(i + 1).padStart(2, "0")}`);
/** A year's window, as the expensive-call rows ask it. */
const YEAR = { start: "2026-01-01T00:00:00Z", endExclusive: "2027-01-01T00:00:00Z", timezone: "UTC" };

/** Runs `call` in a closed loop for `ms` from each of `callers` callers, collecting latencies and outcomes. */
async function closedLoop(callers: number, ms: number, call: () => Promise<string>): Promise<{ latencies: number[]; outcomes: string[] }> {
  const latencies: number[] = [];
  const outcomes: string[] = [];
  const stop = performance.now() + ms;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < stop) {
        const t0 = performance.now();
        outcomes.push(await call().catch((error: unknown) => `failed ${(error as { code?: number }).code ?? "?"}`));
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, outcomes };
}
/** Probe searches one day of the 10,000-event calendar, back to back with this pause. */
const PROBE_PAUSE_MS = 10;
/** Recovery is given up on after this long. */
const RECOVERY_LIMIT_MS = 30_000;
/** How long after an attack RSS may take to come back within 20 % of idle. */
const SETTLE_LIMIT_MS = 60_000;
/**
 * `--only TEXT`: runs only the attacks whose names contain TEXT and prints
 * them, leaving RESULTS.md as it is (a partial run is no record).
 */
const ONLY = process.argv[2] === "--only" ? process.argv[3] : undefined;
/** Server flags of this run: the defaults but a shorter idle timeout, so the idle row ends in bench time. */
const SERVE_FLAGS = ["--idle-timeout-seconds", "10"];

/** What a running attack is given. */
interface Target {
  /** host:port of the service port. */
  readonly address: string;
  readonly pid: number;
  /** The server's own RPC log lines so far (its stderr), for durations as the server measured them. */
  readonly rpcLines: readonly { method: string; code: string; duration_ms: number }[];
}

/** One row of the table: how to mount an attack, and how to stop it. */
interface Attack {
  /** The issue's row, as the results table names it. */
  readonly name: string;
  /** Mounts the attack; resolves with what the server did to it, once the attack has run its course. */
  readonly run: (target: Target) => Promise<Outcome>;
}

/** What the server did to an attack, and how to take the attack down. */
interface Outcome {
  readonly observed: string;
  /** Closes whatever the attack still holds open. */
  readonly stop: () => void;
}

// ---------------------------------------------------------------------------
// The attacks of the HTTP layer.

const IMPORT = "/calq.v1.CalendarAdminService/ImportCalendar";
const WATCH = "/grpc.health.v1.Health/Watch";

/** An HTTP/2 session to the target whose errors (resets, GOAWAY) are expected. */
function session(address: string): http2.ClientHttp2Session {
  const opened = http2.connect(`http://${address}`);
  opened.on("error", () => {});
  return opened;
}

/** A TCP connection to the target; resolves once connected, or with undefined if refused. */
function socket(address: string): Promise<net.Socket | undefined> {
  const [host, port] = address.split(":");
  return new Promise((resolve) => {
    const opened = net.connect(Number(port), host, () => resolve(opened));
    opened.resume();
    opened.on("error", () => resolve(undefined));
  });
}

/** Sockets still open, and the milliseconds until each closed (from `since`). */
function watchClosing(sockets: (net.Socket | http2.ClientHttp2Session)[], since: number) {
  const closedAfter: number[] = [];
  for (const each of sockets) each.once("close", () => closedAfter.push(performance.now() - since));
  return { closedAfter, open: () => sockets.filter((each) => !each.destroyed).length };
}

/** An ImportCalendar over raw HTTP/2 announcing 60 MB and pumping 1 MiB chunks; resolves with its status and time. */
function bogusImport(on: http2.ClientHttp2Session): Promise<{ status: string; ms: number }> {
  const started = performance.now();
  const chunk = Buffer.alloc(1024 * 1024, 0x41);
  const length = 60 * 1024 * 1024;
  const stream = on.request({
    ":method": "POST",
    ":path": IMPORT,
    "content-type": "application/grpc",
    te: "trailers",
    authorization: "Bearer x",
  });
  return new Promise((resolve) => {
    const done = (status: string) => resolve({ status, ms: performance.now() - started });
    stream.on("response", (headers) => headers["grpc-status"] !== undefined && done(String(headers["grpc-status"])));
    stream.on("trailers", (trailers) => done(String(trailers["grpc-status"])));
    stream.on("close", () => done(`closed (rst ${stream.rstCode})`));
    stream.on("error", () => {});
    stream.resume();
    const header = Buffer.alloc(5);
    header.writeUInt32BE(length, 1);
    stream.write(header);
    let sent = 0;
    const pump = () => {
      while (sent < length && !stream.destroyed) {
        sent += chunk.length;
        if (!stream.write(chunk)) return void stream.once("drain", pump);
      }
      if (!stream.destroyed) stream.end();
    };
    pump();
  });
}

const ATTACKS: readonly Attack[] = [
  {
    name: "60 MB ImportCalendar bodies with a made-up token, 16 at once (3 rounds)",
    async run({ address, rpcLines }) {
      const seen = rpcLines.length;
      const results: { status: string; ms: number }[] = [];
      for (let round = 0; round < 3; round++) {
        const sessions = Array.from({ length: 4 }, () => session(address));
        results.push(...(await Promise.all(Array.from({ length: 16 }, (_, i) => bogusImport(sessions[i % 4])))));
        for (const each of sessions) each.destroy();
      }
      const ms = results.map((result) => result.ms);
      const statuses = count(results.map((result) => (result.status === "8" ? "RESOURCE_EXHAUSTED" : result.status)));
      const served = rpcLines
        .slice(seen)
        .filter((line) => line.method === "calq.v1.CalendarAdminService/ImportCalendar")
        .map((line) => line.duration_ms);
      return {
        observed:
          `${statuses}; refused in p50 ${fixed(percentile(served, 50))} ms, max ${fixed(Math.max(...served))} ms as the server timed them ` +
          `(p50 ${fixed(percentile(ms, 50))} ms, max ${fixed(Math.max(...ms))} ms at the client, which is busy writing 16 MiB a round)`,
        stop: () => {},
      };
    },
  },
  {
    name: "3,000 silent connections (never send a byte)",
    async run({ address, pid }) {
      const started = performance.now();
      const sockets = (await Promise.all(Array.from({ length: 3_000 }, () => socket(address)))).filter((each) => each !== undefined);
      const closing = watchClosing(sockets, started);
      await pause(1_000);
      const serverFds = openFiles(pid);
      await until(() => closing.open() === 0, 20_000);
      const late = closing.closedAfter.filter((ms) => ms > 1_000);
      return {
        observed: `${sockets.length} connected; after 1 s the server held ${serverFds} descriptors (per-address cap 512); the last closed after ${fixed(Math.max(...late, 0) / 1000)} s; after 20 s the server holds ${openFiles(pid)} descriptors, ${closing.open()} client sockets not yet told`,
        stop: () => {
          for (const each of sockets) each.destroy();
        },
      };
    },
  },
  {
    name: "200 slow-header clients (HTTP/1.1, a byte a second) and 200 HTTP/2 clients that send only the preface",
    async run({ address }) {
      const started = performance.now();
      const slow = (await Promise.all(Array.from({ length: 200 }, () => socket(address)))).filter((each) => each !== undefined);
      const preface = (await Promise.all(Array.from({ length: 200 }, () => socket(address)))).filter((each) => each !== undefined);
      for (const each of slow) each.write("POST /grpc.health.v1.Health/Check HTTP/1.1\r\nHost: calq\r\nX-Slow: ");
      for (const each of preface) each.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
      const drip = setInterval(() => {
        for (const each of slow) if (each.writable) each.write("x");
      }, 1_000);
      const closing = watchClosing([...slow, ...preface], started);
      await until(() => closing.open() === 0, 30_000);
      clearInterval(drip);
      return {
        observed: `closed after p50 ${fixed(percentile(closing.closedAfter, 50) / 1000)} s, max ${fixed(Math.max(...closing.closedAfter, 0) / 1000)} s; ${closing.open()} still open`,
        stop: () => {
          clearInterval(drip);
          for (const each of [...slow, ...preface]) each.destroy();
        },
      };
    },
  },
  {
    name: "200 idle connections after one call each (HTTP/2 sessions), idle timeout 10 s",
    async run({ address }) {
      const sessions = Array.from({ length: 200 }, () => session(address));
      const body = Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema)));
      const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), body]);
      await Promise.all(
        sessions.map(
          (each) =>
            new Promise<void>((resolve) => {
              const stream = each.request({
                ":method": "POST",
                ":path": "/grpc.health.v1.Health/Check",
                "content-type": "application/grpc",
                te: "trailers",
              });
              stream.on("error", () => resolve());
              stream.on("close", () => resolve());
              stream.resume();
              stream.end(frame);
            }),
        ),
      );
      const started = performance.now();
      const closing = watchClosing(sessions, started);
      await until(() => closing.open() === 0, 30_000);
      return {
        observed: `closed ${fixed(percentile(closing.closedAfter, 50) / 1000)} s (p50) after their call; ${closing.open()} still open`,
        stop: () => {
          for (const each of sessions) each.destroy();
        },
      };
    },
  },
  {
    name: "unauthenticated health Watch streams: 40 connections × 100",
    async run({ address }) {
      const sessions = Array.from({ length: 40 }, () => session(address));
      const body = Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema)));
      const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), body]);
      const outcomes = await Promise.all(
        sessions.flatMap((each) =>
          Array.from(
            { length: 100 },
            () =>
              new Promise<string>((resolve) => {
                const stream = each.request({ ":method": "POST", ":path": WATCH, "content-type": "application/grpc", te: "trailers" });
                stream.on("data", () => resolve("open"));
                stream.on("response", (headers) => headers["grpc-status"] !== undefined && resolve(`status ${headers["grpc-status"]}`));
                stream.on("trailers", (trailers) => resolve(`status ${trailers["grpc-status"]}`));
                stream.on("error", () => resolve("error"));
                stream.on("close", () => resolve(`closed (rst ${stream.rstCode})`));
                stream.end(frame);
                setTimeout(() => resolve("no answer in 10 s"), 10_000);
              }),
          ),
        ),
      );
      await pause(2_000);
      return {
        observed: count(outcomes.map((outcome) => (outcome === "status 8" ? "RESOURCE_EXHAUSTED" : outcome))),
        stop: () => {
          for (const each of sessions) each.destroy();
        },
      };
    },
  },
  // The rows of hostile feeds and searches: the feeds are written into the
  // server's folder and reloaded through the admin API at the attack's start.
  {
    name: "searches of the 10k-hourly-series calendar (2 callers, 7-day pages, 2 s deadline, 5 s)",
    async run({ address }) {
      const client = new CalqGrpcClient(address, READER_TOKEN);
      await writeFile(join(DATA.dir, "hourly.ics"), generateHourlySeries(Date.now()));
      await client.reloadCalendar("hourly", ADMIN_TOKEN);
      const latencies: number[] = [];
      let partial = 0;
      let failed = 0;
      const caller = async () => {
        const stop = performance.now() + 5_000;
        for (let i = 0; performance.now() < stop; i++) {
          const start = Math.floor(Date.now() / 86_400_000) * 86_400_000 + (i % 7) * 86_400_000;
          const t0 = performance.now();
          try {
            const page = await client.searchEvents(
              {
                calendarId: "hourly",
                start: new Date(start).toISOString().replace(".000Z", "Z"),
                endExclusive: new Date(start + 7 * 86_400_000).toISOString().replace(".000Z", "Z"),
                timezone: "UTC",
                matchMode: MatchMode.OVERLAP,
                limit: 20,
              },
              READER_TOKEN,
              2_000,
            );
            if (page.partial) partial++;
          } catch {
            failed++;
          }
          latencies.push(performance.now() - t0);
        }
      };
      await Promise.all([caller(), caller()]);
      client.close();
      return {
        observed: `hostile searches p50 ${fixed(percentile(latencies, 50))} / p99 ${fixed(percentile(latencies, 99))} ms (${latencies.length}); ${partial} partial, ${failed} failed`,
        stop: () => {},
      };
    },
  },
  {
    name: "10 searches of the 94-byte FREQ=SECONDLY all-day feed and 10 text searches of a 5-minute series, a year each, at once (one caller, 5 s)",
    async run({ address }) {
      const client = new CalqGrpcClient(address, ATTACKER_TOKEN);
      const search = (calendarId: string, textQuery: string) => async () => {
        const page = await client.searchEvents(
          { calendarId, ...YEAR, matchMode: MatchMode.START_WITHIN, limit: 100, textQuery },
          ATTACKER_TOKEN,
          10_000,
        );
        return page.partial ? "partial" : "complete";
      };
      const [secondly, words] = await Promise.all([
        closedLoop(10, 5_000, search("secondly", "")),
        closedLoop(10, 5_000, search("ticks", "nothing matches this")),
      ]);
      client.close();
      return {
        observed:
          `SECONDLY searches p50 ${fixed(percentile(secondly.latencies, 50))} ms (${count(secondly.outcomes)}); ` +
          `text searches p50 ${fixed(percentile(words.latencies, 50))} ms (${count(words.outcomes)})`,
        stop: () => {},
      };
    },
  },
  {
    name: "QueryFreeBusy of 49 calendars of 5-minute series over 366 days (4 at once, one caller, 5 s, 10 s deadline)",
    async run({ address }) {
      const client = new CalqGrpcClient(address, ATTACKER_TOKEN);
      const sizes: number[] = [];
      const { latencies, outcomes } = await closedLoop(4, 5_000, async () => {
        const answer = await client.queryFreeBusy(
          { calendarIds: TICK_CALENDARS, ...YEAR, endExclusive: "2027-01-02T00:00:00Z" },
          ATTACKER_TOKEN,
        );
        sizes.push(answer.calendars.reduce((sum, calendar) => sum + calendar.busy.length, answer.combined.length));
        return answer.completeUntil === undefined ? "complete" : `complete until ${answer.completeUntil.seconds > 0 ? "a cut" : "start"}`;
      });
      client.close();
      return {
        observed: `answers p50 ${fixed(percentile(latencies, 50))} / max ${fixed(Math.max(...latencies))} ms (${count(outcomes)}), at most ${Math.max(0, ...sizes)} intervals each`,
        stop: () => {},
      };
    },
  },
  {
    name: "reload of a 100k-event feed (about 19 MiB), 3 times, each a changed version",
    async run({ address }) {
      const client = new CalqGrpcClient(address, ADMIN_TOKEN);
      const big = generateFeed(Date.now(), { singles: 100_000, series: 0 }, 7);
      const reloads: number[] = [];
      for (let i = 0; i < 3; i++) {
        await writeFile(join(DATA.dir, "big.ics"), big.replace("BEGIN:VCALENDAR\r\n", `BEGIN:VCALENDAR\r\nX-BENCH-VERSION:${i}\r\n`));
        const t0 = performance.now();
        await client.reloadCalendar("big");
        reloads.push(performance.now() - t0);
      }
      client.close();
      return { observed: `reloads took ${reloads.map((ms) => fixed(ms)).join(", ")} ms`, stop: () => {} };
    },
  },
  {
    name: "reload of the 9-line FREQ=MINUTELY;BYSETPOS=53 feed",
    async run({ address }) {
      const client = new CalqGrpcClient(address, ADMIN_TOKEN);
      await writeFile(
        join(DATA.dir, "setpos.ics"),
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calq//bench//EN\r\nX-WR-TIMEZONE:UTC\r\nBEGIN:VEVENT\r\nUID:setpos@bench\r\n" +
          "DTSTART:20260101T090000Z\r\nRRULE:FREQ=MINUTELY;BYSETPOS=53\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
      );
      const t0 = performance.now();
      await client.reloadCalendar("setpos");
      const ms = performance.now() - t0;
      client.close();
      return { observed: `reload took ${fixed(ms)} ms (the rule refused as RRULE_NEVER_MATCHES)`, stop: () => {} };
    },
  },
  // Feeds large in count rather than in time (docs/imperfect-feeds.md, "Bounds"): each is cut or refused
  // as the feed lexer meets it, so ical.js never builds what the cap leaves out.
  {
    name: "reload of one event with 1,000,000 RDATE lines (23 MB)",
    run: ({ address }) => reloadOnce(address, "rdates", rdateFlood(1_000_000)),
  },
  {
    name: "reload of a VTIMEZONE with 10,000 transitions (one observance each) and an event in it",
    run: ({ address }) => reloadOnce(address, "zones", transitionFlood(10_000)),
  },
  {
    name: "reload of 100,000 nested VEVENTs (100,000 BEGIN lines, then 100,000 END lines)",
    run: ({ address }) => reloadOnce(address, "nested", nestedFlood(100_000)),
  },
];

// ---------------------------------------------------------------------------
// The feeds large in count.

const BENCH_CALENDAR = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calq//bench//EN\r\nX-WR-TIMEZONE:UTC\r\n";

/** One event whose every RDATE is a line of its own, a minute apart from 2026 on: 23 bytes a line. */
function rdateFlood(count: number): string {
  const lines = [BENCH_CALENDAR, "BEGIN:VEVENT\r\nUID:rdates@bench\r\nDTSTART:20260101T090000\r\nSUMMARY:Flood\r\n"];
  const from = Date.UTC(2026, 0, 1, 9);
  for (let i = 0; i < count; i++) lines.push(`RDATE:${compact(from + i * 60_000)}\r\n`);
  lines.push("END:VEVENT\r\nEND:VCALENDAR\r\n");
  return lines.join("");
}

/** A VTIMEZONE of alternating STANDARD and DAYLIGHT observances, one transition each, twice a year from 1900, and an event in it. */
function transitionFlood(count: number): string {
  const lines = [BENCH_CALENDAR, "BEGIN:VTIMEZONE\r\nTZID:Bench_Flood\r\n"];
  for (let i = 0; i < count; i++) {
    const summer = i % 2 === 1;
    const at = Date.UTC(1900 + Math.floor(i / 2), summer ? 2 : 9, 25, summer ? 2 : 3);
    const kind = summer ? "DAYLIGHT" : "STANDARD";
    lines.push(
      `BEGIN:${kind}\r\nDTSTART:${compact(at)}\r\nTZOFFSETFROM:${summer ? "+0100" : "+0200"}\r\nTZOFFSETTO:${summer ? "+0200" : "+0100"}\r\nEND:${kind}\r\n`,
    );
  }
  lines.push("END:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:zone@bench\r\nDTSTART;TZID=Bench_Flood:20260610T100000\r\n");
  lines.push("RRULE:FREQ=WEEKLY\r\nSUMMARY:Weekly in the flooded zone\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n");
  return lines.join("");
}

/** `depth` BEGIN:VEVENT lines, then as many END:VEVENT lines. */
function nestedFlood(depth: number): string {
  return `${BENCH_CALENDAR}${"BEGIN:VEVENT\r\n".repeat(depth)}${"END:VEVENT\r\n".repeat(depth)}END:VCALENDAR\r\n`;
}

/** "YYYYMMDDTHHMMSS" of an epoch-ms number, read as UTC fields. */
function compact(at: number): string {
  return new Date(at).toISOString().slice(0, 19).replace(/[-:]/g, "");
}

/** Writes `feed` as the calendar's file and reloads it once; observes the reload's time, outcome and diagnostics. */
async function reloadOnce(address: string, calendarId: string, feed: string): Promise<Outcome> {
  const client = new CalqGrpcClient(address, ADMIN_TOKEN);
  await writeFile(join(DATA.dir, `${calendarId}.ics`), feed);
  const t0 = performance.now();
  let observed: string;
  try {
    const { outcome, status } = await client.reloadCalendar(calendarId);
    const codes = count((status?.diagnostics ?? []).map((each) => each.code));
    observed = `${(feed.length / 1e6).toFixed(1)} MB reloaded in ${fixed(performance.now() - t0)} ms: ${ReloadOutcome[outcome]}, ${status?.eventCount ?? 0} events; diagnostics ${codes}`;
  } catch (error) {
    observed = `${(feed.length / 1e6).toFixed(1)} MB: the reload failed after ${fixed(performance.now() - t0)} ms (${error instanceof Error ? error.message : String(error)})`;
  }
  client.close();
  return { observed, stop: () => {} };
}

// ---------------------------------------------------------------------------
// The harness.

interface Row {
  readonly name: string;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly searches: number;
  readonly rssPeakMiB: number;
  /** The row's server before the attack: probe latency and RSS. */
  readonly idleP50: number;
  readonly idleP99: number;
  readonly idleRssMiB: number;
  readonly recoveryMs: number | undefined;
  /** From the attack's end until RSS was within 20 % of idle; undefined past a minute. */
  readonly settleMs: number | undefined;
  readonly observed: string;
}

/** Search latencies (ms) reported by the probe process, with when each ended (performance.timeOrigin-free wall ms). */
const samples: { at: number; ms: number }[] = [];

const fixed = (value: number) => (Number.isNaN(value) ? "–" : value < 10 ? value.toFixed(1) : value.toFixed(0));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `done()` holds, checked every 100 ms, or after `limitMs`. */
async function until(done: () => boolean, limitMs: number): Promise<void> {
  const end = performance.now() + limitMs;
  while (!done() && performance.now() < end) await pause(100);
}

function count(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => `${n} ${value}`).join(", ");
}

/** File descriptors process `pid` holds open. */
function openFiles(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

const between = (from: number, to: number) => samples.filter((sample) => sample.at >= from && sample.at < to).map((sample) => sample.ms);

/** Runs one attack with the probe going, then waits for recovery. */
async function measure(attack: Attack, rig: Rig): Promise<Row> {
  const { target, healthy } = rig;
  let peak = rssMiB(target.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(target.pid))), 100);
  const from = Date.now();
  const outcome = await attack.run(target);
  const to = Date.now();
  outcome.stop();
  // Recovered: ten probe searches in a row within the healthy bound.
  let recoveryMs: number | undefined;
  const deadline = to + RECOVERY_LIMIT_MS;
  while (Date.now() < deadline) {
    await pause(50);
    const after = samples.filter((sample) => sample.at >= to);
    const run = after.findIndex((_, i) => i >= 9 && after.slice(i - 9, i + 1).every((sample) => sample.ms <= healthy));
    if (run >= 0) {
      recoveryMs = after[run - 9].at - to;
      break;
    }
  }
  clearInterval(sampler);
  // Memory given back: until RSS is within 20 % of idle, sampled each second, for at most a minute after the attack.
  let settleMs: number | undefined;
  while (Date.now() - to <= SETTLE_LIMIT_MS) {
    if (rssMiB(target.pid) <= 1.2 * rig.idleRss) {
      settleMs = Date.now() - to;
      break;
    }
    await pause(1_000);
  }
  const during = between(from, to);
  return {
    name: attack.name,
    p50: percentile(during, 50),
    p99: percentile(during, 99),
    // No search ended during a short attack: shown as "–", like its percentiles.
    max: during.length === 0 ? Number.NaN : Math.max(...during),
    searches: during.length,
    rssPeakMiB: peak,
    idleP50: percentile(rig.idle, 50),
    idleP99: percentile(rig.idle, 99),
    idleRssMiB: rig.idleRss,
    recoveryMs,
    settleMs,
    observed: outcome.observed,
  };
}

/** The probe process: searches the victim calendar forever, printing "endedAt latencyMs" per search. */
async function probe(address: string): Promise<void> {
  const client = new CalqGrpcClient(address, READER_TOKEN);
  const day = 86_400_000;
  for (let i = 0; ; i++) {
    const start = Math.floor(Date.now() / day) * day + ((i % 60) - 30) * day;
    const started = performance.now();
    await client
      .searchEvents({
        calendarId: "victim",
        start: new Date(start).toISOString().replace(".000Z", "Z"),
        endExclusive: new Date(start + day).toISOString().replace(".000Z", "Z"),
        timezone: "America/New_York",
        matchMode: MatchMode.OVERLAP,
        limit: 20,
      })
      .catch(() => undefined);
    process.stdout.write(`${Date.now()} ${performance.now() - started}\n`);
    await pause(PROBE_PAUSE_MS);
  }
}

/** The calendars of the feeds large in count. */
const FLOOD_CALENDARS = ["rdates", "zones", "nested"];

/** The calendars every server of the run serves; the hostile feeds start empty, and their attacks write them and reload. */
function writeData(dir: string): void {
  const empty = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calq//bench//EN\r\nEND:VCALENDAR\r\n";
  for (const name of ["upload", "hourly", "big", "setpos", ...FLOOD_CALENDARS]) writeFileSync(join(dir, `${name}.ics`), empty);
  const calendar = (...lines: string[]) =>
    ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calq//bench//EN", "X-WR-TIMEZONE:UTC", ...lines, "END:VCALENDAR", ""].join("\r\n");
  // The 94-byte feed of the issue: an all-day series with a rule of every second.
  writeFileSync(
    join(dir, "secondly.ics"),
    calendar("BEGIN:VEVENT", "UID:s", "DTSTART;VALUE=DATE:20231002", "RRULE:FREQ=SECONDLY", "END:VEVENT"),
  );
  const ticks = (uid: string) =>
    calendar(
      "BEGIN:VEVENT",
      `UID:${uid}`,
      "DTSTART:20200101T000000Z",
      "DURATION:PT2M",
      "RRULE:FREQ=MINUTELY;INTERVAL=5",
      "SUMMARY:tick",
      "END:VEVENT",
    );
  writeFileSync(join(dir, "ticks.ics"), ticks("ticks"));
  for (const id of TICK_CALENDARS) writeFileSync(join(dir, `${id}.ics`), ticks(id));
  writeFileSync(
    join(dir, "calq.yaml"),
    [
      "calendars:",
      "  - {id: victim, source: victim.ics, readers: [reader]}",
      "  - {id: upload, source: upload.ics, readers: [reader]}",
      // A long refresh: the attacks reload these feeds through the admin API.
      "  - {id: hourly, source: hourly.ics, refresh: 480h, readers: [reader]}",
      "  - {id: big, source: big.ics, refresh: 480h, readers: [reader]}",
      "  - {id: setpos, source: setpos.ics, refresh: 480h, readers: [reader]}",
      "  - {id: secondly, source: secondly.ics, refresh: 480h, readers: [attacker]}",
      "  - {id: ticks, source: ticks.ics, refresh: 480h, readers: [attacker]}",
      ...TICK_CALENDARS.map((id) => `  - {id: ${id}, source: ${id}.ics, refresh: 480h, readers: [attacker]}`),
      ...FLOOD_CALENDARS.map((id) => `  - {id: ${id}, source: ${id}.ics, refresh: 480h, readers: [reader]}`),
      "principals:",
      `  - {id: reader, primary: victim, tokens: ["sha256:${sha256Hex(READER_TOKEN)}"]}`,
      `  - {id: attacker, tokens: ["sha256:${sha256Hex(ATTACKER_TOKEN)}"]}`,
      `  - {id: ops, tokens: ["sha256:${sha256Hex(ADMIN_TOKEN)}"], capabilities: [calendar.admin]}`,
    ].join("\n"),
  );
}

/** A fresh server on the data folder, with its probe running and its idle level measured. */
interface Rig {
  readonly target: Target;
  readonly idle: number[];
  readonly idleRss: number;
  /** Recovery's bound: max(20 ms, 2 × idle p99). */
  readonly healthy: number;
  readonly stop: () => void;
}

async function startRig(dir: string): Promise<Rig> {
  writeData(dir);
  samples.length = 0;
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const child of children) child.kill("SIGKILL");
  };
  try {
    const server = spawn(process.execPath, [join(ROOT, "bin/calq.mjs"), "serve", "--data", dir, "--port", "0", ...SERVE_FLAGS], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(server);
    const rpcLines: Target["rpcLines"][number][] = [];
    createInterface({ input: server.stderr! }).on("line", (line) => {
      const record = JSON.parse(line) as { msg?: string; method?: string; code?: string; duration_ms?: number };
      if (record.msg === "rpc" && record.method !== undefined && record.code !== undefined && record.duration_ms !== undefined) {
        rpcLines.push({ method: record.method, code: record.code, duration_ms: record.duration_ms });
      }
    });
    const address = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.stdout!.on("data", (chunk) => {
        out += chunk;
        const match = /listening on (\S+):(\d+)[\s\S]*\nserving/.exec(out);
        if (match) resolve(`${match[1]}:${match[2]}`);
      });
      server.once("exit", (code) => reject(new Error(`calq serve exited ${code}`)));
    });
    const prober = spawn(process.execPath, [join(ROOT, "bin/run-ts.mjs"), join(ROOT, "bench/hostile.ts"), "--probe", address], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(prober);
    createInterface({ input: prober.stdout! }).on("line", (line) => {
      const [at, ms] = line.split(" ").map(Number);
      samples.push({ at, ms });
    });
    const target: Target = { address, pid: server.pid!, rpcLines };
    await pause(3_000);
    const idleFrom = Date.now();
    await pause(5_000);
    const idle = between(idleFrom, Date.now());
    return { target, idle, idleRss: rssMiB(target.pid), healthy: Math.max(20, 2 * percentile(idle, 99)), stop };
  } catch (error) {
    stop();
    throw error;
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), "calq-hostile-"));
  DATA.dir = dir;
  writeFileSync(join(dir, "victim.ics"), generateFeed(Date.now()));
  const rows: Row[] = [];
  try {
    for (const attack of ATTACKS.filter((each) => ONLY === undefined || each.name.includes(ONLY))) {
      // Each attack meets a fresh server: its row is its own, not what the last one left for V8 to collect.
      const rig = await startRig(dir);
      let trace: NodeJS.Timeout | undefined;
      try {
        const { target, idle, idleRss } = rig;
        console.log(
          `idle: ${idle.length} searches, p50 ${fixed(percentile(idle, 50))} ms, p99 ${fixed(percentile(idle, 99))} ms; RSS ${fixed(idleRss)} MiB`,
        );
        if (process.env.CALQ_BENCH_RSS_TRACE) {
          const started = Date.now();
          trace = setInterval(() => console.error(`rss ${((Date.now() - started) / 1000).toFixed(1)} s ${fixed(rssMiB(target.pid))}`), 200);
        }
        const row = await measure(attack, rig);
        rows.push(row);
        console.log(
          `${row.name}: p50 ${fixed(row.p50)} / p99 ${fixed(row.p99)} / max ${fixed(row.max)} ms over ${row.searches} searches; ` +
            `RSS peak ${fixed(row.rssPeakMiB)} MiB (${(row.rssPeakMiB / idleRss).toFixed(2)} × idle); ` +
            `recovered in ${row.recoveryMs === undefined ? "> 30 s" : `${fixed(row.recoveryMs)} ms`}; ` +
            `RSS within 20 % of idle ${row.settleMs === undefined ? "not within 60 s" : `after ${fixed(row.settleMs / 1000)} s`}; ${row.observed}`,
        );
      } finally {
        // Before the server goes: its /proc entry goes with it.
        clearInterval(trace);
        rig.stop();
      }
    }
    if (ONLY === undefined) writeSection(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Replaces this script's section of RESULTS.md. */
function writeSection(rows: Row[]): void {
  const cpu = os.cpus();
  const ratio = (row: Row) => row.rssPeakMiB / row.idleRssMiB;
  const over = rows.filter((row) => !row.name.includes("silent connections") && ratio(row) >= 2);
  const section = [
    "## Hostile clients and feeds (bench/hostile.ts)",
    "",
    "Recorded by `node bin/run-ts.mjs bench/hostile.ts`, which rewrites this section only.",
    `Not a test: one run on a shared machine; searches run in their own process, the attacks in another, the server in a third.`,
    "",
    `- Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}`,
    `- Node.js ${process.version}; run at ${new Date().toISOString()}; \`calq serve\` with default settings but \`${SERVE_FLAGS.join(" ")}\``,
    "- Each attack meets a fresh server, idle for 5 s first (its idle column), so a row is its own attack's and not what",
    "  the one before left: a Watch flood leaves some 150 MiB of garbage that V8 collects about 10 s later, and the",
    "  hourly-series calendar stays loaded.",
    `- Probe: one-day searches of a 10,000-event calendar (limit 20) over gRPC, back to back with a ${PROBE_PAUSE_MS} ms pause.`,
    "- Recovery: from the attack's end until ten searches in a row take at most max(20 ms, 2 × idle p99).",
    "- Memory back: from the attack's end until the server's RSS is within 20 % of its idle RSS (sampled each second, up to 60 s).",
    `- Load average when the run ended: ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(", ")} (1, 5, 15 min).`,
    "",
    "| attack | idle (p50 / p99; RSS) | searches during (p50 / p99 / max) | server RSS peak | recovery | memory back | what the server did |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      (row) =>
        `| ${row.name} | ${fixed(row.idleP50)} / ${fixed(row.idleP99)} ms; ${fixed(row.idleRssMiB)} MiB | ` +
        `${fixed(row.p50)} / ${fixed(row.p99)} / ${fixed(row.max)} ms (${row.searches}) | ${fixed(row.rssPeakMiB)} MiB (${ratio(row).toFixed(2)} ×) | ${
          row.recoveryMs === undefined ? "> 30 s" : `${fixed(row.recoveryMs)} ms`
        } | ${row.settleMs === undefined ? "> 60 s" : `${fixed(row.settleMs / 1000)} s`} | ${row.observed} |`,
    ),
    "",
    "Targets: other calendars' searches p99 <= 20 ms and max <= 100 ms during the 100k-event reloads and the",
    "hourly-series searches; the made-up-token import refused in <= 50 ms; RSS under 2 x idle but for the descriptor row.",
    "During the expensive calls of another caller (the SECONDLY and text searches, the 49-calendar QueryFreeBusy): p99 <= 50 ms",
    'and max <= 250 ms, every call answered within its deadline (docs/decisions.md, "Calls take turns").',
    'The feeds large in count (docs/imperfect-feeds.md, "Bounds"): each answered within 2 s, with at most 300 MB over idle',
    "and other calendars' p99 <= 50 ms. After a stream flood, RSS back within 20 % of idle within a minute, and the",
    "victim's max wait during it <= 250 ms.",
    over.length === 0
      ? "Every row but the descriptor one stayed under 2 x its idle RSS in this run."
      : `Over 2 x idle RSS in this run: ${over.map((row) => row.name).join("; ")}.`,
    '"Client sockets not yet told" are held by no one at the server (its descriptor count is back to idle): most likely',
    "connections the kernel completed past a full accept queue, which never reached calq.",
    "A flood of stream openings (the Watch row) is bounded in what it holds, not in the CPU its refusals cost:",
    "thousands of HTTP/2 streams opened at once still delay other calls while they are refused.",
  ].join("\n");
  writeResultsSection("hostile", section);
}

if (process.argv[2] === "--probe") await probe(process.argv[3]);
else if (process.argv[2] === "--only" && ONLY === undefined) throw new Error("--only needs part of an attack's name");
else await main();

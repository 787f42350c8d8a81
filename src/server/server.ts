/**
 * The calq server: serves CalendarService, health and reflection over gRPC,
 * gRPC-Web and Connect on one port (cleartext on loopback, or TLS), and
 * metrics on an optional admin port. The port opens first, so health checks
 * can see the server NOT_SERVING while the calendars load. With a calendar
 * registry, the registry's calendars of this replica's group are served
 * beside calq.yaml's and follow its changes while serving
 * (store/live-calendars.ts).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { CalendarAdminService } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { CalendarService } from "../../gen/calq/v1/calendar_service_pb.js";
import { calendarsElsewhere } from "../app/calendar-registry.js";
import { WatchPlaces } from "../app/changes.js";
import { livePeople, peopleOf, settingsOfPerson } from "../app/people.js";
import { Turns } from "../app/turns.js";
import { Authenticator } from "../auth/authenticator.js";
import { JwtVerifier } from "../auth/jwt.js";
import { peerCertificateOf, peerContextValues } from "../auth/peer-certificate.js";
import { ADMIN } from "../config/capabilities.js";
import { type CalqConfig, ConfigError } from "../config/config-model.js";
import { DEFAULT_SERVE_SETTINGS, type ServeSettings } from "../config/server-config.js";
import { ShardMap } from "../config/shard-map.js";
import type { ExpansionLimits } from "../expand/expand-calendar.js";
import { removeInterruptedWrites } from "../feeds/durable-write.js";
import { countBySeverity } from "../ics/diagnostic.js";
import type { Snapshot } from "../ingest/snapshot.js";
import type { Logger } from "../log.js";
import { stderrLogger } from "../logging/logger.js";
import { isLoopback } from "../net/loopback.js";
import { type CalendarRegistry, openRegistry, type RegistrySettings } from "../registry/index.js";
import { ChangeTokenCodec } from "../search/change-token.js";
import { CursorCodec, type CursorKey } from "../search/cursor.js";
import { CalendarStore } from "../store/calendar-store.js";
import { followLiveCalendars, type LiveCalendars } from "../store/live-calendars.js";
import { RefreshScheduler } from "../store/refresh-scheduler.js";
import { type AdminListener, listenAdmin } from "./admin-listener.js";
import { adminService } from "./admin-service.js";
import { calendarService } from "./calendar-service.js";
import { observeCalls } from "./call-observer.js";
import { concurrencyLimit } from "./concurrency-limit.js";
import { listenDualProtocol } from "./dual-protocol-listener.js";
import { HealthState, refuseWhileDraining, registerHealth, WatchLimiter } from "./health.js";
import { returnMemoryAfterBursts } from "./memory-return.js";
import { Metrics } from "./metrics.js";
import { registerReflection } from "./reflection.js";
import { rpcHandler } from "./rpc-handler.js";
import { rpcLog } from "./rpc-log.js";
import { tlsOptions, watchCertificates } from "./tls.js";

/** Services whose every call is audit-logged: feed administration. */
const AUDITED_SERVICES: ReadonlySet<string> = new Set([CalendarAdminService.typeName]);

/** How to serve: the serve settings (server-config.ts), each with its default when absent. */
export interface ServerOptions extends Partial<Omit<ServeSettings, "logLevel" | "shutdownGraceSeconds" | "registry">> {
  readonly config: CalqConfig;
  readonly log?: Logger;
  readonly now?: () => number;
  /** Cursor signing keys, first signs; default: from the environment named in config, else one random key. */
  readonly cursorKeys?: readonly CursorKey[];
  readonly limits?: (now: number) => ExpansionLimits;
  /** Where secrets named by the config (cursor keys, the JWT secret) are read from: the process's environment, passed in by `calq serve`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where sources keep what they need between reads (a CalDAV collection's sync state); none: they start over after a restart. */
  readonly stateFolder?: string;
  /** Re-read feeds on their refresh interval and watch file sources (default true; tests that reload by hand turn it off). */
  readonly refreshFeeds?: boolean;
  /** Called once the port is open, before the first load of the calendars; the server may be closed from here on. */
  readonly onListening?: (server: RunningServer) => void;
  /** The calendar registry served beside calq.yaml's calendars (`calq serve` always opens one); none when absent. */
  readonly registry?: ServerRegistry;
}

/** Which registry a server follows, and where it keeps its local copy. */
export interface ServerRegistry {
  /** The engine and where it lives; the server adds calq.yaml's groups and ids. */
  readonly settings: RegistrySettings;
  /** The folder of this replica's local copy of its group's rows. */
  readonly folder: string;
}

export interface RunningServer {
  readonly host: string;
  readonly port: number;
  /** The admin (metrics) port, when one was configured. */
  readonly adminPort?: number;
  readonly store: CalendarStore;
  readonly health: HealthState;
  /** The registry calendars and people this replica follows, with a registry. */
  readonly live?: LiveCalendars;
  /** Drains: health goes NOT_SERVING, new calls but health ones are refused, calls in flight get `graceMs` to finish; once, however often called. */
  close(graceMs?: number): Promise<void>;
}

/** Opens the port, loads every calendar once, and resolves when both are done. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config } = options;
  const host = options.host ?? "127.0.0.1";
  if (options.tls === undefined && !isLoopback(host) && !options.allowPlaintextNonLoopback) {
    throw new ConfigError(
      `refusing plaintext on ${host}, which is not a loopback address: configure TLS, or pass --allow-plaintext-non-loopback if a proxy in front terminates TLS`,
    );
  }
  // Every replica knows every calendar's group; it loads and polls only its own group's.
  const shards = new ShardMap(config, options.shardGroup);
  const served = shards.localCalendars();
  const log = options.log ?? stderrLogger;
  const now = options.now ?? Date.now;
  const lifetimeMs = config.search.cursorLifetimeMinutes * 60_000;
  // Metrics are kept only when there is an admin port to read them from.
  const metrics = options.admin === undefined ? undefined : new Metrics(() => store.views(), now);
  const store = new CalendarStore(served, {
    retentionMs: lifetimeMs,
    now,
    feedLimits: config.feeds,
    limits: options.limits,
    onLoadFailure: (calendarId, failure, detail) => {
      // A fault of calq's own: its stack is the detail, and the id ties reports of it to this line.
      const internal = failure === "internal" ? { level: "error", correlation_id: randomUUID() } : { level: "warn" };
      log({ ...internal, msg: "calendar load failed", calendar_id: calendarId, failure, detail });
      metrics?.reloaded(calendarId, failure);
    },
    onLoaded: (snapshot) => {
      logSnapshot(log, snapshot);
      metrics?.reloaded(snapshot.calendarId, "loaded");
    },
    onUnchanged: (calendarId) => metrics?.reloaded(calendarId, "unchanged"),
    stateFolder: options.stateFolder,
    onSourceLog: (calendarId, event) => log({ level: "info", msg: "source note", calendar_id: calendarId, ...event }),
  });
  const { registry, live } = await followRegistryOf(options, shards, store, log, now);
  const elsewhere = live === undefined ? undefined : calendarsElsewhere(live);
  if (live !== undefined) metrics?.followRegistry(() => live.status());

  const cursorKeys = options.cursorKeys ?? cursorKeysFromEnvironment(config.search.cursorKeyEnv, options.env);
  const cursors = new CursorCodec(cursorKeys, lifetimeMs, now);
  const authenticator = new Authenticator(config, {
    jwt: options.jwt === undefined ? undefined : new JwtVerifier(options.jwt, { env: options.env, log, now }),
    principalFromCertificate: options.tls?.principalFromCertificate,
    log,
    people:
      live === undefined
        ? undefined
        : async (principalId) => {
            const person = await live.personOf(principalId);
            return person && settingsOfPerson(person);
          },
  });
  // Every call's work takes turns with every other call's, callers in turn.
  const turns = new Turns();
  // Aborted when the server drains: every WatchChanges stream then ends.
  const draining = new AbortController();
  const service = calendarService({
    store,
    shards,
    elsewhere,
    authenticator,
    cursors,
    maxWindowMs: config.search.maxWindowDays * 86_400_000,
    turns,
    workBudget: config.search.workBudget,
    changeTokens: new ChangeTokenCodec(cursorKeys),
    watches: { places: new WatchPlaces(), draining: draining.signal },
    people: live === undefined ? peopleOf(config.principals) : livePeople(config.principals, () => live.people()),
    log,
    now,
  });
  const health = new HealthState();
  const settings = { ...DEFAULT_SERVE_SETTINGS, ...definedOnly(options) };
  const watchers = new WatchLimiter(settings.maxWatchStreams, settings.maxWatchStreamsPerConnection);
  const callListeners = [rpcLog(log, AUDITED_SERVICES), ...(metrics === undefined ? [] : [metrics.onCall])];
  const admin = adminService({
    store,
    shards,
    elsewhere,
    registry,
    live,
    registryEngine: options.registry?.settings.engine,
    authenticator,
    turns,
    feeds: config.feeds,
    limits: store.expansionLimits,
    log,
    now,
  });
  const handler = rpcHandler({
    // Every service on every route, so reflection and health describe the whole server.
    routes: (router) => {
      router.service(CalendarService, service);
      router.service(CalendarAdminService, admin);
      registerHealth(router, health, watchers);
      registerReflection(router);
    },
    interceptors: [observeCalls(log, callListeners), refuseWhileDraining(health), concurrencyLimit(settings.maxConcurrentCalls)],
    contextValues: peerContextValues,
    // A search request is a few hundred bytes; nothing legitimate comes near the default 64 KiB.
    maxRequestBytes: settings.maxRequestBytes,
    // Connect JSON carries the upload in base64: a third more than its bytes.
    maxLargeRequestBytes: Math.ceil((config.feeds.maxBytes * 4) / 3) + 64 * 1024,
    maxLargeBodies: settings.maxLargeBodies,
    largeBodyService: CalendarAdminService.typeName,
    isVerifiedAdmin: (request) =>
      authenticator.verify(request.headers.authorization ?? null, peerCertificateOf(request)).then(
        (principal) => principal.capabilities.includes(ADMIN),
        () => false,
      ),
    requestTimeoutMs: settings.connections.requestTimeoutMs,
    listeners: callListeners,
  });
  const closeRegistry = async () => {
    await live?.close();
    await registry?.close();
  };
  const listener = await listenDualProtocol(
    handler,
    host,
    options.port ?? 50051,
    settings.connections,
    options.tls === undefined ? undefined : tlsOptions(options.tls),
  ).catch(async (error: unknown) => {
    await closeRegistry();
    throw error;
  });
  // Certificates rotate without a restart: new connections get the new pair once its files are complete.
  const stopWatchingCertificates =
    options.tls === undefined
      ? () => {}
      : watchCertificates(
          options.tls,
          (tls) => listener.replaceCertificate(tls),
          ({ reloaded, error }) =>
            log(
              reloaded
                ? { level: "info", msg: "tls certificate reloaded" }
                : { level: "warn", msg: "tls certificate not reloaded; the one in use stays", error },
            ),
        );
  let adminPort: AdminListener | undefined;
  if (metrics !== undefined && options.admin !== undefined) {
    adminPort = await listenAdmin(metrics.registry, options.admin.host, options.admin.port, settings.connections).catch(
      async (error: unknown) => {
        await listener.close(0);
        await closeRegistry();
        throw error;
      },
    );
  }
  let refresher: RefreshScheduler | undefined;
  // A flood of calls leaves garbage V8 may keep for minutes while others keep the process busy.
  const stopReturningMemory = returnMemoryAfterBursts();
  let closing: Promise<void> | undefined;
  const running: RunningServer = {
    host: listener.host,
    port: listener.port,
    adminPort: adminPort?.port,
    store,
    health,
    live,
    close(graceMs) {
      // Once: a second close (a second signal while draining) waits for the first.
      closing ??= (async () => {
        health.enter("draining");
        draining.abort();
        stopReturningMemory();
        refresher?.stop();
        stopWatchingCertificates();
        await listener.close(graceMs);
        await adminPort?.close();
        await closeRegistry();
      })();
      return closing;
    },
  };
  options.onListening?.(running);
  // A crash mid-import leaves a hidden temporary file beside the calendar; it never held served data.
  await Promise.all(served.map(({ source }) => (source.kind === "file" ? removeInterruptedWrites(source.path) : undefined)));
  await store.loadAll();
  if (health.phase === "draining") return running;
  // Every calendar served now, calq.yaml's and the registry's; the registry's later ones reach it through `live`.
  refresher = new RefreshScheduler(
    store,
    store.views().map((view) => view.config),
  );
  live?.attach(refresher);
  if (options.refreshFeeds ?? true) refresher.start();
  health.enter("serving");
  return running;
}

/**
 * Opens the registry with calq.yaml's groups and ids and starts following
 * this replica's group, when the server has a registry. A start whose group
 * holds an id calq.yaml declares is refused, naming it (live-calendars.ts).
 */
async function followRegistryOf(
  options: ServerOptions,
  shards: ShardMap,
  store: CalendarStore,
  log: Logger,
  now: () => number,
): Promise<{ registry?: CalendarRegistry; live?: LiveCalendars }> {
  if (options.registry === undefined) return {};
  const { config } = options;
  // The local copy's folder: the embedded engine makes its own, PostgreSQL's replicas need it too.
  await mkdir(options.registry.folder, { recursive: true });
  const registry = await openRegistry({
    ...options.registry.settings,
    groups: config.shards?.groups,
    reservedIds: new Set(config.calendars.map((calendar) => calendar.id)),
  });
  try {
    const copy = `registry-copy${shards.localGroup === undefined ? "" : `-${shards.localGroup}`}.json`;
    const live = await followLiveCalendars({
      registry,
      shards,
      store,
      copyPath: join(options.registry.folder, copy),
      env: options.env,
      log,
      now,
    });
    return { registry, live };
  } catch (error) {
    await registry.close();
    throw error;
  }
}

/** The options given a value; an option passed as undefined falls back to its default. */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Diagnostics logged per load; the rest are counted. */
const MAX_LOGGED_DIAGNOSTICS = 100;

/** One line per load, then one per diagnostic (what was left out or cut is reported, as docs/feeds.md says). */
function logSnapshot(log: Logger, snapshot: Snapshot): void {
  log({
    level: "info",
    msg: "calendar loaded",
    calendar_id: snapshot.calendarId,
    snapshot_id: snapshot.id,
    events: snapshot.eventCount,
    occurrences_indexed: snapshot.index.size,
    series_expanded_on_demand: snapshot.tails.length,
    zone: snapshot.zone.name,
    zone_source: snapshot.zoneSource,
    diagnostics: snapshot.diagnostics.length,
    ...diagnosticCounts(snapshot),
    // Whole, and why, or from the snapshot before (docs/decisions.md, "Rebuilds in proportion to the change").
    ...(snapshot.build === undefined
      ? {}
      : snapshot.build.kind === "full"
        ? { build: "full", build_reason: snapshot.build.reason }
        : { build: "incremental", events_read: snapshot.build.eventsRead, events_kept: snapshot.build.eventsKept }),
  });
  // Code, UID and line only: a diagnostic's message may quote the feed's text,
  // and event contents never go to the log (calq check and the admin API show it).
  for (const { code, severity, uid, line } of snapshot.diagnostics.slice(0, MAX_LOGGED_DIAGNOSTICS)) {
    log({ level: "warn", msg: "feed diagnostic", calendar_id: snapshot.calendarId, code, severity, uid, line });
  }
  if (snapshot.diagnostics.length > MAX_LOGGED_DIAGNOSTICS) {
    log({
      level: "warn",
      msg: "more feed diagnostics not logged",
      calendar_id: snapshot.calendarId,
      count: snapshot.diagnostics.length - MAX_LOGGED_DIAGNOSTICS,
    });
  }
}

/** Errors (something left out) and warnings (read by a stated rule) of a snapshot, for its load line. */
function diagnosticCounts(snapshot: Snapshot): { diagnostic_errors: number; diagnostic_warnings: number } {
  const { error, warning } = countBySeverity(snapshot.diagnostics);
  return { diagnostic_errors: error, diagnostic_warnings: warning };
}

/** Keys named by calq.yaml's search.cursor_key_env, or one random key for this process. */
function cursorKeysFromEnvironment(names: readonly string[], env: Readonly<Record<string, string | undefined>>): CursorKey[] {
  // A fresh id too, so cursors from before a restart read as expired, not forged.
  if (names.length === 0) return [{ id: randomBytes(6).toString("base64url"), secret: randomBytes(32) }];
  return names.map((name) => {
    const secret = env[name];
    if (secret === undefined || secret.length < 16) {
      throw new Error(`cursor key ${name} is not set in the environment or is shorter than 16 characters`);
    }
    // The id is a digest of the secret, so a key keeps its id wherever it sits in the list.
    return { id: createHash("sha256").update(secret).digest("base64url").slice(0, 8), secret: Buffer.from(secret) };
  });
}

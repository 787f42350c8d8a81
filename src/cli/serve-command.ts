/**
 * `calq serve`: reads the data folder and the serve settings (calq.yaml,
 * then CALQ_* variables, then flags), serves until SIGTERM or SIGINT, then
 * drains: health goes NOT_SERVING, calls in flight get the grace period to
 * finish, and the process exits 0. SIGHUP reloads every calendar. The
 * calendar registry is always opened: embedded in the registry folder
 * (DATA/registry) by default, or PostgreSQL at the URL its variable holds.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import YAML from "yaml";
import { directoryConfig, type Environment, parseConfig, readConfigDocument } from "../config/calq-config.js";
import { type CalqConfig, ConfigError } from "../config/config-model.js";
import { printableConfig, type RegistryServeSettings, resolveServeSettings, SETTING_FLAGS } from "../config/server-config.js";
import { assertNever } from "../exhaustive.js";
import type { Logger } from "../log.js";
import { pinoLogger } from "../logging/logger.js";
import { type RunningServer, type ServerRegistry, startServer } from "../server/server.js";
import { UsageError } from "./usage-error.js";

/** Runs `calq serve ARGS`; resolves once serving (signals end the process), or after --print-config. */
export async function serve(argv: string[], env: Environment, cwd: string): Promise<void> {
  // Signals are handled from the start: a SIGTERM while the first load is
  // still reading a slow feed drains and exits 0 like any other.
  let drainListening: ((signal: string) => void) | undefined;
  let signalled: string | undefined;
  const stop = (signal: string) => {
    signalled = signal;
    drainListening?.(signal);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const served = await openServe(argv, env, cwd, {
    out: process.stdout,
    onListening: (drain) => {
      drainListening = drain;
      if (signalled !== undefined) drain(signalled);
    },
  });
  if (served === undefined || signalled !== undefined) return;
  process.on("SIGHUP", () => {
    for (const { config: calendar } of served.store.views()) void served.store.reload(calendar.id);
  });
}

/** Where `calq serve` writes, and what it is told once it listens. */
export interface ServeOptions {
  /** Its lines for people (the port, then the calendars served). */
  readonly out: Writable;
  /** The log, by default JSON lines at the settings' level. */
  readonly log?: Logger;
  /** As soon as the port is open: how to drain the server and exit (what a signal does). */
  readonly onListening?: (drain: (signal: string) => void) => void;
}

/**
 * `calq serve ARGS` up to serving: the settings read, the server started and
 * its calendars loaded; undefined after --print-config. The process's
 * signals are `serve`'s: tests start servers this way, in process, each
 * stopped by its close().
 */
export async function openServe(argv: string[], env: Environment, cwd: string, options: ServeOptions): Promise<RunningServer | undefined> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: "string" },
      "dev-token": { type: "string" },
      "print-config": { type: "boolean" },
      ...SETTING_FLAGS,
    },
    strict: true,
  });
  if (values.data === undefined) throw new UsageError("--data DIR is required");
  const configPath = join(values.data, "calq.yaml");
  const document = existsSync(configPath) ? readConfigDocument(configPath) : undefined;
  const config =
    document === undefined
      ? directoryConfig(values.data, values["dev-token"] ?? env.CALQ_DEV_TOKEN)
      : parseConfig(document, values.data, configPath, env);
  const settings = resolveServeSettings({ document, baseDirectory: values.data, cwd, env, flags: values });

  if (values["print-config"]) {
    const shown = printableConfig((document as Record<string, unknown> | undefined) ?? documentOf(config), settings);
    options.out.write(YAML.stringify(shown));
    return undefined;
  }

  const log = options.log ?? pinoLogger(settings.logLevel);
  const groupNote =
    settings.shardGroup === undefined ? "" : ` (shard group ${settings.shardGroup} of ${config.calendars.length} calendars)`;
  let draining = false;
  const drainer = (server: RunningServer) => (signal: string) => {
    draining = true;
    log({ level: "info", msg: "draining", signal, grace_seconds: settings.shutdownGraceSeconds });
    void server.close(settings.shutdownGraceSeconds * 1000).then(() => {
      log({ level: "info", msg: "stopped" });
      process.exit(0);
    });
  };

  // The port is printed as soon as it is open, so probes can find it (NOT_SERVING) while the calendars load.
  const server = await startServer({
    ...settings,
    config,
    env,
    log,
    // Kept beside the calendars: what CalDAV sources need to read on incrementally after a restart.
    stateFolder: join(values.data, ".calq-state"),
    registry: registryOf(settings.registry, values.data, env, settings.shardGroup),
    onListening: (opened) => {
      const shown = opened.host.includes(":") ? `[${opened.host}]` : opened.host;
      const protocols =
        settings.tls === undefined
          ? "HTTP/2 cleartext and HTTP/1.1"
          : `TLS${settings.tls.clientCaFile ? " with client certificates" : ""}, HTTP/2 and HTTP/1.1`;
      options.out.write(
        `calq listening on ${shown}:${opened.port} (gRPC, gRPC-Web and Connect over ${protocols})\n` +
          (opened.adminPort === undefined ? "" : `metrics on http://${settings.admin!.host}:${opened.adminPort}/metrics\n`) +
          `loading ${opened.store.views().length} calendar(s) from ${values.data}${groupNote}; health says NOT_SERVING until they are ready\n`,
      );
      options.onListening?.(drainer(opened));
    },
  });
  if (!draining) options.out.write(`serving ${server.store.views().length} calendar(s) from ${values.data}${groupNote}\n`);
  return server;
}

/** The registry the settings name; its PostgreSQL URL is read from the variable they name, never from calq.yaml. */
function registryOf(settings: RegistryServeSettings, data: string, env: Environment, group: string | undefined): ServerRegistry {
  const folder = settings.folder ?? join(data, "registry");
  switch (settings.engine) {
    case "embedded":
      return { settings: { engine: "embedded", folder }, folder };
    case "postgresql": {
      const url = env[settings.urlEnv];
      if (url === undefined || url === "" || !URL.canParse(url)) {
        throw new ConfigError(
          `the registry's engine is postgresql, but ${settings.urlEnv} (the variable registry.url_env names) holds no URL: set it to postgres://USER:PASSWORD@HOST:PORT/DATABASE, from a Secret`,
        );
      }
      return {
        settings: {
          engine: "postgresql",
          connectionString: url,
          poolSize: settings.poolSize,
          applicationName: group === undefined ? "calq" : `calq ${group}`,
        },
        folder,
      };
    }
    default:
      return assertNever(settings.engine, "registry engine");
  }
}

/** A folder served without calq.yaml, written the way calq.yaml would say it. */
function documentOf(config: CalqConfig): Record<string, unknown> {
  return {
    calendars: config.calendars.map((calendar) => ({ id: calendar.id, source: calendar.source, readers: calendar.readers })),
    principals: config.principals.map((principal) => ({ id: principal.id, primary: principal.primary, tokens: principal.tokenDigests })),
    search: { max_window_days: config.search.maxWindowDays, cursor_lifetime_minutes: config.search.cursorLifetimeMinutes },
  };
}

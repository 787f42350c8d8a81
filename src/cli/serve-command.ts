/**
 * `calq serve`: reads the data folder and the serve settings (calq.yaml,
 * then CALQ_* variables, then flags), serves until SIGTERM or SIGINT, then
 * drains: health goes NOT_SERVING, calls in flight get the grace period to
 * finish, and the process exits 0. SIGHUP reloads every calendar.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import YAML from "yaml";
import { directoryConfig, parseConfig, readConfigDocument, type CalqConfig } from "../config/calq-config.js";
import { printableConfig, resolveServeSettings, SETTING_FLAGS } from "../config/server-config.js";
import { pinoLogger } from "../server/log.js";
import { startServer } from "../server/server.js";
import { UsageError } from "./usage-error.js";

/** The usage text of `calq serve`. */
export const SERVE_USAGE = `usage: calq serve --data DIR [options]

  --data DIR                  folder with calq.yaml, or with *.ics files (then --dev-token is needed)
  --dev-token T               bearer token of principal "dev" when DIR has no calq.yaml (or CALQ_DEV_TOKEN)
  --print-config              print the merged configuration, secrets redacted, and exit

  Each setting below is read from calq.yaml, overridden by its CALQ_* variable, overridden by the flag:
  --host H                    server.host, CALQ_HOST (default 127.0.0.1)
  --port N                    server.port, CALQ_PORT (default 50051; 0 picks a free one)
  --allow-plaintext-non-loopback
                              server.allow_plaintext_non_loopback: serve plaintext on a non-loopback address
  --shutdown-grace-seconds S  server.shutdown_grace_seconds (default 10)
  --max-concurrent-calls N    server.max_concurrent_calls (default 256)
  --max-request-bytes N       server.max_request_bytes (default 65536)
  --log-level L               server.log_level: debug, info, warn, error (default info)
  --tls-cert FILE             tls.cert_file, CALQ_TLS_CERT_FILE
  --tls-key FILE              tls.key_file, CALQ_TLS_KEY_FILE
  --tls-client-ca FILE        tls.client_ca_file: require client certificates signed by this CA (mTLS)
  --tls-principal-from-certificate
                              tls.principal_from_certificate: the client certificate's CN names the principal
  --admin-host H              admin.host, CALQ_ADMIN_HOST (default 127.0.0.1)
  --admin-port N              admin.port, CALQ_ADMIN_PORT: serve /metrics there (off by default)`;

/** Runs `calq serve ARGS`; resolves once serving (signals end the process), or after --print-config. */
export async function serve(argv: string[]): Promise<void> {
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
      ? directoryConfig(values.data, values["dev-token"] ?? process.env.CALQ_DEV_TOKEN)
      : parseConfig(document, values.data, configPath);
  const settings = resolveServeSettings({ document, baseDirectory: values.data, env: process.env, flags: values });

  if (values["print-config"]) {
    const shown = printableConfig((document as Record<string, unknown> | undefined) ?? documentOf(config), settings);
    process.stdout.write(YAML.stringify(shown));
    return;
  }

  const log = pinoLogger(settings.logLevel);
  const server = await startServer({ ...settings, config, log });
  const shown = server.host.includes(":") ? `[${server.host}]` : server.host;
  const protocols = settings.tls === undefined ? "HTTP/2 cleartext and HTTP/1.1" : `TLS${settings.tls.clientCaFile ? " with client certificates" : ""}, HTTP/2 and HTTP/1.1`;
  process.stdout.write(
    `calq listening on ${shown}:${server.port} (gRPC, gRPC-Web and Connect over ${protocols})\n` +
      `serving ${config.calendars.length} calendar(s) from ${values.data}\n` +
      (server.adminPort === undefined ? "" : `metrics on http://${settings.admin!.host}:${server.adminPort}/metrics\n`),
  );
  process.on("SIGHUP", () => {
    for (const calendar of config.calendars) void server.store.reload(calendar.id);
  });
  const stop = (signal: string) => {
    log({ level: "info", msg: "draining", signal, grace_seconds: settings.shutdownGraceSeconds });
    void server.close(settings.shutdownGraceSeconds * 1000).then(() => {
      log({ level: "info", msg: "stopped" });
      process.exit(0);
    });
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** A folder served without calq.yaml, written the way calq.yaml would say it. */
function documentOf(config: CalqConfig): Record<string, unknown> {
  return {
    calendars: config.calendars.map((calendar) => ({ id: calendar.id, source: calendar.source, readers: calendar.readers })),
    principals: config.principals.map((principal) => ({ id: principal.id, primary: principal.primary, tokens: principal.tokenDigests })),
    search: { max_window_days: config.search.maxWindowDays, cursor_lifetime_minutes: config.search.cursorLifetimeMinutes },
  };
}

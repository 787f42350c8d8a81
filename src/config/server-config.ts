/**
 * How `calq serve` runs: address, TLS, admin (metrics) port, limits, log
 * level and JWT verification. Each setting comes from calq.yaml, is
 * overridden by its CALQ_* environment variable, which is overridden by its
 * flag (auth.jwt is calq.yaml only); `calq serve --print-config` shows the
 * merged result. The calendars,
 * principals and search limits stay in calq-config.ts.
 *
 * calq.yaml keys (all optional):
 *
 *   server: { host, port, allow_plaintext_non_loopback, shutdown_grace_seconds,
 *             max_concurrent_calls, max_request_bytes, max_large_bodies, log_level }
 *   connections: { headers_timeout_seconds, request_timeout_seconds, idle_timeout_seconds,
 *             keepalive_interval_seconds, max_total, max_per_address,
 *             max_concurrent_streams, max_header_list_bytes }
 *   health: { max_watch_streams, max_watch_streams_per_connection }
 *   tls:    { cert_file, key_file, client_ca_file, principal_from_certificate }
 *   admin:  { host, port }
 *   shards: { group }   (shards.groups, the list, is read by calq-config.ts)
 *   registry: { engine, url_env, folder, pool_size }
 *   auth:   { jwt: { issuer, audience, jwks_file, hs256_secret_env, clock_skew_seconds } }
 */
import { isAbsolute, resolve } from "node:path";
import { ConfigError } from "./config-model.js";

/** Least severe level written to the log. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** TLS on the service port; file paths are absolute. */
export interface TlsSettings {
  readonly certFile: string;
  readonly keyFile: string;
  /** When set, clients must present a certificate signed by this CA (mTLS). */
  readonly clientCaFile?: string;
  /** With mTLS: the client certificate's subject CN names the calling principal (a calq.yaml principal id). */
  readonly principalFromCertificate: boolean;
}

/** How bearer JWTs are verified (auth.jwt). */
export interface JwtSettings {
  /** Required `iss`. */
  readonly issuer: string;
  /** Required `aud` (one of the token's audiences). */
  readonly audience: string;
  /** RS256/ES256 keys as a JWKS file, re-read when it changes (key rotation). */
  readonly jwksFile?: string;
  /** The environment variable holding the HS256 secret. */
  readonly hs256SecretEnv?: string;
  /** Tolerance for `exp` and `nbf`. */
  readonly clockSkewSeconds: number;
}

/** Everything `calq serve` needs besides the calendars and principals, defaults applied. */
export interface ServeSettings {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Plaintext is refused on a non-loopback address unless this is set. */
  readonly allowPlaintextNonLoopback: boolean;
  readonly tls?: TlsSettings;
  /** The metrics port (`/metrics`); no admin listener when undefined. */
  readonly admin?: { readonly host: string; readonly port: number };
  /** How long calls in flight may take to finish after SIGTERM. */
  readonly shutdownGraceSeconds: number;
  /** Calls served at once; more are refused RESOURCE_EXHAUSTED. */
  readonly maxConcurrentCalls: number;
  /** Largest request message accepted, but from callers holding calendar.admin (ImportCalendar). */
  readonly maxRequestBytes: number;
  /** Feed-sized (import) request bodies being received at once; more are refused before they are read. */
  readonly maxLargeBodies: number;
  /** How connections on the service and metrics ports must behave to be kept. */
  readonly connections: ConnectionSettings;
  /** Health Watch streams open at once, in all and per connection. */
  readonly maxWatchStreams: number;
  readonly maxWatchStreamsPerConnection: number;
  readonly logLevel: LogLevel;
  readonly jwt?: JwtSettings;
  /** The shard group this replica serves (calq.yaml `shards.groups` lists them); undefined when not split. */
  readonly shardGroup?: string;
  /** Where the calendar registry lives (docs/operating.md, "The calendar registry"). */
  readonly registry: RegistryServeSettings;
}

/** The engines the registry can live in (src/registry's REGISTRY_ENGINES, spelled here for the settings, which may not import it). */
export const REGISTRY_ENGINE_NAMES = ["embedded", "postgresql"] as const;

/**
 * Where the calendar registry lives. Its PostgreSQL URL is never a setting:
 * it holds a password, so it is read from the variable `urlEnv` names (a
 * Kubernetes Secret), never from calq.yaml.
 */
export interface RegistryServeSettings {
  readonly engine: (typeof REGISTRY_ENGINE_NAMES)[number];
  /** The environment variable holding the PostgreSQL URL. */
  readonly urlEnv: string;
  /** The folder of the embedded journal and of this replica's local copy; undefined: DATA/registry. */
  readonly folder?: string;
  /** PostgreSQL connections for reads and writes (the change feed holds one more). */
  readonly poolSize: number;
}

/**
 * What a connection must do to be kept, on the service port and the metrics
 * port. Defaults follow Envoy's edge-proxy advice and Node's own defaults.
 */
export interface ConnectionSettings {
  /** From accepting a connection (or ending a request) until a request's headers are complete; a silent socket is closed then. */
  readonly headersTimeoutMs: number;
  /** A unary call's request body must have arrived within this from its headers. */
  readonly requestTimeoutMs: number;
  /** A connection with no call in flight for this long is closed (HTTP/1.1 keep-alive, HTTP/2 sessions). */
  readonly idleTimeoutMs: number;
  /** An HTTP/2 session with live streams but no traffic is PINGed this often, and closed if the PING goes unanswered. */
  readonly keepaliveIntervalMs: number;
  /** Connections open at once on a port; more are closed on arrival. */
  readonly maxConnections: number;
  /** Connections open at once from one remote address. */
  readonly maxConnectionsPerAddress: number;
  /** Streams (calls) open at once on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
  readonly maxConcurrentStreams: number;
  /** Largest request header list (HTTP/1.1 header block, HTTP/2 SETTINGS_MAX_HEADER_LIST_SIZE). */
  readonly maxHeaderListBytes: number;
}

/**
 * One setting and where it is read from, in rising precedence: yaml, env,
 * flag. This table is the only list of settings: parsing, the flags, the
 * `calq serve` usage text, the calq.yaml schema and the settings list of
 * docs/operating.md all come from it.
 */
export interface Source {
  readonly yaml: readonly [section: string, key: string];
  /** What calq.yaml holds there (config-schema.ts builds the schema from it); env and flags give text. */
  readonly type: "string" | "integer" | "number" | "boolean";
  readonly env: string;
  readonly flag: string;
  /** What the flag's value is called in the usage text; a switch (no value) has none. */
  readonly value?: string;
  /** What the setting does, for the usage text. */
  readonly help: string;
  /** The value when no source sets it. */
  readonly default?: string | number;
}

export const SOURCES = {
  host: {
    yaml: ["server", "host"],
    type: "string",
    env: "CALQ_HOST",
    flag: "host",
    value: "H",
    help: "address to listen on",
    default: "127.0.0.1",
  },
  port: {
    yaml: ["server", "port"],
    type: "integer",
    env: "CALQ_PORT",
    flag: "port",
    value: "N",
    help: "port to listen on; 0 picks a free one",
    default: 50051,
  },
  allowPlaintextNonLoopback: {
    yaml: ["server", "allow_plaintext_non_loopback"],
    type: "boolean",
    env: "CALQ_ALLOW_PLAINTEXT_NON_LOOPBACK",
    flag: "allow-plaintext-non-loopback",
    help: "serve plaintext on a non-loopback address (a proxy in front terminates TLS)",
  },
  shutdownGraceSeconds: {
    yaml: ["server", "shutdown_grace_seconds"],
    type: "number",
    env: "CALQ_SHUTDOWN_GRACE_SECONDS",
    flag: "shutdown-grace-seconds",
    value: "S",
    help: "time calls in flight get to finish after SIGTERM",
    default: 10,
  },
  maxConcurrentCalls: {
    yaml: ["server", "max_concurrent_calls"],
    type: "integer",
    env: "CALQ_MAX_CONCURRENT_CALLS",
    flag: "max-concurrent-calls",
    value: "N",
    help: "calls served at once; more are refused RESOURCE_EXHAUSTED",
    default: 256,
  },
  maxRequestBytes: {
    yaml: ["server", "max_request_bytes"],
    type: "integer",
    env: "CALQ_MAX_REQUEST_BYTES",
    flag: "max-request-bytes",
    value: "N",
    help: "largest request message accepted",
    default: 65536,
  },
  maxLargeBodies: {
    yaml: ["server", "max_large_bodies"],
    type: "integer",
    env: "CALQ_MAX_LARGE_BODIES",
    flag: "max-large-bodies",
    value: "N",
    help: "import-sized bodies received at once, each from a verified calendar.admin caller; more are refused before being read",
    default: 2,
  },
  headersTimeoutSeconds: {
    yaml: ["connections", "headers_timeout_seconds"],
    type: "number",
    env: "CALQ_HEADERS_TIMEOUT_SECONDS",
    flag: "headers-timeout-seconds",
    value: "S",
    help: "a connection must send a request's complete headers within this (Envoy's edge advice)",
    default: 10,
  },
  requestTimeoutSeconds: {
    yaml: ["connections", "request_timeout_seconds"],
    type: "number",
    env: "CALQ_REQUEST_TIMEOUT_SECONDS",
    flag: "request-timeout-seconds",
    value: "S",
    help: "a call's request body must arrive within this (Node's requestTimeout)",
    default: 300,
  },
  idleTimeoutSeconds: {
    yaml: ["connections", "idle_timeout_seconds"],
    type: "number",
    env: "CALQ_IDLE_TIMEOUT_SECONDS",
    flag: "idle-timeout-seconds",
    value: "S",
    help: "close a connection with no call in flight for this long",
    default: 60,
  },
  keepaliveIntervalSeconds: {
    yaml: ["connections", "keepalive_interval_seconds"],
    type: "number",
    env: "CALQ_KEEPALIVE_INTERVAL_SECONDS",
    flag: "keepalive-interval-seconds",
    value: "S",
    help: "PING an HTTP/2 connection whose streams are quiet this often; close it if unanswered",
    default: 60,
  },
  maxConnections: {
    yaml: ["connections", "max_total"],
    type: "integer",
    env: "CALQ_MAX_CONNECTIONS",
    flag: "max-connections",
    value: "N",
    help: "connections open at once per port; more are closed on arrival",
    default: 10000,
  },
  maxConnectionsPerAddress: {
    yaml: ["connections", "max_per_address"],
    type: "integer",
    env: "CALQ_MAX_CONNECTIONS_PER_ADDRESS",
    flag: "max-connections-per-address",
    value: "N",
    help: "connections open at once from one remote address",
    default: 512,
  },
  maxConcurrentStreams: {
    yaml: ["connections", "max_concurrent_streams"],
    type: "integer",
    env: "CALQ_MAX_CONCURRENT_STREAMS",
    flag: "max-concurrent-streams",
    value: "N",
    help: "calls open at once on one HTTP/2 connection (Envoy's and gRPC's 100)",
    default: 100,
  },
  maxHeaderListBytes: {
    yaml: ["connections", "max_header_list_bytes"],
    type: "integer",
    env: "CALQ_MAX_HEADER_LIST_BYTES",
    flag: "max-header-list-bytes",
    value: "N",
    help: "largest request header list (Node's 16 KiB)",
    default: 16384,
  },
  maxWatchStreams: {
    yaml: ["health", "max_watch_streams"],
    type: "integer",
    env: "CALQ_MAX_WATCH_STREAMS",
    flag: "max-watch-streams",
    value: "N",
    help: "health Watch streams open at once; more are refused RESOURCE_EXHAUSTED",
    default: 1000,
  },
  maxWatchStreamsPerConnection: {
    yaml: ["health", "max_watch_streams_per_connection"],
    type: "integer",
    env: "CALQ_MAX_WATCH_STREAMS_PER_CONNECTION",
    flag: "max-watch-streams-per-connection",
    value: "N",
    help: "health Watch streams open at once on one connection",
    default: 8,
  },
  logLevel: {
    yaml: ["server", "log_level"],
    type: "string",
    env: "CALQ_LOG_LEVEL",
    flag: "log-level",
    value: "L",
    help: "debug, info, warn or error",
    default: "info",
  },
  shardGroup: {
    yaml: ["shards", "group"],
    type: "string",
    env: "CALQ_SHARD_GROUP",
    flag: "shard-group",
    value: "G",
    help: "the shard group this replica serves, one of shards.groups: it loads only that group's calendars",
  },
  tlsCertFile: {
    yaml: ["tls", "cert_file"],
    type: "string",
    env: "CALQ_TLS_CERT_FILE",
    flag: "tls-cert",
    value: "FILE",
    help: "TLS certificate (PEM); with tls.key_file, the port speaks TLS only",
  },
  tlsKeyFile: {
    yaml: ["tls", "key_file"],
    type: "string",
    env: "CALQ_TLS_KEY_FILE",
    flag: "tls-key",
    value: "FILE",
    help: "TLS private key (PEM)",
  },
  tlsClientCaFile: {
    yaml: ["tls", "client_ca_file"],
    type: "string",
    env: "CALQ_TLS_CLIENT_CA_FILE",
    flag: "tls-client-ca",
    value: "FILE",
    help: "require client certificates signed by this CA (mTLS)",
  },
  principalFromCertificate: {
    yaml: ["tls", "principal_from_certificate"],
    type: "boolean",
    env: "CALQ_TLS_PRINCIPAL_FROM_CERTIFICATE",
    flag: "tls-principal-from-certificate",
    help: "with mTLS, the client certificate's subject CN names the principal",
  },
  adminHost: {
    yaml: ["admin", "host"],
    type: "string",
    env: "CALQ_ADMIN_HOST",
    flag: "admin-host",
    value: "H",
    help: "address of the metrics port",
    default: "127.0.0.1",
  },
  registryEngine: {
    yaml: ["registry", "engine"],
    type: "string",
    env: "CALQ_REGISTRY_ENGINE",
    flag: "registry-engine",
    value: "E",
    help: "where the calendar registry lives: embedded (a journal in the registry folder, for one server) or postgresql (for a fleet)",
    default: "embedded",
  },
  registryUrlEnv: {
    yaml: ["registry", "url_env"],
    type: "string",
    env: "CALQ_REGISTRY_URL_ENV",
    flag: "registry-url-env",
    value: "VAR",
    help: "the environment variable holding the PostgreSQL URL (from a Secret; the URL itself is never a setting)",
    default: "CALQ_REGISTRY_URL",
  },
  registryFolder: {
    yaml: ["registry", "folder"],
    type: "string",
    env: "CALQ_REGISTRY_FOLDER",
    flag: "registry-folder",
    value: "DIR",
    help: "folder of the embedded registry and of this replica's local copy of its group's rows (default DATA/registry)",
  },
  registryPoolSize: {
    yaml: ["registry", "pool_size"],
    type: "integer",
    env: "CALQ_REGISTRY_POOL_SIZE",
    flag: "registry-pool-size",
    value: "N",
    help: "PostgreSQL connections for the registry's reads and writes; its change feed holds one more",
    default: 4,
  },
  adminPort: {
    yaml: ["admin", "port"],
    type: "integer",
    env: "CALQ_ADMIN_PORT",
    flag: "admin-port",
    value: "N",
    help: "serve GET /metrics on this port (off when unset)",
  },
} as const satisfies Record<string, Source>;

/** The flags of `calq serve` that set these settings, for parseArgs. */
export const SETTING_FLAGS: Record<string, { type: "string" | "boolean" }> = Object.fromEntries(
  Object.values(SOURCES).map((source: Source) => [source.flag, { type: source.value === undefined ? "boolean" : "string" }]),
);

/** The environment variables the settings are read from. */
export const SETTING_VARIABLES: readonly string[] = Object.values(SOURCES).map((source: Source) => source.env);

/**
 * Every setting with its calq.yaml key, variable, flag, meaning and default,
 * as `calq serve`'s usage text lists them (and docs/operating.md copies).
 */
export function settingsHelp(): string {
  const column = 36;
  const lines = Object.values(SOURCES).flatMap((source: Source) => {
    const flag = `  --${source.flag}${source.value === undefined ? "" : ` ${source.value}`}`;
    const where = `${source.yaml.join(".")}, ${source.env}`;
    const help = `${" ".repeat(column)}${source.help}${source.default === undefined ? "" : ` (default ${source.default})`}`;
    return flag.length < column ? [flag.padEnd(column) + where, help] : [flag, " ".repeat(column) + where, help];
  });
  return [
    "Each setting is read from calq.yaml, overridden by its CALQ_* variable, overridden by its flag:",
    ...lines,
    "",
    "auth.jwt (issuer, audience, jwks_file, hs256_secret_env, clock_skew_seconds) is read from calq.yaml",
    "only, with no variable or flag; the HS256 secret itself is read from the variable that",
    "auth.jwt.hs256_secret_env names.",
  ].join("\n");
}

/** The three places a setting can come from. */
export interface SettingInputs {
  /** The calq.yaml document (already parsed), or undefined without one. */
  readonly document: unknown;
  /** Folder that relative paths in calq.yaml are read from. */
  readonly baseDirectory: string;
  /** Folder that relative paths from a variable or a flag are read from. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** parseArgs values; absent flags are undefined. */
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
}

/** Merges yaml, environment and flags into checked settings; ConfigError names the source at fault. */
export function resolveServeSettings(inputs: SettingInputs): ServeSettings {
  const root = isRecord(inputs.document) ? inputs.document : {};
  const read = (name: keyof typeof SOURCES): { value: unknown; where: string; fromYaml: boolean } | undefined => {
    const source: Source = SOURCES[name];
    const flag = inputs.flags[source.flag];
    if (flag !== undefined) return { value: flag, where: `--${source.flag}`, fromYaml: false };
    const env = inputs.env[source.env];
    if (env !== undefined && env !== "") return { value: env, where: source.env, fromYaml: false };
    const [section, key] = source.yaml;
    const block = root[section];
    if (block !== undefined && block !== null && !isRecord(block)) throw new ConfigError(`calq.yaml: ${section}: expected a mapping`);
    const value = isRecord(block) ? block[key] : undefined;
    return value === undefined || value === null ? undefined : { value, where: `calq.yaml: ${section}.${key}`, fromYaml: true };
  };
  const text = (name: keyof typeof SOURCES) => {
    const found = read(name);
    if (found === undefined) return undefined;
    if (typeof found.value !== "string" || found.value === "") throw new ConfigError(`${found.where}: expected a non-empty string`);
    return found.value;
  };
  const path = (name: keyof typeof SOURCES) => {
    const found = read(name);
    const value = text(name);
    if (value === undefined || found === undefined) return undefined;
    return isAbsolute(value) ? value : resolve(found.fromYaml ? inputs.baseDirectory : inputs.cwd, value);
  };
  const number = (name: keyof typeof SOURCES, fallback: number, check: (n: number) => boolean, expected: string) => {
    const found = read(name);
    if (found === undefined) return fallback;
    const value = typeof found.value === "string" && found.value.trim() !== "" ? Number(found.value) : found.value;
    if (typeof value !== "number" || !check(value)) throw new ConfigError(`${found.where}: expected ${expected}`);
    return value;
  };
  const flag = (name: keyof typeof SOURCES) => {
    const found = read(name);
    if (found === undefined) return false;
    if (typeof found.value === "boolean") return found.value;
    if (found.value === "true" || found.value === "1") return true;
    if (found.value === "false" || found.value === "0") return false;
    throw new ConfigError(`${found.where}: expected true or false`);
  };
  // A timeout in seconds, kept in milliseconds; zero would mean "close at once", so it is refused.
  const seconds = (name: keyof typeof SOURCES, fallback: number) =>
    number(name, fallback, (n) => n > 0 && Number.isFinite(n), "a positive number of seconds") * 1000;
  const isPort = (n: number) => Number.isInteger(n) && n >= 0 && n <= 65535;
  const isPositiveInteger = (n: number) => Number.isInteger(n) && n > 0;

  const logLevel = text("logLevel") ?? SOURCES.logLevel.default;
  if (!["debug", "info", "warn", "error"].includes(logLevel)) {
    throw new ConfigError(`${read("logLevel")!.where}: expected debug, info, warn or error`);
  }
  const certFile = path("tlsCertFile");
  const keyFile = path("tlsKeyFile");
  if ((certFile === undefined) !== (keyFile === undefined)) throw new ConfigError("tls: cert_file and key_file go together");
  const clientCaFile = path("tlsClientCaFile");
  const principalFromCertificate = flag("principalFromCertificate");
  if (certFile === undefined && (clientCaFile !== undefined || principalFromCertificate)) {
    throw new ConfigError("tls: client certificates need cert_file and key_file");
  }
  if (principalFromCertificate && clientCaFile === undefined) throw new ConfigError("tls: principal_from_certificate needs client_ca_file");
  const adminPort = read("adminPort") === undefined ? undefined : number("adminPort", 0, isPort, "a port number");
  const registryEngine = text("registryEngine") ?? SOURCES.registryEngine.default;
  const engine = REGISTRY_ENGINE_NAMES.find((name) => name === registryEngine);
  if (engine === undefined) throw new ConfigError(`${read("registryEngine")!.where}: expected ${REGISTRY_ENGINE_NAMES.join(" or ")}`);
  const urlEnv = text("registryUrlEnv") ?? SOURCES.registryUrlEnv.default;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(urlEnv))
    throw new ConfigError(`${read("registryUrlEnv")!.where}: expected an environment variable name`);

  return {
    host: text("host") ?? SOURCES.host.default,
    port: number("port", SOURCES.port.default, isPort, "a port number (0 picks a free one)"),
    allowPlaintextNonLoopback: flag("allowPlaintextNonLoopback"),
    tls: certFile === undefined || keyFile === undefined ? undefined : { certFile, keyFile, clientCaFile, principalFromCertificate },
    admin: adminPort === undefined ? undefined : { host: text("adminHost") ?? SOURCES.adminHost.default, port: adminPort },
    shutdownGraceSeconds: number(
      "shutdownGraceSeconds",
      SOURCES.shutdownGraceSeconds.default,
      (n) => n >= 0 && Number.isFinite(n),
      "a number of seconds",
    ),
    maxConcurrentCalls: number("maxConcurrentCalls", SOURCES.maxConcurrentCalls.default, isPositiveInteger, "a positive integer"),
    maxRequestBytes: number("maxRequestBytes", SOURCES.maxRequestBytes.default, isPositiveInteger, "a positive number of bytes"),
    maxLargeBodies: number("maxLargeBodies", SOURCES.maxLargeBodies.default, isPositiveInteger, "a positive integer"),
    connections: {
      headersTimeoutMs: seconds("headersTimeoutSeconds", SOURCES.headersTimeoutSeconds.default),
      requestTimeoutMs: seconds("requestTimeoutSeconds", SOURCES.requestTimeoutSeconds.default),
      idleTimeoutMs: seconds("idleTimeoutSeconds", SOURCES.idleTimeoutSeconds.default),
      keepaliveIntervalMs: seconds("keepaliveIntervalSeconds", SOURCES.keepaliveIntervalSeconds.default),
      maxConnections: number("maxConnections", SOURCES.maxConnections.default, isPositiveInteger, "a positive integer"),
      maxConnectionsPerAddress: number(
        "maxConnectionsPerAddress",
        SOURCES.maxConnectionsPerAddress.default,
        isPositiveInteger,
        "a positive integer",
      ),
      maxConcurrentStreams: number("maxConcurrentStreams", SOURCES.maxConcurrentStreams.default, isPositiveInteger, "a positive integer"),
      maxHeaderListBytes: number("maxHeaderListBytes", SOURCES.maxHeaderListBytes.default, isPositiveInteger, "a positive number of bytes"),
    },
    maxWatchStreams: number("maxWatchStreams", SOURCES.maxWatchStreams.default, isPositiveInteger, "a positive integer"),
    maxWatchStreamsPerConnection: number(
      "maxWatchStreamsPerConnection",
      SOURCES.maxWatchStreamsPerConnection.default,
      isPositiveInteger,
      "a positive integer",
    ),
    logLevel: logLevel as LogLevel,
    jwt: parseJwt(root.auth, inputs.baseDirectory),
    shardGroup: text("shardGroup"),
    registry: {
      engine,
      urlEnv,
      folder: path("registryFolder"),
      poolSize: number("registryPoolSize", SOURCES.registryPoolSize.default, isPositiveInteger, "a positive integer"),
    },
  };
}

/** auth.jwt, from calq.yaml only: it names a key file and an environment variable, never a secret itself. */
function parseJwt(auth: unknown, baseDirectory: string): JwtSettings | undefined {
  if (auth === undefined || auth === null) return undefined;
  if (!isRecord(auth)) throw new ConfigError("calq.yaml: auth: expected a mapping");
  if (auth.jwt === undefined || auth.jwt === null) return undefined;
  if (!isRecord(auth.jwt)) throw new ConfigError("calq.yaml: auth.jwt: expected a mapping");
  const jwt = auth.jwt;
  const string = (key: string, required: boolean) => {
    const value = jwt[key];
    if (value === undefined || value === null) {
      if (required) throw new ConfigError(`calq.yaml: auth.jwt.${key} is required`);
      return undefined;
    }
    if (typeof value !== "string" || value === "") throw new ConfigError(`calq.yaml: auth.jwt.${key}: expected a non-empty string`);
    return value;
  };
  const jwksFile = string("jwks_file", false);
  const hs256SecretEnv = string("hs256_secret_env", false);
  if (jwksFile === undefined && hs256SecretEnv === undefined) {
    throw new ConfigError("calq.yaml: auth.jwt needs jwks_file (RS256/ES256) or hs256_secret_env (HS256), or both");
  }
  const skew = jwt.clock_skew_seconds ?? 30;
  if (typeof skew !== "number" || !(skew >= 0 && skew <= 300)) {
    throw new ConfigError("calq.yaml: auth.jwt.clock_skew_seconds: expected 0 to 300 seconds");
  }
  return {
    issuer: string("issuer", true)!,
    audience: string("audience", true)!,
    jwksFile: jwksFile === undefined ? undefined : resolve(baseDirectory, jwksFile),
    hs256SecretEnv,
    clockSkewSeconds: skew,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Keys whose values are credentials (or digests of them): shown as [redacted]. Keys ending in _env name a variable and are shown. */
const SECRET_KEY = /(^|_)(tokens?|secrets?|passwords?)$/i;

/**
 * What `calq serve --print-config` prints: `document` (calq.yaml, or what
 * stands for it) with the serve sections replaced by the merged settings,
 * and every credential redacted.
 */
export function printableConfig(document: Record<string, unknown>, settings: ServeSettings): Record<string, unknown> {
  const {
    server: _server,
    tls: _tls,
    admin: _admin,
    auth: _auth,
    connections: _connections,
    health: _health,
    registry: _registry,
    shards,
    ...rest
  } = document;
  const { tls, admin, jwt } = settings;
  const groups = isRecord(shards) ? shards.groups : undefined;
  return {
    ...(redact(rest) as Record<string, unknown>),
    server: {
      host: settings.host,
      port: settings.port,
      allow_plaintext_non_loopback: settings.allowPlaintextNonLoopback,
      shutdown_grace_seconds: settings.shutdownGraceSeconds,
      max_concurrent_calls: settings.maxConcurrentCalls,
      max_request_bytes: settings.maxRequestBytes,
      max_large_bodies: settings.maxLargeBodies,
      log_level: settings.logLevel,
    },
    connections: {
      headers_timeout_seconds: settings.connections.headersTimeoutMs / 1000,
      request_timeout_seconds: settings.connections.requestTimeoutMs / 1000,
      idle_timeout_seconds: settings.connections.idleTimeoutMs / 1000,
      keepalive_interval_seconds: settings.connections.keepaliveIntervalMs / 1000,
      max_total: settings.connections.maxConnections,
      max_per_address: settings.connections.maxConnectionsPerAddress,
      max_concurrent_streams: settings.connections.maxConcurrentStreams,
      max_header_list_bytes: settings.connections.maxHeaderListBytes,
    },
    health: {
      max_watch_streams: settings.maxWatchStreams,
      max_watch_streams_per_connection: settings.maxWatchStreamsPerConnection,
    },
    tls: tls && {
      cert_file: tls.certFile,
      key_file: tls.keyFile,
      client_ca_file: tls.clientCaFile,
      principal_from_certificate: tls.principalFromCertificate,
    },
    admin: admin && { host: admin.host, port: admin.port },
    registry: {
      engine: settings.registry.engine,
      url_env: settings.registry.urlEnv,
      folder: settings.registry.folder,
      pool_size: settings.registry.poolSize,
    },
    shards: groups === undefined && settings.shardGroup === undefined ? undefined : { groups, group: settings.shardGroup },
    auth: jwt && {
      jwt: {
        issuer: jwt.issuer,
        audience: jwt.audience,
        jwks_file: jwt.jwksFile,
        hs256_secret_env: jwt.hs256SecretEnv,
        clock_skew_seconds: jwt.clockSkewSeconds,
      },
    },
  };
}

/**
 * A feed URL without its path, query and user info: private calendar
 * addresses (Google's "secret address", Outlook's published links) carry
 * their secret there. Paths to files are shown as they are.
 */
function redactUrl(source: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return source;
  try {
    const url = new URL(source);
    return `${url.protocol}//${url.host}/[redacted]`;
  } catch {
    return "[redacted]";
  }
}

function redact(value: unknown, key = ""): unknown {
  if (SECRET_KEY.test(key)) return Array.isArray(value) ? value.map(() => "[redacted]") : "[redacted]";
  if (key === "source" && typeof value === "string") return redactUrl(value);
  if (Array.isArray(value)) return value.map((item) => redact(item));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redact(item, name)]));
  return value;
}

/** Every setting at its default: what `startServer` uses for an option it is not given. */
export const DEFAULT_SERVE_SETTINGS: ServeSettings = resolveServeSettings({
  document: undefined,
  baseDirectory: "/",
  cwd: "/",
  env: {},
  flags: {},
});

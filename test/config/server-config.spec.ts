import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SERVE_USAGE } from "../../src/cli/usage.js";
import { ConfigError } from "../../src/config/config-model.js";
import {
  printableConfig,
  resolveServeSettings,
  SETTING_FLAGS,
  SETTING_VARIABLES,
  type SettingInputs,
  settingsHelp,
} from "../../src/config/server-config.js";

const settings = (inputs: Partial<SettingInputs>) =>
  resolveServeSettings({ document: undefined, baseDirectory: "/etc/calq", cwd: "/work", env: {}, flags: {}, ...inputs });

describe("serve settings: calq.yaml, then CALQ_* variables, then flags", () => {
  const document = {
    server: { host: "127.0.0.2", port: 6000, max_concurrent_calls: 10, log_level: "warn" },
    admin: { port: 9100 },
  };

  it("defaults to plaintext on 127.0.0.1:50051 with no admin port", () => {
    expect(settings({})).toMatchObject({
      host: "127.0.0.1",
      port: 50051,
      tls: undefined,
      admin: undefined,
      logLevel: "info",
      maxConcurrentCalls: 256,
    });
  });

  it("reads calq.yaml", () => {
    expect(settings({ document })).toMatchObject({
      host: "127.0.0.2",
      port: 6000,
      maxConcurrentCalls: 10,
      logLevel: "warn",
      admin: { host: "127.0.0.1", port: 9100 },
    });
  });

  it("lets an environment variable override calq.yaml, and a flag override both", () => {
    const env = { CALQ_PORT: "7000", CALQ_LOG_LEVEL: "debug", CALQ_ADMIN_PORT: "9200" };
    expect(settings({ document, env })).toMatchObject({ host: "127.0.0.2", port: 7000, logLevel: "debug", admin: { port: 9200 } });
    expect(settings({ document, env, flags: { port: "8000", host: "::1" } })).toMatchObject({ host: "::1", port: 8000, logLevel: "debug" });
  });

  it("holds connections to Envoy's and Node's defaults, and reads each connection setting in seconds", () => {
    expect(settings({})).toMatchObject({
      connections: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 300_000,
        idleTimeoutMs: 60_000,
        keepaliveIntervalMs: 60_000,
        maxConnections: 10_000,
        maxConnectionsPerAddress: 512,
        maxConcurrentStreams: 100,
        maxHeaderListBytes: 16_384,
      },
      maxLargeBodies: 2,
      maxWatchStreams: 1000,
      maxWatchStreamsPerConnection: 8,
    });
    const document = { connections: { headers_timeout_seconds: 2.5, max_per_address: 16 }, health: { max_watch_streams: 5 } };
    expect(settings({ document, env: { CALQ_MAX_CONNECTIONS_PER_ADDRESS: "32" }, flags: { "idle-timeout-seconds": "30" } })).toMatchObject({
      connections: { headersTimeoutMs: 2_500, maxConnectionsPerAddress: 32, idleTimeoutMs: 30_000 },
      maxWatchStreams: 5,
    });
  });

  it("refuses a timeout of zero: it would close every connection at once", () => {
    expect(() => settings({ flags: { "headers-timeout-seconds": "0" } })).toThrow(
      "--headers-timeout-seconds: expected a positive number of seconds",
    );
  });

  it("treats an empty variable as unset", () => {
    expect(settings({ document, env: { CALQ_PORT: "" } }).port).toBe(6000);
  });

  it("reads calq.yaml paths from its folder, and variable or flag paths from the working directory", () => {
    const tlsDocument = { tls: { cert_file: "tls/server.crt", key_file: "/keys/server.key" } };
    expect(settings({ document: tlsDocument }).tls).toEqual({
      certFile: "/etc/calq/tls/server.crt",
      keyFile: "/keys/server.key",
      clientCaFile: undefined,
      principalFromCertificate: false,
    });
    expect(settings({ document: tlsDocument, flags: { "tls-cert": "mine.crt" } }).tls?.certFile).toBe("/work/mine.crt");
  });

  it.each([
    [{ flags: { port: "http" } }, "--port: expected a port number"],
    [{ env: { CALQ_MAX_CONCURRENT_CALLS: "0" } }, "CALQ_MAX_CONCURRENT_CALLS: expected a positive integer"],
    [{ document: { server: { log_level: "loud" } } }, "calq.yaml: server.log_level: expected debug, info, warn or error"],
    [{ document: { tls: { cert_file: "a.crt" } } }, "tls: cert_file and key_file go together"],
    [
      { document: { tls: { cert_file: "a.crt", key_file: "a.key", principal_from_certificate: true } } },
      "principal_from_certificate needs client_ca_file",
    ],
    [{ document: { auth: { jwt: { issuer: "i", audience: "a" } } } }, "auth.jwt needs jwks_file"],
    [{ document: { auth: { jwt: { audience: "a", jwks_file: "k.json" } } } }, "auth.jwt.issuer is required"],
  ] as [Partial<SettingInputs>, string][])("refuses a bad value and names where it came from (%#)", (inputs, message) => {
    expect(() => settings(inputs)).toThrow(ConfigError);
    expect(() => settings(inputs)).toThrow(message);
  });
});

describe("where the calendar registry lives", () => {
  it("is embedded by default, its URL read from CALQ_REGISTRY_URL when PostgreSQL is chosen", () => {
    expect(settings({}).registry).toEqual({ engine: "embedded", urlEnv: "CALQ_REGISTRY_URL", folder: undefined, poolSize: 4 });
  });

  it("reads the engine, the URL's variable, the folder and the pool size like any setting, the folder from calq.yaml's folder", () => {
    const document = { registry: { engine: "postgresql", url_env: "REGISTRY_DATABASE_URL", folder: "registry-copy", pool_size: 2 } };
    expect(settings({ document }).registry).toEqual({
      engine: "postgresql",
      urlEnv: "REGISTRY_DATABASE_URL",
      folder: "/etc/calq/registry-copy",
      poolSize: 2,
    });
    expect(settings({ document, env: { CALQ_REGISTRY_ENGINE: "embedded" }, flags: { "registry-folder": "here" } }).registry).toMatchObject({
      engine: "embedded",
      folder: "/work/here",
    });
  });

  it("refuses an engine it does not know, and a URL variable that is not a variable's name", () => {
    expect(() => settings({ env: { CALQ_REGISTRY_ENGINE: "sqlite" } })).toThrow(
      new ConfigError("CALQ_REGISTRY_ENGINE: expected embedded or postgresql"),
    );
    expect(() => settings({ document: { registry: { url_env: "postgres://calq@db/calq" } } })).toThrow(ConfigError);
  });
});

describe("--print-config", () => {
  it("shows the merged settings and redacts credentials, but not the names of variables holding them", () => {
    const document = {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [{ id: "an", tokens: ["sha256:abcd"] }],
      server: { port: 6000 },
      auth: { jwt: { issuer: "https://id", audience: "calq", hs256_secret_env: "CALQ_JWT_SECRET" } },
    };
    const shown = printableConfig(document, settings({ document, flags: { port: "7000" } }));
    expect(shown).toMatchObject({
      calendars: document.calendars,
      principals: [{ id: "an", tokens: ["[redacted]"] }],
      server: { host: "127.0.0.1", port: 7000, log_level: "info" },
      auth: { jwt: { hs256_secret_env: "CALQ_JWT_SECRET", clock_skew_seconds: 30 } },
    });
    expect(JSON.stringify(shown)).not.toContain("abcd");
  });

  it("shows a feed URL's host only: private calendar links carry their secret in the path or query", () => {
    const document = {
      calendars: [
        { id: "team", source: "https://user:pw@calendar.example.com/ical/private-0f3a9c/basic.ics?key=k123", readers: [] },
        { id: "local", source: "local.ics", readers: [] },
      ],
    };
    const shown = printableConfig(document, settings({ document }));
    expect(shown.calendars).toEqual([
      { id: "team", source: "https://calendar.example.com/[redacted]", readers: [] },
      { id: "local", source: "local.ics", readers: [] },
    ]);
  });
});

describe("the settings' documentation", () => {
  const ROOT = join(import.meta.dirname, "../..");
  /** Every CALQ_* name written in the code that reads serve settings. */
  const variablesRead = ["src/config/server-config.ts", "src/cli/serve-command.ts", "src/server/server.ts"].flatMap((file) =>
    [...readFileSync(join(ROOT, file), "utf8").matchAll(/\bCALQ_[A-Z0-9_]*[A-Z0-9]\b/g)].map((match) => match[0]),
  );

  it("`calq serve`'s usage names every variable the code reads", () => {
    expect(variablesRead).toEqual(expect.arrayContaining(SETTING_VARIABLES as string[]));
    for (const name of new Set(variablesRead)) expect(SERVE_USAGE, name).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it("`calq serve`'s usage names every setting flag with its calq.yaml key and variable", () => {
    for (const flag of Object.keys(SETTING_FLAGS)) expect(SERVE_USAGE).toMatch(new RegExp(`^  --${flag}\\b`, "m"));
    expect(SERVE_USAGE).toMatch(/^ {2}--log-level L +server\.log_level, CALQ_LOG_LEVEL$/m);
    expect(SERVE_USAGE).toMatch(/^ {2}--shutdown-grace-seconds S +server\.shutdown_grace_seconds, CALQ_SHUTDOWN_GRACE_SECONDS$/m);
    expect(SERVE_USAGE).toMatch(
      /^ {2}--tls-principal-from-certificate +tls\.principal_from_certificate, CALQ_TLS_PRINCIPAL_FROM_CERTIFICATE$/m,
    );
    expect(SERVE_USAGE).toContain(
      "auth.jwt (issuer, audience, jwks_file, hs256_secret_env, clock_skew_seconds) is read from calq.yaml\nonly",
    );
  });

  it("docs/operating.md's settings section holds the generated list, word for word", () => {
    const doc = readFileSync(join(ROOT, "docs/operating.md"), "utf8");
    const heading = "## Settings: calq.yaml, then `CALQ_*`, then flags";
    const section = doc.slice(doc.indexOf(heading), doc.indexOf("\n## ", doc.indexOf(heading) + 1));
    expect(section).toContain(`\`\`\`\n${settingsHelp()}\n\`\`\`\n`);
  });
});

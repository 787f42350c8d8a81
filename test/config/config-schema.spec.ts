/**
 * calq.yaml has one schema, closed at every level: a key calq does not read
 * stops the start with the key's path, and the schema, the settings table
 * and the usage text name the same serve settings.
 */
import { describe, expect, it } from "vitest";
import { SERVE_USAGE } from "../../src/cli/usage.js";
import { parseConfig } from "../../src/config/calq-config.js";
import { ConfigError } from "../../src/config/config-model.js";
import { CONFIG_SCHEMA } from "../../src/config/config-schema.js";
import { SOURCES } from "../../src/config/server-config.js";

const valid = () => ({
  calendars: [
    { id: "work", source: "work.ics", timezone: "Asia/Ho_Chi_Minh", readers: ["an"] },
    { id: "team", source: "https://calendar.example/team.ics", headers: { Authorization: { env: "AUTH" } }, readers: [] },
  ],
  principals: [{ id: "an", primary: "work", tokens: [], capabilities: [] }],
  feeds: { max_bytes: 1000 },
  search: { max_window_days: 31 },
  server: { port: 0 },
  tls: {},
  admin: {},
  auth: {},
});

function refusal(document: unknown): string {
  try {
    parseConfig(document, "/srv/calq", "calq.yaml", { AUTH: "Bearer x" });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

/** Puts `key: 1` into the mapping at `path` of a valid document. */
function withUnknownKey(path: readonly (string | number)[], key: string): unknown {
  const document: Record<string, unknown> = valid();
  let at: Record<string | number, unknown> = document;
  for (const step of path) at = at[step] as Record<string | number, unknown>;
  at[key] = 1;
  return document;
}

describe("calq.yaml's schema", () => {
  it("accepts a document that uses every section", () => {
    expect(() => parseConfig(valid(), "/srv/calq", "calq.yaml", { AUTH: "Bearer x" })).not.toThrow();
  });

  it.each([
    [[], "calendar", "calq.yaml: calendar: unknown key"],
    [["calendars", 0], "timzone", "calq.yaml: calendars[0].timzone: unknown key"],
    [["calendars", 1, "headers", "Authorization"], "value", "calq.yaml: calendars[1].headers.Authorization.value: unknown key"],
    [["principals", 0], "capability", "calq.yaml: principals[0].capability: unknown key"],
    [["feeds"], "max_size", "calq.yaml: feeds.max_size: unknown key"],
    [["search"], "max_window", "calq.yaml: search.max_window: unknown key"],
    [["server"], "prot", "calq.yaml: server.prot: unknown key"],
    [["tls"], "cert", "calq.yaml: tls.cert: unknown key"],
    [["admin"], "metrics_port", "calq.yaml: admin.metrics_port: unknown key"],
    [["auth"], "jwks", "calq.yaml: auth.jwks: unknown key"],
  ] as const)("stops the start at an unknown key under %j and names it", (path, key, message) => {
    expect(refusal(withUnknownKey(path, key))).toBe(message);
  });

  it("names every problem at once, each with its path", () => {
    const document = withUnknownKey(["calendars", 0], "timzone") as { server: Record<string, unknown> };
    document.server.port = "fifty";
    expect(refusal(document)).toBe("calq.yaml: calendars[0].timzone: unknown key; server.port: expected an integer");
  });

  it("refuses a missing source with its path", () => {
    const document = valid();
    delete (document.calendars[0] as { source?: string }).source;
    expect(refusal(document)).toBe("calq.yaml: calendars[0].source: required");
  });

  it("allows in the serve sections exactly the keys of the settings table, which the usage text lists", () => {
    const properties = CONFIG_SCHEMA.properties as Record<string, { properties?: Record<string, unknown> }>;
    const sections = new Set(Object.values(SOURCES).map((source) => source.yaml[0]));
    expect([...sections].sort()).toEqual(["admin", "connections", "health", "registry", "server", "shards", "tls"]);
    const inSchema = [...sections].flatMap((section) =>
      Object.keys(properties[section].properties ?? {}).map((key) => `${section}.${key}`),
    );
    const inTable = Object.values(SOURCES).map((source) => source.yaml.join("."));
    // shards.groups is the same for every replica, a list, and read with the calendars: not a setting.
    expect(inSchema.sort()).toEqual([...inTable, "shards.groups"].sort());
    for (const key of inTable) expect(SERVE_USAGE).toContain(` ${key}, CALQ_`);
  });
});

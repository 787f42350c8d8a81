/**
 * The one schema of calq.yaml (JSON Schema, checked with ajv). Every mapping
 * closes its keys (`additionalProperties: false`), so a typo such as
 * `timzone:` stops the start with the path of the key instead of being
 * silently ignored. The serve sections (server, tls, admin) are built from
 * the settings table itself, so a setting cannot be read without being
 * allowed here, or allowed without being read.
 *
 * The schema checks shape and types; the loaders check meaning (ids that
 * exist, durations in range, zones that exist) and say why in their own words.
 */
import { Ajv, type ErrorObject } from "ajv";
import { ConfigError } from "./config-model.js";
import { SOURCES, type Source } from "./server-config.js";

type Schema = Readonly<Record<string, unknown>>;

/** A mapping whose keys are exactly `properties`. */
function closed(properties: Record<string, Schema>, required: readonly string[] = []): Schema {
  return { type: "object", properties, required, additionalProperties: false };
}

const text: Schema = { type: "string", minLength: 1 };
const texts: Schema = { type: "array", items: text };
/** Ids may be written as numbers in YAML (`id: 2026`); the loader reads them as text. */
const id: Schema = { type: ["string", "integer"] };
const duration: Schema = { type: "string", description: "a number and a unit: 500ms, 30s, 5m, 1h" };
const count: Schema = { type: "integer", description: "a positive integer" };
/** A weekday as RFC 5545 (and the registry) writes it. */
const weekday: Schema = { enum: ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] };

/**
 * The server, tls, admin and other sections, one key per row of the settings
 * table, with `extra` keys that are not settings (shards.groups).
 */
function settingSections(extra: Record<string, Record<string, Schema>>): Record<string, Schema> {
  const sections = new Map<string, Record<string, Schema>>(Object.entries(extra).map(([section, keys]) => [section, { ...keys }]));
  for (const source of Object.values(SOURCES) as Source[]) {
    const [section, key] = source.yaml;
    const properties = sections.get(section) ?? {};
    properties[key] = { type: source.type, description: source.help };
    sections.set(section, properties);
  }
  return Object.fromEntries([...sections].map(([section, properties]) => [section, closed(properties)]));
}

/** calq.yaml as a whole. */
export const CONFIG_SCHEMA: Schema = closed({
  calendars: {
    type: "array",
    items: closed(
      {
        id,
        // A path or URL, or a CalDAV collection with where its credentials are.
        source: {
          anyOf: [text, closed({ caldav: text, credentials: closed({ basic_env: text, bearer_env: text }) }, ["caldav"])],
        },
        refresh: duration,
        timezone: text,
        name: text,
        readers: { type: "array", items: id },
        free_busy_readers: { type: "array", items: id },
        shard_key: id,
        headers: {
          type: "object",
          additionalProperties: closed({ env: text }, ["env"]),
        },
      },
      ["id", "source"],
    ),
  },
  principals: {
    type: "array",
    items: closed(
      {
        id,
        primary: text,
        timezone: text,
        // A digest written out, or the variable that holds it (a Kubernetes Secret, say).
        tokens: { type: "array", items: { anyOf: [text, closed({ env: text }, ["env"])] } },
        capabilities: texts,
        working_hours: closed({ days: { type: "array", items: weekday }, start: text, end_exclusive: text }, ["start", "end_exclusive"]),
        week_start: weekday,
        emails: texts,
      },
      ["id"],
    ),
  },
  feeds: closed({
    max_bytes: count,
    fetch_timeout: duration,
    max_components: count,
    max_occurrences_per_series: count,
    max_occurrences_per_feed: count,
    expansion_work: count,
  }),
  search: closed({
    max_window_days: { type: "number" },
    cursor_lifetime_minutes: { type: "number" },
    cursor_key_env: texts,
    work_budget: count,
  }),
  ...settingSections({ shards: { groups: { type: "array", items: id, minItems: 1 } } }),
  auth: closed({
    jwt: closed({
      issuer: text,
      audience: text,
      jwks_file: text,
      hs256_secret_env: text,
      clock_skew_seconds: { type: "number" },
    }),
  }),
});

const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(CONFIG_SCHEMA);

/** `/calendars/0/timzone` as `calendars[0].timzone`. */
function pathOf(pointer: string, extra?: string): string {
  const parts = pointer
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === "" ? part : `${path}.${part}`), "");
}

/**
 * Keys calq once read and reads no more, with what replaced them: a file
 * written for an older calq stops the start with the new key's name rather
 * than with a bare "unknown key".
 */
const REPLACED_KEYS: Readonly<Record<string, string>> = {
  "feeds.expansion_budget": "feeds.expansion_work, a count of rule dates rather than a duration (docs/operating.md)",
  "search.cpu_budget": "search.work_budget, a count of units of work rather than a duration (docs/operating.md)",
};

function describe(error: ErrorObject): string {
  switch (error.keyword) {
    case "additionalProperties": {
      const path = pathOf(error.instancePath, String(error.params.additionalProperty));
      const replacement = REPLACED_KEYS[path];
      return replacement === undefined ? `${path}: unknown key` : `${path}: no longer read; use ${replacement}`;
    }
    case "required":
      return `${pathOf(error.instancePath, String(error.params.missingProperty))}: required`;
    case "type":
      return `${pathOf(error.instancePath) || "(the document)"}: expected ${friendlyType(String(error.params.type))}`;
    default:
      return `${pathOf(error.instancePath) || "(the document)"}: ${error.message ?? "invalid"}`;
  }
}

function friendlyType(type: string): string {
  const names: Record<string, string> = {
    object: "a mapping",
    array: "a list",
    string: "a string",
    integer: "an integer",
    number: "a number",
    boolean: "true or false",
    "string,integer": "a string",
  };
  return names[type] ?? type;
}

/**
 * Throws a ConfigError naming every key of `document` the schema refuses,
 * e.g. `calq.yaml: calendars[0].timzone: unknown key`. An empty document
 * (an empty file) is read as an empty mapping.
 */
export function checkConfigShape(document: unknown, label: string): void {
  if (validate(document ?? {})) return;
  const problems = [...new Set((validate.errors ?? []).map(describe))];
  throw new ConfigError(`${label}: ${problems.join("; ")}`);
}

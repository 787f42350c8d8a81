/**
 * calq.yaml: the calendars, the principals who read them, and the search
 * limits. Loading checks everything up front and fails with one message that
 * names the offending entry, so a bad config never starts a half-working
 * server. Without a calq.yaml, a folder of *.ics files is served to a single
 * development principal (see `directoryConfig`).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import YAML from "yaml";
import { isRequestZone } from "../time/request-window.js";

/** The capability to read the calendars that list one as reader (implied for calq.yaml principals; a JWT scope). */
export const READ = "calendar.read";
/** The capability to read calendars one is not a reader of (audit-logged). */
export const READ_ANY = "calendar.read.any";
/** The capability to see feed state, reload and import (CalendarAdminService; audit-logged). */
export const ADMIN = "calendar.admin";
/** Every capability calq knows; JWT scopes outside it are ignored. */
export const KNOWN_CAPABILITIES: ReadonlySet<string> = new Set([READ, READ_ANY, ADMIN]);

/**
 * A value that must never be printed: logs, errors and JSON see
 * "[redacted]"; only `reveal()` gives the value, at the one place it is sent.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return "[redacted]";
  }
  toJSON(): string {
    return "[redacted]";
  }
}

/** Where a calendar's ICS comes from. */
export type FeedSource =
  | { readonly kind: "file" /** Absolute path. */; readonly path: string }
  | {
      readonly kind: "http";
      readonly url: URL;
      /** Request headers whose values come from environment variables (feed secrets). */
      readonly headers: ReadonlyMap<string, Secret>;
    };

export interface CalendarConfig {
  readonly id: string;
  readonly source: FeedSource;
  /** How often the source is checked for a new version. */
  readonly refreshMs: number;
  /** IANA zone for floating times and all-day days; overrides X-WR-TIMEZONE. */
  readonly timezone?: string;
  readonly name: string;
  /** Principal ids allowed to read the calendar. */
  readonly readers: readonly string[];
}

export interface PrincipalConfig {
  readonly id: string;
  /** The calendar "primary" names for this principal. */
  readonly primary?: string;
  /** Recorded IANA zone preference. */
  readonly timezone?: string;
  /** Lower-case hex SHA-256 digests of the principal's bearer tokens. */
  readonly tokenDigests: readonly string[];
  readonly capabilities: readonly string[];
}

export interface SearchConfig {
  readonly maxWindowDays: number;
  readonly cursorLifetimeMinutes: number;
  /** Environment variables holding cursor signing keys; the first signs. Empty: a random key per process. */
  readonly cursorKeyEnv: readonly string[];
  /** Milliseconds of work one SearchEvents call may do before it answers a partial page. */
  readonly cpuBudgetMs: number;
}

/** Bounds on reading one feed; hitting one is a diagnostic or a failed reload, never a crash. */
export interface FeedLimits {
  /** Bytes of ICS text (after HTTP decompression); a larger feed fails to load. */
  readonly maxBytes: number;
  /** Whole HTTP fetch, body included. */
  readonly fetchTimeoutMs: number;
  /** VEVENTs read per feed; later ones are left out with a diagnostic. */
  readonly maxComponents: number;
  readonly maxOccurrencesPerSeries: number;
  readonly maxOccurrencesPerFeed: number;
  /** Wall-clock time the feed's expansion may take per load. */
  readonly expansionBudgetMs: number;
}

export interface CalqConfig {
  readonly calendars: readonly CalendarConfig[];
  readonly principals: readonly PrincipalConfig[];
  readonly search: SearchConfig;
  readonly feeds: FeedLimits;
}

/** A config that cannot be used; the message names the entry at fault. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

// A second of work answers a week of 10,000 hourly series in one page (about 0.3 s on the benchmark machine).
const DEFAULT_SEARCH: SearchConfig = { maxWindowDays: 366, cursorLifetimeMinutes: 15, cursorKeyEnv: [], cpuBudgetMs: 1_000 };
export const DEFAULT_FEED_LIMITS: FeedLimits = {
  maxBytes: 50 * 1024 * 1024,
  fetchTimeoutMs: 30_000,
  maxComponents: 100_000,
  maxOccurrencesPerSeries: 20_000,
  maxOccurrencesPerFeed: 1_000_000,
  expansionBudgetMs: 2_000,
};
export const DEFAULT_REFRESH_MS = 5 * 60_000;
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Reads DIR/calq.yaml when present, else serves DIR's *.ics to the dev principal. */
export function loadDataDirectory(directory: string, devToken: string | undefined): CalqConfig {
  const configPath = join(directory, "calq.yaml");
  if (existsSync(configPath)) return loadConfigFile(configPath);
  return directoryConfig(directory, devToken);
}

/** Every *.ics in the folder is a calendar (id = file name); principal "dev" reads them all. */
export function directoryConfig(directory: string, devToken: string | undefined): CalqConfig {
  if (devToken === undefined || devToken === "") {
    throw new ConfigError(`${directory} has no calq.yaml: pass --dev-token T (or set CALQ_DEV_TOKEN) to serve its *.ics files`);
  }
  let files: string[];
  try {
    files = readdirSync(directory)
      .filter((file) => file.endsWith(".ics"))
      .sort();
  } catch {
    throw new ConfigError(`cannot read the data folder ${directory}`);
  }
  if (files.length === 0) throw new ConfigError(`${directory} has no calq.yaml and no *.ics files`);
  const calendars = files.map((file) => {
    const id = basename(file, ".ics");
    if (!ID_PATTERN.test(id)) throw new ConfigError(`${file}: the file name is not a usable calendar id`);
    const source: FeedSource = { kind: "file", path: resolve(directory, file) };
    return { id, source, refreshMs: DEFAULT_REFRESH_MS, name: id, readers: ["dev"] };
  });
  return {
    calendars,
    principals: [{ id: "dev", primary: calendars[0].id, tokenDigests: [sha256Hex(devToken)], capabilities: [] }],
    search: DEFAULT_SEARCH,
    feeds: DEFAULT_FEED_LIMITS,
  };
}

/** Loads and checks a calq.yaml. Sources are resolved relative to its folder. */
export function loadConfigFile(path: string): CalqConfig {
  return parseConfig(readConfigDocument(path), resolve(path, ".."), path);
}

/** A calq.yaml as a plain document, for the sections other modules parse (server-config.ts). */
export function readConfigDocument(path: string): unknown {
  try {
    return YAML.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`${path}: not readable YAML (${error instanceof Error ? error.message.split("\n")[0] : error})`);
  }
}

/**
 * Checks a parsed config document. Header secrets are read from `environment`
 * now, so a missing one stops the start instead of failing every fetch.
 */
export function parseConfig(
  document: unknown,
  baseDirectory: string,
  label = "calq.yaml",
  environment: NodeJS.ProcessEnv = process.env,
): CalqConfig {
  const root = record(document, label);
  const calendars = list(root.calendars, `${label}: calendars`).map((entry, i) => {
    const where = `${label}: calendars[${i}]`;
    const item = record(entry, where);
    const id = requiredId(item.id, `${where}.id`);
    const timezone = optionalZone(item.timezone, `${where} (${id}).timezone`);
    return {
      id,
      source: parseSource(item, baseDirectory, `${where} (${id})`, environment),
      refreshMs: item.refresh === undefined ? DEFAULT_REFRESH_MS : duration(item.refresh, `${where} (${id}).refresh`),
      timezone,
      name: optionalString(item.name, `${where} (${id}).name`) ?? id,
      readers: list(item.readers ?? [], `${where} (${id}).readers`).map((reader, j) =>
        requiredId(reader, `${where} (${id}).readers[${j}]`),
      ),
    };
  });
  unique(
    calendars.map((calendar) => calendar.id),
    label,
    "calendar id",
  );
  if (calendars.some((calendar) => calendar.id === "primary")) {
    throw new ConfigError(`${label}: "primary" is reserved and cannot be a calendar id`);
  }
  const calendarIds = new Set(calendars.map((calendar) => calendar.id));

  const principals = list(root.principals ?? [], `${label}: principals`).map((entry, i) => {
    const where = `${label}: principals[${i}]`;
    const item = record(entry, where);
    const id = requiredId(item.id, `${where}.id`);
    const primary = optionalString(item.primary, `${where} (${id}).primary`);
    if (primary !== undefined && !calendarIds.has(primary)) {
      throw new ConfigError(`${where} (${id}).primary: no calendar has id "${primary}"`);
    }
    const tokenDigests = list(item.tokens ?? [], `${where} (${id}).tokens`).map((token, j) => {
      const text = requiredString(token, `${where} (${id}).tokens[${j}]`);
      const match = /^sha256:([0-9a-fA-F]{64})$/.exec(text);
      if (match === null) {
        throw new ConfigError(`${where} (${id}).tokens[${j}]: write tokens as sha256:<64 hex digits> of the bearer token, never in clear`);
      }
      return match[1].toLowerCase();
    });
    const capabilities = list(item.capabilities ?? [], `${where} (${id}).capabilities`).map((capability, j) => {
      const text = requiredString(capability, `${where} (${id}).capabilities[${j}]`);
      if (!KNOWN_CAPABILITIES.has(text)) throw new ConfigError(`${where} (${id}).capabilities[${j}]: unknown capability "${text}"`);
      return text;
    });
    return { id, primary, timezone: optionalZone(item.timezone, `${where} (${id}).timezone`), tokenDigests, capabilities };
  });
  unique(
    principals.map((principal) => principal.id),
    label,
    "principal id",
  );
  unique(
    principals.flatMap((principal) => principal.tokenDigests),
    label,
    "token (two principals share one)",
  );
  const principalIds = new Set(principals.map((principal) => principal.id));
  for (const calendar of calendars) {
    for (const reader of calendar.readers) {
      if (!principalIds.has(reader)) throw new ConfigError(`${label}: calendar ${calendar.id} names unknown reader "${reader}"`);
    }
  }
  return {
    calendars,
    principals,
    search: parseSearch(root.search, `${label}: search`),
    feeds: parseFeedLimits(root.feeds, `${label}: feeds`),
  };
}

/** `source:` is a path (relative to calq.yaml's folder) or an http(s) URL; `headers:` only go with a URL. */
function parseSource(item: Record<string, unknown>, baseDirectory: string, where: string, environment: NodeJS.ProcessEnv): FeedSource {
  const text = requiredString(item.source, `${where}.source`);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    if (item.headers !== undefined) throw new ConfigError(`${where}.headers: only an http(s) source sends headers`);
    return { kind: "file", path: isAbsolute(text) ? text : resolve(baseDirectory, text) };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${where}.source: not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${where}.source: only http and https URLs are read (got ${url.protocol})`);
  }
  if (url.username !== "" || url.password !== "") {
    // fetch refuses such URLs, and the URL would carry the password into every place it is shown.
    throw new ConfigError(
      `${where}.source: the URL holds a user name or password; put the credentials in headers (Authorization: {env: VARIABLE}) instead`,
    );
  }
  const headers = new Map<string, Secret>();
  for (const [name, value] of Object.entries(record(item.headers ?? {}, `${where}.headers`))) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ConfigError(`${where}.headers: "${name}" is not a header name`);
    const from = record(value, `${where}.headers.${name}`);
    const variable = requiredString(from.env, `${where}.headers.${name}.env`);
    const secret = environment[variable];
    if (secret === undefined || secret === "") {
      throw new ConfigError(`${where}.headers.${name}: environment variable ${variable} is not set`);
    }
    // A header value is one line of bytes; the message names the variable, never the value.
    if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(secret) || secret.trim() !== secret) {
      throw new ConfigError(
        `${where}.headers.${name}: environment variable ${variable} is not a valid header value (a line break, a control character, a character above U+00FF, or spaces at either end)`,
      );
    }
    headers.set(name, new Secret(secret));
  }
  return { kind: "http", url, headers };
}

function parseFeedLimits(value: unknown, where: string): FeedLimits {
  if (value === undefined || value === null) return DEFAULT_FEED_LIMITS;
  const item = record(value, where);
  const known = new Set([
    "max_bytes",
    "fetch_timeout",
    "max_components",
    "max_occurrences_per_series",
    "max_occurrences_per_feed",
    "expansion_budget",
  ]);
  for (const key of Object.keys(item)) if (!known.has(key)) throw new ConfigError(`${where}: unknown setting "${key}"`);
  const d = DEFAULT_FEED_LIMITS;
  const count = (key: string, fallback: number) => (item[key] === undefined ? fallback : positiveInteger(item[key], `${where}.${key}`));
  const time = (key: string, fallback: number) => (item[key] === undefined ? fallback : duration(item[key], `${where}.${key}`));
  return {
    maxBytes: count("max_bytes", d.maxBytes),
    fetchTimeoutMs: time("fetch_timeout", d.fetchTimeoutMs),
    maxComponents: count("max_components", d.maxComponents),
    maxOccurrencesPerSeries: count("max_occurrences_per_series", d.maxOccurrencesPerSeries),
    maxOccurrencesPerFeed: count("max_occurrences_per_feed", d.maxOccurrencesPerFeed),
    expansionBudgetMs: time("expansion_budget", d.expansionBudgetMs),
  };
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** The longest duration: 20 days, so a timer (at most 2^31-1 ms, about 24.8 days) holds it with jitter to spare. */
const MAX_DURATION_MS = 480 * 3_600_000;

/** A duration written as a number and a unit: 500ms, 30s, 5m, 1h; from 100ms to 480h. */
function duration(value: unknown, where: string): number {
  const match = typeof value === "string" ? /^(\d+)(ms|s|m|h)$/.exec(value) : null;
  const ms = match === null ? 0 : Number(match[1]) * UNIT_MS[match[2]];
  if (!(ms >= 100 && ms <= MAX_DURATION_MS)) {
    throw new ConfigError(`${where}: expected a duration from 100ms to 480h, such as 30s, 5m or 1h`);
  }
  return ms;
}

function positiveInteger(value: unknown, where: string): number {
  if (!Number.isSafeInteger(value) || (value as number) <= 0) throw new ConfigError(`${where}: expected a positive integer`);
  return value as number;
}

function parseSearch(value: unknown, where: string): SearchConfig {
  if (value === undefined || value === null) return DEFAULT_SEARCH;
  const item = record(value, where);
  const maxWindowDays = positiveNumber(item.max_window_days ?? DEFAULT_SEARCH.maxWindowDays, `${where}.max_window_days`);
  const cursorLifetimeMinutes = positiveNumber(
    item.cursor_lifetime_minutes ?? DEFAULT_SEARCH.cursorLifetimeMinutes,
    `${where}.cursor_lifetime_minutes`,
  );
  const cursorKeyEnv = list(item.cursor_key_env ?? [], `${where}.cursor_key_env`).map((name, i) =>
    requiredString(name, `${where}.cursor_key_env[${i}]`),
  );
  const cpuBudgetMs = item.cpu_budget === undefined ? DEFAULT_SEARCH.cpuBudgetMs : duration(item.cpu_budget, `${where}.cpu_budget`);
  return { maxWindowDays, cursorLifetimeMinutes, cursorKeyEnv, cpuBudgetMs };
}

/** Lower-case hex SHA-256 of a bearer token, as calq.yaml stores it. */
export function sha256Hex(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ConfigError(`${where}: expected a mapping`);
  return value as Record<string, unknown>;
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new ConfigError(`${where}: expected a list`);
  return value;
}

function requiredString(value: unknown, where: string): string {
  if (typeof value !== "string" || value === "") throw new ConfigError(`${where}: expected a non-empty string`);
  return value;
}

function optionalString(value: unknown, where: string): string | undefined {
  return value === undefined || value === null ? undefined : requiredString(value, where);
}

function requiredId(value: unknown, where: string): string {
  const text = requiredString(typeof value === "number" ? String(value) : value, where);
  if (!ID_PATTERN.test(text)) throw new ConfigError(`${where}: "${text}" is not a valid id (letters, digits, '.', '_', '-')`);
  return text;
}

function optionalZone(value: unknown, where: string): string | undefined {
  const text = optionalString(value, where);
  if (text !== undefined && !isRequestZone(text)) {
    throw new ConfigError(`${where}: "${text}" is not an IANA zone name of the form Area/Location (or UTC)`);
  }
  return text;
}

function positiveNumber(value: unknown, where: string): number {
  if (typeof value !== "number" || !(value > 0)) throw new ConfigError(`${where}: expected a positive number`);
  return value;
}

function unique(values: string[], label: string, what: string): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) throw new ConfigError(`${label}: duplicate ${what} "${value}"`);
    seen.add(value);
  }
}

/**
 * Loads calq.yaml into the config model (config-model.ts): the calendars, the
 * principals who read them, and the search and feed limits. The document's
 * shape is checked against the one schema (config-schema.ts) first, then its
 * meaning here; either fails with one message naming the entry at fault, so
 * a bad config never starts a half-working server. Without a calq.yaml, a
 * folder of *.ics files is served to a single development principal (see
 * `directoryConfig`). The environment is passed in, never read from here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import YAML from "yaml";
import { localTimeMinutes } from "../time/civil.js";
import { isRequestZone } from "../time/request-window.js";
import { KNOWN_CAPABILITIES } from "./capabilities.js";
import {
  type CalqConfig,
  ConfigError,
  DEFAULT_FEED_LIMITS,
  DEFAULT_REFRESH_MS,
  DEFAULT_SEARCH,
  type FeedLimits,
  type FeedSource,
  type PrincipalConfig,
  type SearchConfig,
  type ShardsConfig,
  type WeeklyHours,
} from "./config-model.js";
import { checkConfigShape } from "./config-schema.js";
import { Secret, sha256Hex } from "./secret.js";

/** The process environment, or what a test gives instead. */
export type Environment = Readonly<Record<string, string | undefined>>;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A shard key travels in an HTTP header (x-calq-shard-key): an id, or an address such as an@example.com. */
const SHARD_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;

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
export function loadConfigFile(path: string, environment: Environment): CalqConfig {
  return parseConfig(readConfigDocument(path), resolve(path, ".."), path, environment);
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
export function parseConfig(document: unknown, baseDirectory: string, label: string, environment: Environment): CalqConfig {
  checkConfigShape(document, label);
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
      freeBusyReaders: list(item.free_busy_readers ?? [], `${where} (${id}).free_busy_readers`).map((reader, j) =>
        requiredId(reader, `${where} (${id}).free_busy_readers[${j}]`),
      ),
      shardKey: item.shard_key === undefined ? undefined : shardKey(item.shard_key, `${where} (${id}).shard_key`),
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
      const text = tokenDigestText(token, `${where} (${id}).tokens[${j}]`, environment);
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
    return {
      id,
      primary,
      timezone: optionalZone(item.timezone, `${where} (${id}).timezone`),
      tokenDigests,
      capabilities,
      ...personSettings(item, `${where} (${id})`),
    };
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
    for (const reader of calendar.freeBusyReaders) {
      if (!principalIds.has(reader)) throw new ConfigError(`${label}: calendar ${calendar.id} names unknown free/busy reader "${reader}"`);
      if (calendar.readers.includes(reader)) {
        throw new ConfigError(`${label}: calendar ${calendar.id} lists "${reader}" both as reader and as free/busy reader; keep one`);
      }
    }
  }
  return {
    calendars,
    shards: parseShards(root.shards, `${label}: shards`),
    principals,
    search: parseSearch(root.search, `${label}: search`),
    feeds: parseFeedLimits(root.feeds, `${label}: feeds`),
  };
}

/** RFC 5545's weekday names, Monday first: index + 1 is the ISO weekday. */
const WEEKDAY_NAMES = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

/** A local time "HH:MM" as minutes after midnight; "24:00" only as an end. */
function localMinutes(value: unknown, where: string, end: boolean): number {
  const minutes = localTimeMinutes(requiredString(value, where), end);
  if (minutes === undefined) throw new ConfigError(`${where}: expected a local time "HH:MM"${end ? ' (or "24:00")' : ""}`);
  return minutes;
}

/**
 * A principal's person settings (working hours, week start, e-mail
 * addresses), as the registry's people hold them: what meeting times and
 * the participation filter read. Working days default to Monday to Friday.
 */
function personSettings(item: Record<string, unknown>, where: string): Pick<PrincipalConfig, "workingHours" | "weekStart" | "emails"> {
  const settings: { workingHours?: WeeklyHours; weekStart?: number; emails?: string[] } = {};
  if (item.working_hours !== undefined) {
    const hours = record(item.working_hours, `${where}.working_hours`);
    const startMinute = localMinutes(hours.start, `${where}.working_hours.start`, false);
    const endMinute = localMinutes(hours.end_exclusive, `${where}.working_hours.end_exclusive`, true);
    if (endMinute <= startMinute) throw new ConfigError(`${where}.working_hours: end_exclusive must come after start`);
    const days = list(hours.days ?? ["MO", "TU", "WE", "TH", "FR"], `${where}.working_hours.days`).map(
      (day) => WEEKDAY_NAMES.indexOf(String(day)) + 1,
    );
    if (days.length === 0) throw new ConfigError(`${where}.working_hours.days: name at least one day`);
    unique(days.map(String), `${where}.working_hours.days`, "day");
    settings.workingHours = { days, startMinute, endMinute };
  }
  if (item.week_start !== undefined) settings.weekStart = WEEKDAY_NAMES.indexOf(String(item.week_start)) + 1;
  if (item.emails !== undefined) {
    const emails = list(item.emails, `${where}.emails`).map((email, j) => {
      const text = requiredString(email, `${where}.emails[${j}]`).trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+$/.test(text)) throw new ConfigError(`${where}.emails[${j}]: "${text}" is not an e-mail address`);
      return text;
    });
    unique(emails, `${where}.emails`, "address");
    settings.emails = emails;
  }
  return settings;
}

/**
 * `source:` is a path (relative to calq.yaml's folder), an http(s) URL, or
 * `{caldav: URL, credentials: {basic_env: VARIABLE} | {bearer_env: VARIABLE}}`;
 * `headers:` only go with a URL.
 */
function parseSource(item: Record<string, unknown>, baseDirectory: string, where: string, environment: Environment): FeedSource {
  if (typeof item.source === "object" && item.source !== null)
    return parseCalDav(record(item.source, `${where}.source`), item, where, environment);
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
    const secret = fromEnvironment(variable, `${where}.headers.${name}`, environment);
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

/** A CalDAV collection: its URL, and its credentials by the variable that holds them, never written here. */
function parseCalDav(source: Record<string, unknown>, item: Record<string, unknown>, where: string, environment: Environment): FeedSource {
  if (item.headers !== undefined) throw new ConfigError(`${where}.headers: a CalDAV source takes credentials, not headers`);
  const text = requiredString(source.caldav, `${where}.source.caldav`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${where}.source.caldav: not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${where}.source.caldav: only http and https URLs are read (got ${url.protocol})`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(
      `${where}.source.caldav: the URL holds a user name or password; name the variable that holds them in credentials instead`,
    );
  }
  if (source.credentials === undefined) return { kind: "caldav", url };
  const credentials = record(source.credentials, `${where}.source.credentials`);
  const named = (["basic_env", "bearer_env"] as const).filter((key) => credentials[key] !== undefined);
  if (named.length !== 1) throw new ConfigError(`${where}.source.credentials: give exactly one of basic_env or bearer_env`);
  const key = named[0];
  const variable = requiredString(credentials[key], `${where}.source.credentials.${key}`);
  const secret = fromEnvironment(variable, `${where}.source.credentials.${key}`, environment);
  if (key === "basic_env" && !secret.includes(":")) {
    throw new ConfigError(`${where}.source.credentials.basic_env: environment variable ${variable} must hold user:password`);
  }
  return { kind: "caldav", url, credentials: { scheme: key === "basic_env" ? "basic" : "bearer", secret: new Secret(secret) } };
}

/** shards.groups: the names of the replica groups, each once; absent means one group serves everything. */
function parseShards(value: unknown, where: string): ShardsConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const item = record(value, where);
  if (item.groups === undefined) return undefined;
  const groups = list(item.groups, `${where}.groups`).map((group, i) => requiredId(group, `${where}.groups[${i}]`));
  if (groups.length === 0) throw new ConfigError(`${where}.groups: name at least one group`);
  unique(groups, where, "group");
  return { groups };
}

function shardKey(value: unknown, where: string): string {
  const text = requiredString(typeof value === "number" ? String(value) : value, where);
  if (!SHARD_KEY_PATTERN.test(text)) {
    throw new ConfigError(`${where}: "${text}" is not a valid shard key (up to 128 letters, digits, '.', '_', '@', '+', '-')`);
  }
  return text;
}

/** A token digest as calq.yaml writes it, or read from the variable `{env: NAME}` names; a missing variable stops the start. */
function tokenDigestText(token: unknown, where: string, environment: Environment): string {
  if (typeof token !== "object" || token === null) return requiredString(token, where);
  const variable = requiredString((token as Record<string, unknown>).env, `${where}.env`);
  return fromEnvironment(variable, where, environment).trim();
}

/** The value of the environment variable calq.yaml names at `where`; unset or empty stops the start. */
function fromEnvironment(variable: string, where: string, environment: Environment): string {
  const value = environment[variable];
  if (value === undefined || value === "") throw new ConfigError(`${where}: environment variable ${variable} is not set`);
  return value;
}

function parseFeedLimits(value: unknown, where: string): FeedLimits {
  if (value === undefined || value === null) return DEFAULT_FEED_LIMITS;
  const item = record(value, where);
  const d = DEFAULT_FEED_LIMITS;
  const count = (key: string, fallback: number) => (item[key] === undefined ? fallback : positiveInteger(item[key], `${where}.${key}`));
  const time = (key: string, fallback: number) => (item[key] === undefined ? fallback : duration(item[key], `${where}.${key}`));
  return {
    maxBytes: count("max_bytes", d.maxBytes),
    fetchTimeoutMs: time("fetch_timeout", d.fetchTimeoutMs),
    maxComponents: count("max_components", d.maxComponents),
    maxOccurrencesPerSeries: count("max_occurrences_per_series", d.maxOccurrencesPerSeries),
    maxOccurrencesPerFeed: count("max_occurrences_per_feed", d.maxOccurrencesPerFeed),
    expansionWork: count("expansion_work", d.expansionWork),
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
  const workBudget = item.work_budget === undefined ? DEFAULT_SEARCH.workBudget : positiveInteger(item.work_budget, `${where}.work_budget`);
  return { maxWindowDays, cursorLifetimeMinutes, cursorKeyEnv, workBudget };
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

/**
 * calq.yaml: the calendars, the principals who read them, and the search
 * limits. Loading checks everything up front and fails with one message that
 * names the offending entry, so a bad config never starts a half-working
 * server. Without a calq.yaml, a folder of *.ics files is served to a single
 * development principal (see `directoryConfig`).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import YAML from "yaml";
import { isRequestZone } from "../time/request-window.js";

/** The capability to read the calendars that list one as reader (implied for calq.yaml principals; a JWT scope). */
export const READ = "calendar.read";
/** The capability to read calendars one is not a reader of (audit-logged). */
export const READ_ANY = "calendar.read.any";
/** Every capability calq knows; JWT scopes outside it are ignored. */
export const KNOWN_CAPABILITIES: ReadonlySet<string> = new Set([READ, READ_ANY, "calendar.admin"]);

export interface CalendarConfig {
  readonly id: string;
  /** Absolute path of the ICS file. */
  readonly source: string;
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
}

export interface CalqConfig {
  readonly calendars: readonly CalendarConfig[];
  readonly principals: readonly PrincipalConfig[];
  readonly search: SearchConfig;
}

/** A config that cannot be used; the message names the entry at fault. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const DEFAULT_SEARCH: SearchConfig = { maxWindowDays: 366, cursorLifetimeMinutes: 15, cursorKeyEnv: [] };
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
    files = readdirSync(directory).filter((file) => file.endsWith(".ics")).sort();
  } catch {
    throw new ConfigError(`cannot read the data folder ${directory}`);
  }
  if (files.length === 0) throw new ConfigError(`${directory} has no calq.yaml and no *.ics files`);
  const calendars = files.map((file) => {
    const id = basename(file, ".ics");
    if (!ID_PATTERN.test(id)) throw new ConfigError(`${file}: the file name is not a usable calendar id`);
    return { id, source: resolve(directory, file), name: id, readers: ["dev"] };
  });
  return {
    calendars,
    principals: [
      { id: "dev", primary: calendars[0].id, tokenDigests: [sha256Hex(devToken)], capabilities: [] },
    ],
    search: DEFAULT_SEARCH,
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

/** Checks a parsed config document. */
export function parseConfig(document: unknown, baseDirectory: string, label = "calq.yaml"): CalqConfig {
  const root = record(document, label);
  const calendars = list(root.calendars, `${label}: calendars`).map((entry, i) => {
    const where = `${label}: calendars[${i}]`;
    const item = record(entry, where);
    const id = requiredId(item.id, `${where}.id`);
    const source = requiredString(item.source, `${where} (${id}).source`);
    const timezone = optionalZone(item.timezone, `${where} (${id}).timezone`);
    return {
      id,
      source: isAbsolute(source) ? source : resolve(baseDirectory, source),
      timezone,
      name: optionalString(item.name, `${where} (${id}).name`) ?? id,
      readers: list(item.readers ?? [], `${where} (${id}).readers`).map((reader, j) =>
        requiredId(reader, `${where} (${id}).readers[${j}]`),
      ),
    };
  });
  unique(calendars.map((calendar) => calendar.id), label, "calendar id");
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
  unique(principals.map((principal) => principal.id), label, "principal id");
  unique(principals.flatMap((principal) => principal.tokenDigests), label, "token (two principals share one)");
  const principalIds = new Set(principals.map((principal) => principal.id));
  for (const calendar of calendars) {
    for (const reader of calendar.readers) {
      if (!principalIds.has(reader)) throw new ConfigError(`${label}: calendar ${calendar.id} names unknown reader "${reader}"`);
    }
  }
  return { calendars, principals, search: parseSearch(root.search, `${label}: search`) };
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
  return { maxWindowDays, cursorLifetimeMinutes, cursorKeyEnv };
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

/**
 * Checks a calendar or person spec as a whole, before anything is written:
 * every field at fault is reported at once (field path and reason), and a
 * spec with any fault applies nothing. Specs arrive as plain values from the
 * admin API or the command, so unknown fields are refused here too, as
 * calq.yaml's closed schema refuses a misspelt key (src/config/config-schema.ts).
 * The syntax of ids, shard keys, durations and zones is calq.yaml's.
 */
import { isAbsolute } from "node:path";
import { DEFAULT_REFRESH_MS } from "../config/config-model.js";
import { assertNever } from "../exhaustive.js";
import { isRequestZone } from "../time/request-window.js";
import { type FieldViolation, RegistryError } from "./registry-error.js";
import {
  type CalendarSource,
  type CalendarSpec,
  CREDENTIAL_SCHEMES,
  type PersonSpec,
  type SecretHeader,
  type SecretReference,
  SOURCE_KINDS,
  WEEKDAYS,
  type Weekday,
  type WorkingHours,
} from "./registry-records.js";

/** calq.yaml's id syntax (src/config/calq-config.ts): calendar, principal and group ids. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** calq.yaml's shard key syntax: an id, or an address such as an@example.com. */
const SHARD_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;
const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const LOCAL_TIME_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;
const EMAIL_PATTERN = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/** calq.yaml's refresh bounds: 100 ms to 20 days, so a timer holds it. */
const MIN_REFRESH_MS = 100;
const MAX_REFRESH_MS = 480 * 3_600_000;
/** The most principals one list of a calendar may name, so a row stays small. */
export const MAX_READERS = 1_000;
const MAX_NAME_LENGTH = 256;
const MAX_EMAILS = 32;

/** Collects violations while a spec is read; `value` returns undefined for a field at fault. */
class Checker {
  readonly violations: FieldViolation[] = [];

  fault(field: string, description: string): undefined {
    this.violations.push({ field, description });
    return undefined;
  }

  /** A mapping with exactly the allowed keys (others are faults); undefined when not a mapping. */
  mapping(value: unknown, field: string, allowed: readonly string[]): Record<string, unknown> | undefined {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return this.fault(field || "(the spec)", "expected an object");
    }
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!allowed.includes(key)) this.fault(join(field, key), "unknown field");
    }
    return record;
  }

  text(value: unknown, field: string, pattern: RegExp, what: string): string | undefined {
    if (typeof value !== "string" || !pattern.test(value)) {
      return this.fault(field, `${typeof value === "string" ? `"${clip(value)}" is not` : "expected"} ${what}`);
    }
    return value;
  }

  id(value: unknown, field: string): string | undefined {
    return this.text(value, field, ID_PATTERN, "an id (1 to 64 letters, digits, '.', '_', '-', starting with a letter or digit)");
  }

  zone(value: unknown, field: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "string" || !isRequestZone(value)) {
      return this.fault(field, "expected an IANA zone name of the form Area/Location (or UTC), such as Asia/Ho_Chi_Minh");
    }
    return value;
  }

  /** A list of distinct ids; a repeated one is a fault at its second place. */
  ids(value: unknown, field: string): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) return this.fault(field, "expected a list of principal ids") ?? [];
    if (value.length > MAX_READERS) this.fault(field, `at most ${MAX_READERS} principals`);
    const seen = new Set<string>();
    const ids: string[] = [];
    value.forEach((item, i) => {
      const id = this.id(item, `${field}[${i}]`);
      if (id === undefined) return;
      if (seen.has(id)) this.fault(`${field}[${i}]`, `"${id}" is listed twice`);
      seen.add(id);
      ids.push(id);
    });
    return ids;
  }

  secretReference(value: unknown, field: string): SecretReference | undefined {
    const item = this.mapping(value, field, ["env"]);
    if (item === undefined) return undefined;
    const env = this.text(item.env, join(field, "env"), ENV_NAME_PATTERN, "an environment variable name (letters, digits, '_')");
    return env === undefined ? undefined : { env };
  }

  /** An http or https URL without credentials in it. */
  url(value: unknown, field: string): string | undefined {
    if (typeof value !== "string") return this.fault(field, "expected an http or https URL");
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return this.fault(field, "not a valid URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return this.fault(field, `only http and https URLs are read (got ${url.protocol})`);
    }
    if (url.username !== "" || url.password !== "") {
      return this.fault(field, "the URL holds a user name or password: reference the credential as a secret instead");
    }
    return url.href;
  }
}

const join = (field: string, key: string) => (field === "" ? key : `${field}.${key}`);
const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

function checkSource(c: Checker, value: unknown): CalendarSource | undefined {
  const kindOf = typeof value === "object" && value !== null ? (value as Record<string, unknown>).kind : undefined;
  const kind = SOURCE_KINDS.find((known) => known === kindOf);
  if (kind === undefined) {
    if (typeof value !== "object" || value === null) return c.fault("source", "expected an object with a kind");
    return c.fault("source.kind", `expected one of ${SOURCE_KINDS.join(", ")}`);
  }
  switch (kind) {
    case "file": {
      const item = c.mapping(value, "source", ["kind", "path"]);
      if (item === undefined) return undefined;
      if (typeof item.path !== "string" || !isAbsolute(item.path)) return c.fault("source.path", "expected an absolute path");
      return { kind, path: item.path };
    }
    case "http": {
      const item = c.mapping(value, "source", ["kind", "url", "headers"]);
      if (item === undefined) return undefined;
      const url = c.url(item.url, "source.url");
      const headers = checkHeaders(c, item.headers);
      return url === undefined || headers === undefined ? undefined : { kind, url, headers };
    }
    case "caldav": {
      const item = c.mapping(value, "source", ["kind", "collectionUrl", "credential", "scheme"]);
      if (item === undefined) return undefined;
      const collectionUrl = c.url(item.collectionUrl, "source.collectionUrl");
      const credential = c.secretReference(item.credential, "source.credential");
      const scheme = CREDENTIAL_SCHEMES.find((known) => known === item.scheme);
      if (scheme === undefined) c.fault("source.scheme", "expected how the credential is sent: basic or bearer");
      return collectionUrl === undefined || credential === undefined || scheme === undefined
        ? undefined
        : { kind, collectionUrl, credential, scheme };
    }
    default:
      return assertNever(kind, "source kind");
  }
}

function checkHeaders(c: Checker, value: unknown): SecretHeader[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return c.fault("source.headers", "expected a list of {name, value: {env}}");
  const seen = new Set<string>();
  const headers: SecretHeader[] = [];
  let faulty = false;
  value.forEach((entry, i) => {
    const field = `source.headers[${i}]`;
    const item = c.mapping(entry, field, ["name", "value"]);
    const name = item && c.text(item.name, `${field}.name`, HEADER_NAME_PATTERN, "a header name");
    const reference = item && c.secretReference(item.value, `${field}.value`);
    if (name !== undefined && seen.has(name.toLowerCase())) c.fault(`${field}.name`, `header "${name}" is given twice`);
    if (name === undefined || reference === undefined) {
      faulty = true;
      return;
    }
    seen.add(name.toLowerCase());
    headers.push({ name, value: reference });
  });
  return faulty ? undefined : headers;
}

/** Fields of a calendar spec; others are unknown. */
const CALENDAR_FIELDS = ["id", "name", "source", "zone", "refreshMs", "readers", "freeBusyReaders", "shardKey"] as const;

/**
 * The calendar spec in `value`, with defaults filled (name "", refresh 5 min,
 * no readers), or a RegistryError INVALID_SPEC listing every fault.
 */
export function checkCalendarSpec(value: unknown): CalendarSpec {
  const c = new Checker();
  const item = c.mapping(value, "", CALENDAR_FIELDS);
  if (item === undefined) throw invalid("calendar", c.violations);
  const id = c.id(item.id, "id");
  if (id === "primary") c.fault("id", `"primary" is reserved: it names each caller's primary calendar`);
  let name = "";
  if (item.name !== undefined) {
    if (typeof item.name !== "string" || item.name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(item.name)) {
      c.fault("name", `expected text of at most ${MAX_NAME_LENGTH} characters without control characters`);
    } else name = item.name;
  }
  const source = checkSource(c, item.source);
  const zone = c.zone(item.zone, "zone");
  let refreshMs = DEFAULT_REFRESH_MS;
  if (item.refreshMs !== undefined) {
    if (
      !Number.isSafeInteger(item.refreshMs) ||
      (item.refreshMs as number) < MIN_REFRESH_MS ||
      (item.refreshMs as number) > MAX_REFRESH_MS
    ) {
      c.fault("refreshMs", `expected whole milliseconds from ${MIN_REFRESH_MS} (100 ms) to ${MAX_REFRESH_MS} (480 h)`);
    } else refreshMs = item.refreshMs as number;
  }
  const readers = c.ids(item.readers, "readers");
  const freeBusyReaders = c.ids(item.freeBusyReaders, "freeBusyReaders");
  const full = new Set(readers);
  freeBusyReaders.forEach((reader, i) => {
    if (full.has(reader)) c.fault(`freeBusyReaders[${i}]`, `"${reader}" is already a reader, who sees more than busy time`);
  });
  const shardKey =
    item.shardKey === undefined
      ? undefined
      : c.text(item.shardKey, "shardKey", SHARD_KEY_PATTERN, "a shard key (up to 128 letters, digits, '.', '_', '@', '+', '-')");
  if (c.violations.length > 0 || id === undefined || source === undefined) throw invalid(`calendar ${id ?? ""}`.trim(), c.violations);
  return {
    id,
    name,
    source,
    ...(zone === undefined ? {} : { zone }),
    refreshMs,
    readers,
    freeBusyReaders,
    ...(shardKey === undefined ? {} : { shardKey }),
  };
}

const PERSON_FIELDS = ["principalId", "primaryCalendar", "zone", "workingHours", "weekStart", "emails"] as const;

/**
 * The person spec in `value`, with defaults filled (week starting Monday, no
 * e-mail addresses; addresses lower-cased), or a RegistryError INVALID_SPEC.
 */
export function checkPersonSpec(value: unknown): PersonSpec {
  const c = new Checker();
  const item = c.mapping(value, "", PERSON_FIELDS);
  if (item === undefined) throw invalid("person", c.violations);
  const principalId = c.id(item.principalId, "principalId");
  const primaryCalendar = item.primaryCalendar === undefined ? undefined : c.id(item.primaryCalendar, "primaryCalendar");
  if (primaryCalendar === "primary") c.fault("primaryCalendar", `"primary" names the primary calendar itself; give a calendar id`);
  const zone = c.zone(item.zone, "zone");
  const workingHours = item.workingHours === undefined ? undefined : checkWorkingHours(c, item.workingHours);
  const weekStart = item.weekStart === undefined ? "MO" : weekday(c, item.weekStart, "weekStart");
  const emails: string[] = [];
  if (item.emails !== undefined) {
    if (!Array.isArray(item.emails)) c.fault("emails", "expected a list of e-mail addresses");
    else {
      if (item.emails.length > MAX_EMAILS) c.fault("emails", `at most ${MAX_EMAILS} addresses`);
      item.emails.forEach((entry, i) => {
        const address = c.text(entry, `emails[${i}]`, EMAIL_PATTERN, "an e-mail address")?.toLowerCase();
        if (address === undefined) return;
        if (emails.includes(address)) c.fault(`emails[${i}]`, `"${address}" is listed twice`);
        else emails.push(address);
      });
    }
  }
  if (c.violations.length > 0 || principalId === undefined || weekStart === undefined) {
    throw invalid(`person ${principalId ?? ""}`.trim(), c.violations);
  }
  return {
    principalId,
    ...(primaryCalendar === undefined ? {} : { primaryCalendar }),
    ...(zone === undefined ? {} : { zone }),
    ...(workingHours === undefined ? {} : { workingHours }),
    weekStart,
    emails,
  };
}

function weekday(c: Checker, value: unknown, field: string): Weekday | undefined {
  const day = WEEKDAYS.find((known) => known === value);
  return day ?? c.fault(field, `expected one of ${WEEKDAYS.join(", ")}`);
}

function checkWorkingHours(c: Checker, value: unknown): WorkingHours | undefined {
  const item = c.mapping(value, "workingHours", ["days", "start", "endExclusive"]);
  if (item === undefined) return undefined;
  const days: Weekday[] = [];
  if (!Array.isArray(item.days) || item.days.length === 0) c.fault("workingHours.days", "expected a non-empty list of days (MO to SU)");
  else {
    item.days.forEach((entry, i) => {
      const day = weekday(c, entry, `workingHours.days[${i}]`);
      if (day === undefined) return;
      if (days.includes(day)) c.fault(`workingHours.days[${i}]`, `${day} is listed twice`);
      else days.push(day);
    });
  }
  const start = c.text(item.start, "workingHours.start", LOCAL_TIME_PATTERN, 'a local time "HH:MM"');
  const endExclusive = c.text(item.endExclusive, "workingHours.endExclusive", LOCAL_TIME_PATTERN, 'a local time "HH:MM" (up to 24:00)');
  if (start !== undefined && endExclusive !== undefined && endExclusive <= start) {
    c.fault("workingHours.endExclusive", `ends at ${endExclusive}, not after its start ${start}`);
    return undefined;
  }
  if (start === "24:00") return c.fault("workingHours.start", "a day's work cannot start at 24:00");
  return start === undefined || endExclusive === undefined ? undefined : { days: days.sort(byWeekday), start, endExclusive };
}

const byWeekday = (a: Weekday, b: Weekday) => WEEKDAYS.indexOf(a) - WEEKDAYS.indexOf(b);

function invalid(what: string, violations: readonly FieldViolation[]): RegistryError {
  const first = violations[0];
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : "";
  return new RegistryError("INVALID_SPEC", `${what}: ${first.field}: ${first.description}${more}; nothing was applied`, { violations });
}

/** The admin principal of a write, as the audit log records it; INVALID_SPEC when empty. */
export function checkAdmin(by: string): string {
  if (typeof by !== "string" || by === "" || by.length > 256) {
    throw new RegistryError("INVALID_SPEC", "the admin principal of a change is required", {
      violations: [{ field: "by", description: "the admin principal making the change is required" }],
    });
  }
  return by;
}

/**
 * The configuration calq runs with, once read and checked: calendars and
 * their sources, principals, search and feed limits, and their defaults.
 * Loading it (calq-config.ts) and its schema (config-schema.ts) live apart,
 * so the store and the server depend on the model only.
 */
import type { Secret } from "./secret.js";

/** Where a calendar's ICS comes from. */
export type FeedSource =
  | { readonly kind: "file" /** Absolute path. */; readonly path: string }
  | {
      readonly kind: "http";
      readonly url: URL;
      /** Request headers whose values come from environment variables (feed secrets). */
      readonly headers: ReadonlyMap<string, Secret>;
    }
  | {
      readonly kind: "caldav";
      /** The calendar collection's URL. */
      readonly url: URL;
      /** Basic ("user:password") or Bearer credentials, from an environment variable; none for an open server. */
      readonly credentials?: { readonly scheme: "basic" | "bearer"; readonly secret: Secret };
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
  /**
   * Principal ids allowed to see the calendar's busy time only (free/busy,
   * free slots, meeting times), never its events; absent or empty for none.
   * A principal is in `readers` or here, not both.
   */
  readonly freeBusyReaders?: readonly string[];
  /** What picks the calendar's shard group (shard-map.ts: shardKeyOf): calq.yaml's `shard_key`; absent, the id. */
  readonly shardKey?: string;
}

/** When a person works, in their zone: the same local hours on each of `days` (MO to SU). A registry person's setting. */
export interface PrincipalConfig {
  readonly id: string;
  /** The calendar "primary" names for this principal. */
  readonly primary?: string;
  /** Recorded IANA zone preference. */
  readonly timezone?: string;
  /** Lower-case hex SHA-256 digests of the principal's bearer tokens. */
  readonly tokenDigests: readonly string[];
  readonly capabilities: readonly string[];
  /** When they work, in their zone (`timezone`): meeting times read it for the calendar they own. */
  readonly workingHours?: WeeklyHours;
  /** ISO weekday their week starts on, 1 (Monday) to 7 (Sunday); absent: Monday. */
  readonly weekStart?: number;
  /** Their e-mail addresses, lower-cased: how a search finds their own answer (PARTSTAT) to an event. */
  readonly emails?: readonly string[];
}

/** A person's settings in the registry, applied to calls authenticated as them: each one given replaces calq.yaml's. */
export type PersonSettings = Pick<PrincipalConfig, "primary" | "timezone" | "workingHours" | "weekStart" | "emails">;

/** The same local working hours on each listed weekday, as the registry's people and calq.yaml's principals write them. */
export interface WeeklyHours {
  /** ISO weekdays, 1 (Monday) to 7 (Sunday), each once. */
  readonly days: readonly number[];
  /** Minutes after local midnight when work starts, 0 to 1439. */
  readonly startMinute: number;
  /** Minutes after local midnight when it ends, after startMinute; at most 1440 (the day's end). */
  readonly endMinute: number;
}

export interface SearchConfig {
  readonly maxWindowDays: number;
  readonly cursorLifetimeMinutes: number;
  /** Environment variables holding cursor signing keys; the first signs. Empty: a random key per process. */
  readonly cursorKeyEnv: readonly string[];
  /**
   * Work one call may do (rule dates visited and index entries looked at),
   * counted in work, not time, so a busy machine gives the same answer
   * (docs/decisions.md, "Budgets count work"); past it a search answers a
   * partial page.
   */
  readonly workBudget: number;
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
  /** Rule dates one load's expansion may visit; series not finished are expanded per query (same answers). */
  readonly expansionWork: number;
}

/**
 * The shard groups of replicas the calendars are split across (calq.yaml
 * `shards.groups`); each replica serves one (`shards.group`, a serve setting).
 */
export interface ShardsConfig {
  readonly groups: readonly string[];
}

export interface CalqConfig {
  readonly calendars: readonly CalendarConfig[];
  /** Absent: one group of replicas serves every calendar. */
  readonly shards?: ShardsConfig;
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

// 500,000 units answer a year of a 5-minute series searched for a word it never holds (about 105,000 dates).
export const DEFAULT_SEARCH: SearchConfig = { maxWindowDays: 366, cursorLifetimeMinutes: 15, cursorKeyEnv: [], workBudget: 500_000 };
export const DEFAULT_FEED_LIMITS: FeedLimits = {
  maxBytes: 50 * 1024 * 1024,
  fetchTimeoutMs: 30_000,
  maxComponents: 100_000,
  maxOccurrencesPerSeries: 20_000,
  maxOccurrencesPerFeed: 1_000_000,
  expansionWork: 1_000_000,
};
export const DEFAULT_REFRESH_MS = 5 * 60_000;

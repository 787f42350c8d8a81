/**
 * Which shard group of replicas serves each calendar, and which calendars
 * this replica loads (docs/operating.md, "Shard groups").
 *
 * calq computes the group itself, by rendezvous (highest random weight)
 * hashing of the calendar's shard key over the group names, rather than
 * leaving it to the load balancer: nginx, HAProxy and Envoy each hash in
 * their own way, and a replica must know which feeds to load. Every replica
 * reads the whole calq.yaml, so each one knows every calendar's group and
 * the balancer routes on a group name the client sends.
 *
 * Rendezvous hashing: a key goes to the group whose weight
 * SHA-256(group NUL key), read as a 64-bit big-endian number, is highest.
 * Adding a group moves only the keys the new group now wins (about 1/K of
 * them), and removing one moves only that group's keys. Any tool can compute
 * the same placement from the names alone.
 */
import { createHash } from "node:crypto";
import { type CalendarConfig, type CalqConfig, ConfigError } from "./config-model.js";

/** The key that places a calendar: its shard_key, else its id. */
export function shardKeyOf(calendar: Pick<CalendarConfig, "id" | "shardKey">): string {
  return calendar.shardKey ?? calendar.id;
}

/** The group `shardKey` belongs to among `groups` (a non-empty list of distinct names). */
export function rendezvousGroup(shardKey: string, groups: readonly string[]): string {
  let best = groups[0];
  let bestWeight = -1n;
  for (const group of groups) {
    const weight = createHash("sha256").update(group).update("\0").update(shardKey).digest().readBigUInt64BE(0);
    // A tie between two 64-bit weights is all but impossible; the smaller name wins it, so the answer never depends on order.
    if (weight > bestWeight || (weight === bestWeight && group < best)) {
      best = group;
      bestWeight = weight;
    }
  }
  return best;
}

/**
 * Every configured calendar with its shard group, and this replica's share
 * of them. Without `shards.groups` in calq.yaml there is one unnamed group,
 * and every replica serves every calendar.
 */
export class ShardMap {
  private readonly byId: Map<string, CalendarConfig>;
  private readonly groups = new Map<string, string>();

  /**
   * Throws a ConfigError when the groups and this replica's group do not fit
   * together: a group named without the list, the list without this
   * replica's group, or a group the list does not hold.
   */
  constructor(
    config: Pick<CalqConfig, "calendars" | "shards">,
    /** This replica's group: the shard_group setting (shards.group, CALQ_SHARD_GROUP, --shard-group). */
    readonly localGroup: string | undefined,
  ) {
    this.byId = new Map(config.calendars.map((calendar) => [calendar.id, calendar]));
    const groups = config.shards?.groups;
    if (groups === undefined) {
      if (localGroup !== undefined) {
        throw new ConfigError(`this replica's shard group is "${localGroup}", but calq.yaml has no shards.groups to place calendars in`);
      }
      return;
    }
    if (localGroup === undefined) {
      throw new ConfigError(
        `calq.yaml splits the calendars into shard groups (${groups.join(", ")}): name this replica's group with --shard-group, CALQ_SHARD_GROUP or shards.group`,
      );
    }
    if (!groups.includes(localGroup)) {
      throw new ConfigError(`this replica's shard group "${localGroup}" is not one of shards.groups (${groups.join(", ")})`);
    }
    // Calendars sharing a key (one user's) are placed once: a hash per group is the cost of a start with many calendars.
    const byKey = new Map<string, string>();
    for (const calendar of config.calendars) {
      const key = shardKeyOf(calendar);
      let group = byKey.get(key);
      if (group === undefined) {
        group = rendezvousGroup(key, groups);
        byKey.set(key, group);
      }
      this.groups.set(calendar.id, group);
    }
  }

  /**
   * Adds or replaces a calendar placed elsewhere than calq.yaml: a registry
   * calendar, whose group the registry stored when it was written (the one
   * source of its placement, docs/decisions.md, "The calendar registry").
   */
  place(calendar: CalendarConfig, group: string | undefined): void {
    this.byId.set(calendar.id, calendar);
    if (group === undefined) this.groups.delete(calendar.id);
    else this.groups.set(calendar.id, group);
  }

  /** Forgets a calendar `place` added (deleted, or moved out of what this replica follows). */
  unplace(calendarId: string): void {
    this.byId.delete(calendarId);
    this.groups.delete(calendarId);
  }

  /** True when the calendars are split across groups. */
  get sharded(): boolean {
    return this.localGroup !== undefined;
  }

  /** A configured calendar by id, whichever group serves it. */
  calendar(id: string): CalendarConfig | undefined {
    return this.byId.get(id);
  }

  /** Every configured calendar, in calq.yaml's order. */
  calendars(): CalendarConfig[] {
    return [...this.byId.values()];
  }

  /** The group serving the calendar; undefined when not split into groups. */
  groupOf(calendar: Pick<CalendarConfig, "id">): string | undefined {
    return this.groups.get(calendar.id);
  }

  /** True when this replica serves the calendar. */
  isLocal(calendar: CalendarConfig): boolean {
    return this.groupOf(calendar) === this.localGroup;
  }

  /** The calendars this replica loads, polls and serves. */
  localCalendars(): CalendarConfig[] {
    return this.calendars().filter((calendar) => this.isLocal(calendar));
  }
}

/**
 * Fifty people's calendars for the free/busy benchmark: each a
 * generate-feed calendar with its own seed, 1,000 single meetings over two
 * years and 12 recurring series (America/New_York, 07:00 to 20:00), about
 * 30 meetings in a week, a fifth of the single meetings tentative. They sit
 * in a CalendarStore as a reload leaves them (built in the ingest workers,
 * unpacked on first use), readable by one principal, so QueryFreeBusy and
 * FindFreeSlots run their whole handler.
 */
import { READ } from "../src/config/capabilities.js";
import { type CalendarConfig, DEFAULT_FEED_LIMITS, type PrincipalConfig } from "../src/config/config-model.js";
import { ShardMap } from "../src/config/shard-map.js";
import { ingestFeed } from "../src/ingest/ingest.js";
import { CalendarStore, defaultLimits } from "../src/store/calendar-store.js";
import { generateFeed } from "./generate-feed.js";

export const TEAM_SIZE = 50;

/** The team's calendars in a store, who may read them, and their ids. */
export interface Team {
  readonly store: CalendarStore;
  /** The calendars as calq.yaml would place them: one group, this process. */
  readonly shards: ShardMap;
  readonly principal: PrincipalConfig;
  readonly calendarIds: string[];
}

/** One person's feed: generate-feed's meetings, every single meeting whose number ends in 0 or 5 tentative. */
export function personFeed(now: number, seed: number): string {
  return generateFeed(now, { singles: 1_000, series: 12 }, seed).replace(/(SUMMARY:Meeting \d*[05])\r\n/g, "$1\r\nSTATUS:TENTATIVE\r\n");
}

/** Builds the fifty calendars around `now` (a few seconds) and installs them. */
export async function team(now: number): Promise<Team> {
  const calendarIds = Array.from({ length: TEAM_SIZE }, (_, i) => `person-${i}`);
  const principal: PrincipalConfig = { id: "bench", tokenDigests: [], capabilities: [READ] };
  const configs: CalendarConfig[] = calendarIds.map((id) => ({
    id,
    name: id,
    readers: [principal.id],
    refreshMs: 3_600_000,
    source: { kind: "file", path: `${id}.ics` },
  }));
  const store = new CalendarStore(configs, { retentionMs: 0 });
  // As a reload builds them: in the ingest workers, each snapshot handed back packed.
  await Promise.all(
    configs.map((config, i) =>
      store.install(config.id, async () => ({
        snapshot: await ingestFeed(Buffer.from(personFeed(now, 1_000 + i)), config, DEFAULT_FEED_LIMITS, defaultLimits(now), now),
      })),
    ),
  );
  return { store, shards: new ShardMap({ calendars: configs }, undefined), principal, calendarIds };
}

/**
 * Shard groups: rendezvous hashing of each calendar's shard key over the
 * group names decides which replicas load it, so the placement must be
 * stable (it decides where data lives), spread evenly, move little when a
 * group is added, and the configuration must say which group a replica is.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/calq-config.js";
import { ConfigError } from "../../src/config/config-model.js";
import { rendezvousGroup, ShardMap } from "../../src/config/shard-map.js";

const keys = Array.from({ length: 10_000 }, (_, i) => `calendar-${i}`);

function countBy(groups: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) {
    const group = rendezvousGroup(key, groups);
    counts.set(group, (counts.get(group) ?? 0) + 1);
  }
  return counts;
}

/** A calq.yaml with calendars a, b, c (b and c share the shard key "user-binh") in groups g1, g2. */
function sharded(shards: unknown = { groups: ["g1", "g2"] }) {
  return parseConfig(
    {
      shards,
      calendars: [
        { id: "a", source: "a.ics", readers: ["an"] },
        { id: "b", source: "b.ics", readers: ["an"], shard_key: "user-binh" },
        { id: "c", source: "c.ics", readers: ["an"], shard_key: "user-binh" },
      ],
      principals: [{ id: "an" }],
    },
    "/srv/calq",
    "calq.yaml",
    {},
  );
}

function refusal(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("rendezvous hashing of shard keys over groups", () => {
  it("places keys as SHA-256(group NUL key) says, so a change of hash cannot move calendars unnoticed", () => {
    // Pinned: the highest first 64 bits of SHA-256("g1\0work") and SHA-256("g2\0work") decide.
    // Checked with coreutils: printf 'g1\0work' | sha256sum, and so on.
    expect(["work", "team", "an@example.com", "user-binh"].map((key) => rendezvousGroup(key, ["g1", "g2"]))).toEqual([
      "g1",
      "g1",
      "g1",
      "g2",
    ]);
  });

  it("does not depend on the order the groups are listed in", () => {
    for (const key of keys.slice(0, 500)) {
      expect(rendezvousGroup(key, ["g1", "g2", "g3"])).toBe(rendezvousGroup(key, ["g3", "g1", "g2"]));
    }
  });

  it("spreads 10,000 keys within 2 points of an even share over four groups", () => {
    const counts = countBy(["g1", "g2", "g3", "g4"]);
    for (const group of ["g1", "g2", "g3", "g4"]) expect(Math.abs(counts.get(group)! / keys.length - 0.25)).toBeLessThan(0.02);
  });

  it("moves only the keys the new group wins when a group is added: about a quarter going from three groups to four", () => {
    let moved = 0;
    for (const key of keys) {
      const before = rendezvousGroup(key, ["g1", "g2", "g3"]);
      const after = rendezvousGroup(key, ["g1", "g2", "g3", "g4"]);
      if (before !== after) {
        expect(after).toBe("g4");
        moved++;
      }
    }
    expect(moved / keys.length).toBeGreaterThan(0.22);
    expect(moved / keys.length).toBeLessThan(0.28);
  });
});

describe("ShardMap", () => {
  it("serves every calendar from one unnamed group when calq.yaml names no groups", () => {
    const config = parseConfig({ calendars: [{ id: "a", source: "a.ics" }], principals: [] }, "/srv/calq", "calq.yaml", {});
    const shards = new ShardMap(config, undefined);
    expect(shards.sharded).toBe(false);
    expect(shards.localCalendars().map((calendar) => calendar.id)).toEqual(["a"]);
    expect(shards.groupOf(config.calendars[0])).toBeUndefined();
  });

  it("gives calendars that share a shard key one group, and each replica only its group's calendars", () => {
    const config = sharded();
    const g1 = new ShardMap(config, "g1");
    const g2 = new ShardMap(config, "g2");
    const [, b, c] = config.calendars;
    expect(g1.groupOf(b)).toBe(g1.groupOf(c));
    expect(g1.groupOf(b)).toBe(rendezvousGroup("user-binh", ["g1", "g2"]));
    const local = [...g1.localCalendars(), ...g2.localCalendars()].map((calendar) => calendar.id).sort();
    expect(local).toEqual(["a", "b", "c"]);
    for (const calendar of g1.localCalendars()) expect(g2.isLocal(calendar)).toBe(false);
    // Every replica still knows every calendar, to check access and to say where a calendar lives.
    expect(g2.calendars().map((calendar) => calendar.id)).toEqual(["a", "b", "c"]);
  });

  it("refuses a replica without a group when calq.yaml names groups, and a group the list does not hold", () => {
    expect(refusal(() => new ShardMap(sharded(), undefined))).toMatch(/name this replica's group with --shard-group, CALQ_SHARD_GROUP/);
    expect(refusal(() => new ShardMap(sharded(), "g3"))).toBe(`this replica's shard group "g3" is not one of shards.groups (g1, g2)`);
    expect(refusal(() => new ShardMap(sharded({ group: "g1" }), "g1"))).toMatch(/calq.yaml has no shards.groups/);
  });
});

describe("calq.yaml's shards and shard_key", () => {
  it("defaults a calendar's shard key to its id", () => {
    expect(sharded().calendars.map((calendar) => calendar.shardKey)).toEqual([undefined, "user-binh", "user-binh"]);
  });

  it("refuses an empty or repeated group list and a shard key that could not travel in a header", () => {
    expect(refusal(() => sharded({ groups: [] }))).toMatch(/shards.groups/);
    expect(refusal(() => sharded({ groups: ["g1", "g1"] }))).toBe(`calq.yaml: shards: duplicate group "g1"`);
    const withKey = (shard_key: string) =>
      parseConfig({ calendars: [{ id: "a", source: "a.ics", shard_key }], principals: [] }, "/srv/calq", "calq.yaml", {});
    expect(refusal(() => withKey("an owner"))).toMatch(/calendars\[0\] \(a\).shard_key: "an owner" is not a valid shard key/);
    expect(withKey("an@example.com").calendars[0].shardKey).toBe("an@example.com");
  });

  it("refuses an unknown key under shards", () => {
    expect(refusal(() => sharded({ groups: ["g1"], grups: 1 }))).toBe("calq.yaml: shards.grups: unknown key");
  });
});

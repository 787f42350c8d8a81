/**
 * The store while serving takes calendars that come and go (a registry's
 * changes): an added calendar loads on its first reload; a replace that
 * keeps the feed changes the configuration at once, and one that changes
 * the source or zone reads the feed whole again, even when the bytes are
 * the same; a removed calendar is let go, snapshots and all, and a read
 * that was running when it went finishes into nothing. The refresh
 * scheduler follows the same changes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CalendarConfig } from "../../src/config/config-model.js";
import { ShardMap } from "../../src/config/shard-map.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import { CalendarStore } from "../../src/store/calendar-store.js";
import { RefreshScheduler } from "../../src/store/refresh-scheduler.js";
import { ics, vevent } from "../support/feeds.js";

const MINUTE = 60_000;
let dir: string;
let loaded: Snapshot[];

const feed = (summary: string) => ics(...vevent("UID:e", "DTSTART;VALUE=DATE:20261002", `SUMMARY:${summary}`));

function calendar(id: string, file: string, extra: Partial<CalendarConfig> = {}): CalendarConfig {
  return { id, source: { kind: "file", path: join(dir, file) }, refreshMs: MINUTE, name: id, readers: ["an"], ...extra };
}

function store(calendars: CalendarConfig[] = []): CalendarStore {
  return new CalendarStore(calendars, { retentionMs: 15 * MINUTE, onLoaded: (snapshot) => loaded.push(snapshot) });
}

const summary = (calendars: CalendarStore, id: string) => calendars.view(id)?.snapshot?.index.items[0]?.details.summary;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "calq-live-store-"));
  loaded = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a store taking calendars while serving", () => {
  it("serves an added calendar from its first reload, and refuses to add one it already serves", async () => {
    writeFileSync(join(dir, "team.ics"), feed("Team"));
    const calendars = store();
    calendars.add(calendar("team", "team.ics"));
    expect(calendars.view("team")?.snapshot).toBeUndefined();
    expect(await calendars.reload("team")).toMatchObject({ outcome: "loaded" });
    expect(summary(calendars, "team")).toBe("Team");
    expect(() => calendars.add(calendar("team", "team.ics"))).toThrow(/already served/);
  });

  it("takes new readers and a new name at once, without reading the feed again", async () => {
    writeFileSync(join(dir, "team.ics"), feed("Team"));
    const calendars = store([calendar("team", "team.ics")]);
    await calendars.reload("team");
    const before = calendars.view("team")!.snapshot;
    expect(calendars.replace(calendar("team", "team.ics", { readers: ["binh"], name: "Team room" }))).toBe(false);
    expect(calendars.view("team")).toMatchObject({ config: { readers: ["binh"], name: "Team room" } });
    expect(calendars.view("team")!.snapshot).toBe(before);
  });

  it("reads the feed whole again after a new zone, even when its bytes are unchanged", async () => {
    writeFileSync(join(dir, "team.ics"), feed("Team"));
    const calendars = store([calendar("team", "team.ics", { timezone: "Asia/Ho_Chi_Minh" })]);
    await calendars.reload("team");
    const before = calendars.view("team")!.snapshot!;
    expect(calendars.replace(calendar("team", "team.ics", { timezone: "America/New_York" }))).toBe(true);
    expect(await calendars.reload("team")).toMatchObject({ outcome: "loaded" });
    const after = calendars.view("team")!.snapshot!;
    expect(after.zone.name).toBe("America/New_York");
    expect(after.id).not.toBe(before.id);
    // The snapshot read before stays readable, so a cursor on it finishes.
    expect(calendars.snapshot("team", before.id)).toBe(before);
  });

  it("reads a new source after the change", async () => {
    writeFileSync(join(dir, "team.ics"), feed("Team"));
    writeFileSync(join(dir, "moved.ics"), feed("Moved"));
    const calendars = store([calendar("team", "team.ics")]);
    await calendars.reload("team");
    expect(calendars.replace(calendar("team", "moved.ics"))).toBe(true);
    await calendars.reload("team");
    expect(summary(calendars, "team")).toBe("Moved");
  });

  it("lets a removed calendar go with every snapshot it held", async () => {
    writeFileSync(join(dir, "team.ics"), feed("Team v1"));
    const calendars = store([calendar("team", "team.ics")]);
    await calendars.reload("team");
    const first = calendars.view("team")!.snapshot!;
    writeFileSync(join(dir, "team.ics"), feed("Team v2"));
    await calendars.reload("team");
    const second = calendars.view("team")!.snapshot!;
    expect(calendars.remove("team")).toBe(true);
    expect(calendars.view("team")).toBeUndefined();
    expect(calendars.snapshot("team", first.id)).toBeUndefined();
    expect(calendars.snapshot("team", second.id)).toBeUndefined();
    expect(calendars.views()).toEqual([]);
    expect(calendars.remove("team")).toBe(false);
  });

  it("finishes a read running when its calendar is removed into nothing: no snapshot served, none reported", async () => {
    writeFileSync(join(dir, "team.ics"), feed("Team"));
    const calendars = store([calendar("team", "team.ics")]);
    const running = calendars.reload("team");
    calendars.remove("team");
    expect(await running).toMatchObject({ outcome: "unchanged" });
    expect(loaded).toEqual([]);
    expect(calendars.view("team")).toBeUndefined();
  });

  it("serves a calendar again under a removed one's id, from a fresh start", async () => {
    writeFileSync(join(dir, "team.ics"), feed("Team"));
    const calendars = store([calendar("team", "team.ics")]);
    await calendars.reload("team");
    calendars.remove("team");
    calendars.add(calendar("team", "team.ics"));
    expect(calendars.view("team")?.snapshot).toBeUndefined();
    await calendars.reload("team");
    expect(summary(calendars, "team")).toBe("Team");
  });
});

describe("the refresh scheduler and the shard map taking calendars while serving", () => {
  it("polls an added calendar on its interval, and a removed one no more", async () => {
    vi.useFakeTimers();
    try {
      const calendars = store([calendar("team", "team.ics", { refreshMs: 1_000 })]);
      const reloads = vi.spyOn(calendars, "reload").mockResolvedValue({ outcome: "unchanged" });
      const scheduler = new RefreshScheduler(calendars, [], () => 0.5);
      scheduler.start();
      scheduler.add(calendar("team", "team.ics", { refreshMs: 1_000 }));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(reloads).toHaveBeenCalledWith("team");
      scheduler.remove("team");
      reloads.mockClear();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(reloads).not.toHaveBeenCalled();
      scheduler.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it("places a registry calendar in the group the registry stored, and forgets it when told", () => {
    const shards = new ShardMap({ calendars: [], shards: { groups: ["g1", "g2"] } }, "g1");
    const team = calendar("team", "team.ics");
    shards.place(team, "g2");
    expect(shards.calendar("team")).toBe(team);
    expect(shards.groupOf(team)).toBe("g2");
    expect(shards.isLocal(team)).toBe(false);
    shards.place(team, "g1");
    expect(shards.localCalendars()).toEqual([team]);
    shards.unplace("team");
    expect(shards.calendar("team")).toBeUndefined();
    expect(shards.groupOf(team)).toBeUndefined();
  });
});

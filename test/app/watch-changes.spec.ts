/**
 * WatchChanges' use case with a slow reader: snapshots served while the
 * reader takes no notice merge into one notice per calendar, counted from
 * the last notice it took, so what a slow reader costs the server is one
 * pending notice per calendar, however many snapshots pass.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Call, Principal } from "../../src/app/call.js";
import { listChanges, WatchPlaces, watchChanges } from "../../src/app/changes.js";
import { Turns } from "../../src/app/turns.js";
import { ShardMap } from "../../src/config/shard-map.js";
import { ChangeTokenCodec } from "../../src/search/change-token.js";
import { CalendarStore } from "../../src/store/calendar-store.js";
import { ics, vevent } from "../support/feeds.js";

const dir = mkdtempSync(join(tmpdir(), "calq-watch-"));
const path = join(dir, "work.ics");
const event = (uid: string, day: number) =>
  vevent(`UID:${uid}`, `DTSTART:202612${String(day).padStart(2, "0")}T090000Z`, "DURATION:PT1H", `SUMMARY:${uid}`);
const write = (...events: string[][]) => writeFileSync(path, ics("X-WR-TIMEZONE:UTC", ...events.flat()));
const work = { id: "work", source: { kind: "file" as const, path }, refreshMs: 300_000, name: "work", readers: ["an"] };
const an: Principal = { id: "an", tokenDigests: [], capabilities: ["calendar.read"] };
const turns = new Turns();
const call: Call = { principal: an, interrupted: () => false, run: (steps) => turns.run(an.id, steps) };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a watch whose reader is slow", () => {
  it("merges the snapshots it has not taken into one notice, counted from the last it took", async () => {
    write(event("review", 1));
    const store = new CalendarStore([work], { retentionMs: 900_000 });
    await store.loadAll();
    const access = { store, shards: new ShardMap({ calendars: [work] }, undefined), log: () => {} };
    const left = new AbortController();
    const watch = watchChanges({ access, places: new WatchPlaces(), draining: new AbortController().signal }, call, ["work"], left.signal);
    expect((await watch.next()).value).toMatchObject({ calendarId: "work", added: 0 });
    // Three snapshots pass while the reader takes nothing.
    for (const events of [
      [event("lunch", 2)],
      [event("lunch", 2), event("standup", 3)],
      [event("lunch", 2), event("standup", 3), event("review", 1)],
    ]) {
      write(...events);
      await store.reload("work");
    }
    const merged = (await watch.next()).value;
    // The review went and came back: only lunch and the stand-up were added.
    expect(merged).toMatchObject({ calendarId: "work", added: 2, changed: 0, removed: 0, snapshot: store.view("work")?.snapshot });
    left.abort();
    expect((await watch.next()).done).toBe(true);
  });
});

describe("a calendar removed while followed", () => {
  async function served() {
    write(event("review", 1));
    const store = new CalendarStore([work], { retentionMs: 900_000 });
    await store.loadAll();
    const shards = new ShardMap({ calendars: [work] }, undefined);
    // A registry calendar: removing it takes it out of the placement as well as the store.
    const remove = () => {
      shards.unplace("work");
      store.remove("work");
    };
    return { access: { store, shards, log: () => {} }, remove };
  }

  it("ends a watch of it with CALENDAR_REMOVED, naming it", async () => {
    const { access, remove } = await served();
    const watch = watchChanges(
      { access, places: new WatchPlaces(), draining: new AbortController().signal },
      call,
      ["work"],
      new AbortController().signal,
    );
    await watch.next();
    const next = watch.next();
    remove();
    await expect(next).rejects.toMatchObject({ reason: "CALENDAR_REMOVED", metadata: { calendar_id: "work" } });
  });

  it("tells the holder of a change token that it was removed, and anyone else only that it is not accessible", async () => {
    const { access, remove } = await served();
    const tokens = new ChangeTokenCodec([{ id: "k", secret: new Uint8Array(32).fill(1) }]);
    const args = { calendarIds: ["work"], pageSize: 100, pageToken: "" };
    const { changeToken } = await listChanges({ access, tokens }, call, { ...args, changeToken: "" });
    remove();
    await expect(listChanges({ access, tokens }, call, { ...args, changeToken })).rejects.toMatchObject({ reason: "CALENDAR_REMOVED" });
    // A token of another caller proves nothing: the refusal is the one for any unknown calendar.
    const binh: Call = { ...call, principal: { ...an, id: "binh" } };
    await expect(listChanges({ access, tokens }, binh, { ...args, changeToken })).rejects.toMatchObject({
      reason: "CALENDAR_NOT_ACCESSIBLE",
    });
  });
});

/**
 * Every method honours the caller's deadline the same way, through the use
 * case layer: given a call whose deadline cannot be met, each stops at its
 * first step and says so in its answer, never answering as if complete.
 * Run on the demo calendar, in process (the transports map these answers to
 * partial pages, `partial_reason`, `complete_until` and refusals).
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Call, Principal } from "../../src/app/call.js";
import { findFreeSlots, queryFreeBusy } from "../../src/app/free-busy.js";
import { getEvent } from "../../src/app/get-event.js";
import { searchEvents, searchEventsAcrossCalendars } from "../../src/app/search-events.js";
import { Turns } from "../../src/app/turns.js";
import type { CalendarConfig } from "../../src/config/config-model.js";
import { ShardMap } from "../../src/config/shard-map.js";
import { CursorCodec } from "../../src/search/cursor.js";
import { CalendarStore } from "../../src/store/calendar-store.js";

const work: CalendarConfig = {
  id: "work",
  source: { kind: "file", path: join(process.cwd(), "data", "work.ics") },
  refreshMs: 300_000,
  name: "work",
  readers: ["an"],
  timezone: "Asia/Ho_Chi_Minh",
};
const an: Principal = { id: "an", primary: "work", tokenDigests: [], capabilities: ["calendar.read"] };
const store = new CalendarStore([work], { retentionMs: 900_000 });
const access = { store, shards: new ShardMap({ calendars: [work] }, undefined), log: () => {} };
const turns = new Turns();

/** A call whose deadline passed before its work could start. */
const late: Call = { principal: an, interrupted: () => true, run: (steps) => turns.run(an.id, steps) };
const window = { start: "2026-10-02", endExclusive: "2026-10-03", timezone: "Asia/Ho_Chi_Minh" };
const searchDeps = {
  access,
  cursors: new CursorCodec([{ id: "k", secret: new Uint8Array(32) }], 900_000),
  maxWindowMs: 366 * 86_400_000,
  log: () => {},
  now: () => Date.UTC(2026, 9, 1),
  workBudget: 500_000,
  modeNames: "MATCH_MODE_OVERLAP or MATCH_MODE_START_WITHIN",
};
const search = { ...window, mode: "overlap" as const, limit: 10, cursor: "", textQuery: "" };

beforeAll(() => store.loadAll());

describe("a call whose deadline cannot be met", () => {
  it("SearchEvents answers a partial page marked deadline, or refuses before its first match", async () => {
    const answer = await searchEvents(searchDeps, late, "work", search).catch((error: unknown) => error);
    if (answer instanceof Error) expect(answer).toMatchObject({ reason: "WORK_BUDGET_EXHAUSTED" });
    else expect((answer as Awaited<ReturnType<typeof searchEvents>>).page.partial).toBe("deadline");
  });

  it("SearchEventsAcrossCalendars does the same", async () => {
    const answer = await searchEventsAcrossCalendars(searchDeps, late, ["work"], search).catch((error: unknown) => error);
    if (answer instanceof Error) expect(answer).toMatchObject({ reason: "WORK_BUDGET_EXHAUSTED" });
    else expect((answer as Awaited<ReturnType<typeof searchEvents>>).page.partial).toBe("deadline");
  });

  it("GetEvent refuses with WORK_BUDGET_EXHAUSTED, saying the deadline stopped it", async () => {
    const onTime: Call = { ...late, interrupted: () => false };
    const [some] = (await searchEvents(searchDeps, onTime, "work", search)).found;
    const refused = getEvent({ access, workBudget: 500_000 }, late, {
      calendarId: "work",
      eventId: some.occurrence.details.uidKey,
      timezone: "",
    });
    await expect(refused).rejects.toMatchObject({ reason: "WORK_BUDGET_EXHAUSTED", metadata: { stopped_by: "deadline" } });
  });

  it("QueryFreeBusy answers busy time exact only before where it stopped, marked deadline", async () => {
    const read = await queryFreeBusy({ access, maxWindowMs: 366 * 86_400_000, workBudget: 500_000 }, late, ["work"], window);
    expect(read.cut).toBe("deadline");
    // What was found before the deadline, ahead of every series' bound, is still given; nothing after the stop.
    const until = read.completeUntil!;
    expect(until).toBeGreaterThanOrEqual(read.window.start);
    expect(until).toBeLessThan(read.window.endExclusive);
    for (const interval of read.combined) expect(interval.end).toBeLessThanOrEqual(until);
  });

  it("FindFreeSlots answers no slot it has not checked, marked deadline", async () => {
    const found = await findFreeSlots({ access, maxWindowMs: 366 * 86_400_000, workBudget: 500_000 }, late, ["work"], {
      ...window,
      durationMinutes: 30,
      stepMinutes: 30,
      limit: 10,
      tentativeBlocks: true,
      workingHoursStart: "09:00",
      workingHoursEnd: "17:00",
      workingDays: [],
    });
    expect(found.cut).toBe("deadline");
    expect(found.slots).toEqual([]);
    expect(found.completeUntil).toBeLessThan(found.window.endExclusive);
  });
});

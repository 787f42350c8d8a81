import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_FEED_LIMITS } from "../../src/config/config-model.js";
import { CalendarStore, type LoadFailure } from "../../src/store/calendar-store.js";
import { ics, vevent } from "../support/feeds.js";

const MINUTE = 60_000;
let dir: string;
let clock: number;
let failures: [string, LoadFailure, string][];

function store(): CalendarStore {
  const source = { kind: "file", path: join(dir, "work.ics") } as const;
  return new CalendarStore([{ id: "work", source, refreshMs: MINUTE, name: "work", readers: [] }], {
    retentionMs: 15 * MINUTE,
    now: () => clock,
    onLoadFailure: (...failure) => failures.push(failure),
  });
}

const feed = (summary: string) => ics(...vevent("UID:e", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", `SUMMARY:${summary}`));
const summaries = (calendars: CalendarStore) =>
  calendars.view("work")!.snapshot!.index.items.map((occurrence) => occurrence.details.summary);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "calq-store-"));
  clock = Date.UTC(2026, 9, 1);
  failures = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("calendar store", () => {
  it("leaves a calendar whose source cannot be read unloaded, and says why to the operator only", async () => {
    const calendars = store();
    expect(await calendars.reload("work")).toMatchObject({ outcome: "failed" });
    expect(calendars.view("work")).toMatchObject({ stale: false, lastFailure: "unreachable" });
    expect(calendars.view("work")!.snapshot).toBeUndefined();
    expect(failures[0][1]).toBe("unreachable");
  });

  it("swaps in a new snapshot on reload and keeps the old one readable by id", async () => {
    writeFileSync(join(dir, "work.ics"), feed("old"));
    const calendars = store();
    await calendars.reload("work");
    const old = calendars.view("work")!.snapshot!;
    writeFileSync(join(dir, "work.ics"), feed("new"));
    clock += MINUTE;
    expect(await calendars.reload("work")).toMatchObject({ outcome: "loaded" });
    expect(summaries(calendars)).toEqual(["new"]);
    expect(calendars.snapshot("work", old.id)).toBe(old);
    expect(old.index.items[0].details.summary).toBe("old");
  });

  it("forgets replaced snapshots once the cursor lifetime has passed", async () => {
    writeFileSync(join(dir, "work.ics"), feed("old"));
    const calendars = store();
    await calendars.reload("work");
    const old = calendars.view("work")!.snapshot!;
    writeFileSync(join(dir, "work.ics"), feed("new"));
    await calendars.reload("work");
    clock += 15 * MINUTE;
    expect(calendars.snapshot("work", old.id)).toBe(old);
    clock += 1;
    expect(calendars.snapshot("work", old.id)).toBeUndefined();
  });

  it("keeps the last good snapshot and marks the calendar stale when a reload fails", async () => {
    writeFileSync(join(dir, "work.ics"), feed("good"));
    const calendars = store();
    await calendars.reload("work");
    const good = calendars.view("work")!.snapshot!;

    writeFileSync(join(dir, "work.ics"), "<html>502 Bad Gateway</html>");
    expect(await calendars.reload("work")).toMatchObject({ outcome: "failed" });
    expect(calendars.view("work")).toMatchObject({ stale: true, lastFailure: "not_icalendar" });
    expect(calendars.view("work")!.snapshot).toBe(good);

    unlinkSync(join(dir, "work.ics"));
    expect(await calendars.reload("work")).toMatchObject({ outcome: "failed" });
    expect(calendars.view("work")).toMatchObject({ stale: true, lastFailure: "unreachable" });
    expect(calendars.view("work")!.snapshot).toBe(good);

    writeFileSync(join(dir, "work.ics"), feed("recovered"));
    expect(await calendars.reload("work")).toMatchObject({ outcome: "loaded" });
    expect(calendars.view("work")!.stale).toBe(false);
    expect(calendars.view("work")!.lastFailure).toBeUndefined();
    expect(summaries(calendars)).toEqual(["recovered"]);
  });

  it("serves the first VEVENTs of a feed over the component limit and reports the cut", async () => {
    writeFileSync(
      join(dir, "work.ics"),
      ics(
        "X-WR-TIMEZONE:UTC",
        ...vevent("UID:a", "DTSTART:20261002T020000Z", "SUMMARY:first"),
        ...vevent("UID:b", "DTSTART:20261002T030000Z", "SUMMARY:second"),
        ...vevent("UID:c", "DTSTART:20261002T040000Z", "SUMMARY:third"),
      ),
    );
    const source = { kind: "file", path: join(dir, "work.ics") } as const;
    const calendars = new CalendarStore([{ id: "work", source, refreshMs: MINUTE, name: "work", readers: [] }], {
      retentionMs: MINUTE,
      feedLimits: { ...DEFAULT_FEED_LIMITS, maxComponents: 2 },
    });
    await calendars.reload("work");
    expect(summaries(calendars)).toEqual(["first", "second"]);
    expect(calendars.view("work")!.snapshot!.diagnostics).toEqual([expect.objectContaining({ code: "FEED_COMPONENTS_CAPPED", line: 17 })]);
  });

  it("refuses a file over the size limit, keeping what it served", async () => {
    writeFileSync(join(dir, "work.ics"), feed("small"));
    const source = { kind: "file", path: join(dir, "work.ics") } as const;
    const calendars = new CalendarStore([{ id: "work", source, refreshMs: MINUTE, name: "work", readers: [] }], {
      retentionMs: MINUTE,
      feedLimits: { ...DEFAULT_FEED_LIMITS, maxBytes: 1024 },
    });
    await calendars.reload("work");
    writeFileSync(join(dir, "work.ics"), feed("x".repeat(2048)));
    expect(await calendars.reload("work")).toEqual({ outcome: "failed", failure: "too_large" });
    expect(summaries(calendars)).toEqual(["small"]);
  });

  it("keeps at most eight replaced snapshots, however young, so a feed changing at every read cannot pile them up", async () => {
    writeFileSync(join(dir, "work.ics"), feed("v0"));
    const calendars = store();
    await calendars.reload("work");
    const first = calendars.view("work")!.snapshot!;
    for (let v = 1; v <= 8; v++) {
      writeFileSync(join(dir, "work.ics"), feed(`v${v}`));
      await calendars.reload("work");
    }
    expect(calendars.snapshot("work", first.id)).toBe(first);
    writeFileSync(join(dir, "work.ics"), feed("v9"));
    await calendars.reload("work");
    expect(calendars.snapshot("work", first.id)).toBeUndefined();
  });

  it("rebuilds a reload that moved one event from the snapshot it replaces, reading again only that event's run", async () => {
    const events = (moved: string) =>
      ics(
        ...Array.from({ length: 300 }, (_, i) =>
          vevent(
            `UID:e${i}@calq.test`,
            i === 150 ? moved : `DTSTART:20261002T${String(i % 24).padStart(2, "0")}0000Z`,
            "DURATION:PT1H",
            `SUMMARY:event ${i}`,
          ),
        ).flat(),
      );
    writeFileSync(join(dir, "work.ics"), events("DTSTART:20261002T060000Z"));
    const calendars = store();
    await calendars.reload("work");
    expect(calendars.view("work")!.snapshot!.build).toEqual({ kind: "full", reason: "first" });
    writeFileSync(join(dir, "work.ics"), events("DTSTART:20261003T090000Z"));
    clock += MINUTE;
    expect(await calendars.reload("work")).toMatchObject({ outcome: "loaded" });
    const rebuilt = calendars.view("work")!.snapshot!;
    expect(rebuilt.build).toMatchObject({ kind: "incremental" });
    if (rebuilt.build?.kind !== "incremental") throw new Error("unreachable");
    expect(rebuilt.build.eventsRead).toBeLessThan(100);
    expect(rebuilt.build.eventsKept).toBeGreaterThan(200);
    const moved = rebuilt.index.items.find((occurrence) => occurrence.details.summary === "event 150");
    expect(moved?.start).toBe(Date.UTC(2026, 9, 3, 9));
    expect(rebuilt.eventCount).toBe(300);
  });
});

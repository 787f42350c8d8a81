/**
 * The caps on what one free/busy answer holds (src/app/free-busy.ts): at
 * most 1,000 merged intervals per calendar and 10,000 in all, half of them
 * for the calendars' own lists. Past a cap the answer stops, for every
 * calendar at once, at the start of the first interval it could not hold:
 * `completeUntil` is that start, `cut` is "size", and every list holds
 * exactly the busy time before it, an interval running past it cut there.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callOf, type Principal } from "../../src/app/call.js";
import { type BusyRead, MAX_BUSY_INTERVALS_PER_ANSWER, MAX_BUSY_INTERVALS_PER_CALENDAR, queryFreeBusy } from "../../src/app/free-busy.js";
import { Turns } from "../../src/app/turns.js";
import type { CalendarConfig } from "../../src/config/config-model.js";
import { ShardMap } from "../../src/config/shard-map.js";
import { mergeBusy } from "../../src/search/busy-time.js";
import { CalendarStore } from "../../src/store/calendar-store.js";

const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;
const WINDOW_START = Date.UTC(2026, 0, 5);
const reader: Principal = { id: "reader", tokenDigests: [], capabilities: ["calendar.read"] };

/**
 * `count` meetings `minutes` long, every `every` minutes from `offset` minutes past the window's start (UTC): a
 * count, so that building the calendar does not expand years of them.
 */
function series(uid: string, offset: number, every: number, minutes: number, count: number): string {
  const start = new Date(WINDOW_START + offset * MINUTE).toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//calq//test//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    `DTSTART:${start}`,
    `DURATION:PT${minutes}M`,
    `RRULE:FREQ=MINUTELY;INTERVAL=${every};COUNT=${count}`,
    "SUMMARY:meeting",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

// One calendar of 2-minute meetings every 5 minutes (288 a day), and twelve of
// 7-minute meetings every hour, each 5 minutes after the one before's: each
// meeting runs 2 minutes into the next calendar's.
const FEEDS: Record<string, string> = {
  dense: series("dense", 0, 5, 2, 2_000),
  ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`hourly-${String(i).padStart(2, "0")}`, series(`h${i}`, i * 5, 60, 7, 600)])),
};

let dir: string;
let store: CalendarStore;
let deps: Parameters<typeof queryFreeBusy>[0];
const turns = new Turns();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "calq-caps-"));
  const configs: CalendarConfig[] = Object.entries(FEEDS).map(([id, text]) => {
    writeFileSync(join(dir, `${id}.ics`), text);
    return { id, name: id, readers: [reader.id], refreshMs: 3_600_000, source: { kind: "file", path: join(dir, `${id}.ics`) } };
  });
  store = new CalendarStore(configs, { retentionMs: 0 });
  await store.loadAll();
  deps = {
    access: { store, shards: new ShardMap({ calendars: configs }, undefined), log: () => {} },
    maxWindowMs: 366 * DAY,
    workBudget: 10_000_000,
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (ids: string[], days: number): Promise<BusyRead> =>
  queryFreeBusy(deps, callOf({ principal: reader }, turns), ids, {
    start: new Date(WINDOW_START).toISOString(),
    endExclusive: new Date(WINDOW_START + days * DAY).toISOString(),
    timezone: "UTC",
  });

/** A calendar's meetings from the window's start, as the feed above writes them, merged and cut at `until`. */
function expectedBusy(id: string, until: number) {
  const [offset, every, minutes] = id === "dense" ? [0, 5, 2] : [Number(id.slice(-2)) * 5, 60, 7];
  const meetings = [];
  for (let start = WINDOW_START + offset * MINUTE; start < until; start += every * MINUTE) {
    meetings.push({ start, end: start + minutes * MINUTE, kind: "busy" as const });
  }
  return mergeBusy(meetings, WINDOW_START, until);
}

describe("the caps on one free/busy answer", () => {
  it("stop every calendar at the start of a calendar's first interval past 1,000", async () => {
    // Five days of the dense calendar: 1,440 meetings, none touching.
    const answer = await read(["dense", "hourly-00"], 5);
    const cutAt = WINDOW_START + MAX_BUSY_INTERVALS_PER_CALENDAR * 5 * MINUTE;
    expect(answer.cut).toBe("size");
    expect(answer.completeUntil).toBe(cutAt);
    const [dense, hourly] = answer.calendars;
    expect(dense.busy).toHaveLength(MAX_BUSY_INTERVALS_PER_CALENDAR);
    expect(dense.busy).toEqual(expectedBusy("dense", cutAt));
    expect(hourly.busy).toEqual(expectedBusy("hourly-00", cutAt));
    expect(answer.combined).toEqual(mergeBusy([...dense.busy, ...hourly.busy], WINDOW_START, cutAt));
  });

  it("stop every calendar at the start of the first interval past half the answer's cap, over all calendars", async () => {
    // 21 days of the twelve hourly calendars: 504 meetings each, 6,048 in all, each list under its own cap.
    const ids = Object.keys(FEEDS).filter((id) => id !== "dense");
    const answer = await read(ids, 21);
    // The 5,001st start over all calendars: the meetings start every 5 minutes, one calendar after another.
    const cutAt = WINDOW_START + (MAX_BUSY_INTERVALS_PER_ANSWER / 2) * 5 * MINUTE;
    expect(answer.cut).toBe("size");
    expect(answer.completeUntil).toBe(cutAt);
    for (const [i, calendar] of answer.calendars.entries()) expect(calendar.busy).toEqual(expectedBusy(ids[i], cutAt));
    // The meeting that started 5 minutes before the cut runs 2 minutes past it: it is cut at it.
    const last = answer.calendars.flatMap((calendar) => calendar.busy).reduce((a, b) => (b.start > a.start ? b : a));
    expect(last).toEqual({ start: cutAt - 5 * MINUTE, end: cutAt, kind: "busy" });
    expect(answer.calendars.reduce((count, calendar) => count + calendar.busy.length, 0)).toBe(MAX_BUSY_INTERVALS_PER_ANSWER / 2);
    // Consecutive meetings overlap across calendars, so the combined time is one interval.
    expect(answer.combined).toEqual([{ start: WINDOW_START, end: cutAt, kind: "busy" }]);
  });

  it("leave an answer under both caps whole", async () => {
    const answer = await read(["dense", "hourly-03"], 3);
    expect(answer.cut).toBeUndefined();
    expect(answer.completeUntil).toBeUndefined();
    expect(answer.calendars[0].busy).toEqual(expectedBusy("dense", WINDOW_START + 3 * DAY));
    expect(answer.calendars[1].busy).toEqual(expectedBusy("hourly-03", WINDOW_START + 3 * DAY));
  });
});

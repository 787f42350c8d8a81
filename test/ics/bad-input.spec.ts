/**
 * Feeds with one bad component among good ones (docs/feeds.md): the bad component is left out or
 * repaired as docs/imperfect-feeds.md and docs/decisions.md say, its diagnostic names it (code, UID, line of its BEGIN:VEVENT), and
 * every good component of the same file is still served at its exact instants, in the calendar's zone from
 * X-WR-TIMEZONE. Text that is not iCalendar (an HTML sign-in page) or a file cut off mid-component is refused
 * as a whole.
 *
 * Fixtures are in test/fixtures/bad-input; each is read the way `calq serve` reads a feed, by CalendarStore.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_REFRESH_MS } from "../../src/config/config-model.js";
import type { Occurrence } from "../../src/expand/occurrence.js";
import { NotICalendarError } from "../../src/ics/parse-calendar.js";
import { buildSnapshot, type Snapshot } from "../../src/ingest/snapshot.js";
import { CalendarStore, defaultLimits, type ReloadOutcome } from "../../src/store/calendar-store.js";
import { searchAll } from "../support/feeds.js";

const BAD_INPUT = fileURLToPath(new URL("../fixtures/bad-input/", import.meta.url));
const READ_AT = Date.UTC(2026, 10, 29);

/** One load of a fixture by CalendarStore, as `calq serve` does it. */
async function reload(file: string): Promise<{ outcome: ReloadOutcome; store: CalendarStore }> {
  const store = new CalendarStore(
    [{ id: "cal", source: { kind: "file", path: join(BAD_INPUT, file) }, refreshMs: DEFAULT_REFRESH_MS, name: "cal", readers: [] }],
    { retentionMs: 15 * 60_000, now: () => READ_AT },
  );
  return { outcome: await store.reload("cal"), store };
}

async function load(file: string): Promise<Snapshot> {
  const { outcome } = await reload(file);
  if (outcome.outcome !== "loaded") throw new Error(`${file} did not load: ${JSON.stringify(outcome)}`);
  return outcome.snapshot;
}

function text(file: string): string {
  return readFileSync(join(BAD_INPUT, file), "utf8");
}

/** Each diagnostic as [code, uid, line]. */
function reported(snapshot: Snapshot): [string, string | undefined, number | undefined][] {
  return snapshot.diagnostics.map(({ code, uid, line }) => [code, uid, line]);
}

/** Every occurrence starting in October and November 2026, as [summary, start, end]. */
function served(snapshot: Snapshot): [string, string, string][] {
  const autumn = { start: Date.UTC(2026, 9, 1), endExclusive: Date.UTC(2026, 11, 1) };
  return searchAll(snapshot, autumn, "startWithin").map((occurrence: Occurrence) => [
    occurrence.details.summary,
    new Date(occurrence.start).toISOString(),
    new Date(occurrence.end).toISOString(),
  ]);
}

describe("a VEVENT without DTSTART", () => {
  it("is left out with MISSING_DTSTART naming its UID and line", async () => {
    expect(reported(await load("missing-dtstart.ics"))).toEqual([["MISSING_DTSTART", "no-start@ops.example.com", 16]]);
  });

  it("costs only itself: the events before and after it are served", async () => {
    expect(served(await load("missing-dtstart.ics"))).toEqual([
      ["Trực ca sáng", "2026-10-02T02:00:00.000Z", "2026-10-02T03:00:00.000Z"],
      ["Trực ca chiều", "2026-10-02T07:00:00.000Z", "2026-10-02T08:00:00.000Z"],
    ]);
  });
});

describe("a VEVENT whose DTEND is before its DTSTART (Apple export, LF)", () => {
  it("is left out with END_BEFORE_START naming its UID and line, never reinterpreted", async () => {
    expect(reported(await load("end-before-start.ics"))).toEqual([["END_BEFORE_START", "F1E2D3C4-B5A6-4978-8695-A4B3C2D1E0F9", 16]]);
  });

  it("costs only itself", async () => {
    expect(served(await load("end-before-start.ics"))).toEqual([
      ["Marché", "2026-10-10T08:00:00.000Z", "2026-10-10T10:00:00.000Z"],
      ["Cinéma", "2026-10-10T14:00:00.000Z", "2026-10-10T16:00:00.000Z"],
    ]);
  });
});

describe("a TZID that is an Outlook display name, with no VTIMEZONE (docs/imperfect-feeds.md)", () => {
  it("is read as the zone of its first city, with a LENIENT_VALUE warning naming the reading", async () => {
    const snapshot = await load("unknown-tzid.ics");
    expect(reported(snapshot)).toEqual([["LENIENT_VALUE", "crm-export-4471@ops.example.com", 8]]);
    expect(snapshot.diagnostics[0]).toMatchObject({ severity: "warning", message: expect.stringContaining("Asia/Bangkok") });
  });

  it("serves the event at its instants in that zone, and the others", async () => {
    expect(served(await load("unknown-tzid.ics"))).toEqual([
      ["Gặp khách hàng (xuất từ CRM)", "2026-10-02T02:00:00.000Z", "2026-10-02T03:00:00.000Z"],
      ["Rà soát sự cố", "2026-10-02T07:00:00.000Z", "2026-10-02T08:00:00.000Z"],
    ]);
  });
});

describe("an RRULE that cannot be read (FREQ=FORTNIGHTLY)", () => {
  it("is reported as UNREADABLE_RRULE naming the event's UID and line", async () => {
    expect(reported(await load("unreadable-rrule.ics"))).toEqual([["UNREADABLE_RRULE", "c41d2e7f-0a9b-4c38-8d5e-6f7a1b2c3d4e", 7]]);
  });

  it("leaves the series its DTSTART (README: an event whose every rule is refused keeps its DTSTART)", async () => {
    const found = served(await load("unreadable-rrule.ics")).filter(([summary]) => summary === "Sicherheits-Check");
    expect(found).toEqual([["Sicherheits-Check", "2026-10-05T07:00:00.000Z", "2026-10-05T07:30:00.000Z"]]);
  });

  it("does not cost the feed its X-WR-TIMEZONE or its other events", async () => {
    const snapshot = await load("unreadable-rrule.ics");
    expect(snapshot.zoneSource).toBe("feed");
    expect(served(snapshot).filter(([summary]) => summary !== "Sicherheits-Check")).toEqual([
      ["Tag der Deutschen Einheit", "2026-10-02T22:00:00.000Z", "2026-10-03T22:00:00.000Z"],
      ["Backlog-Pflege", "2026-10-07T09:00:00.000Z", "2026-10-07T10:00:00.000Z"],
      ["Backlog-Pflege", "2026-10-14T09:00:00.000Z", "2026-10-14T10:00:00.000Z"],
    ]);
  });
});

describe("an RRULE with INTERVAL=0", () => {
  it("is reported as UNREADABLE_RRULE naming the event's UID and line", async () => {
    expect(reported(await load("interval-zero.ics"))).toEqual([["UNREADABLE_RRULE", "0f9e8d7c-6b5a-4948-8372-615f4e3d2c1b", 7]]);
  });

  it("is not read as INTERVAL=1: no weekly occurrence follows DTSTART", async () => {
    const found = served(await load("interval-zero.ics")).filter(([summary]) => summary === "Deploy-Fenster");
    expect(found.filter(([, start]) => start > "2026-10-01T14:00:00.000Z")).toEqual([]);
  });

  it("leaves the series its DTSTART (README: INTERVAL=0 is a refused rule, and such an event keeps its DTSTART)", async () => {
    const found = served(await load("interval-zero.ics")).filter(([summary]) => summary === "Deploy-Fenster");
    expect(found).toEqual([["Deploy-Fenster", "2026-10-01T14:00:00.000Z", "2026-10-01T15:00:00.000Z"]]);
  });

  it("costs no other event", async () => {
    expect(served(await load("interval-zero.ics")).filter(([summary]) => summary !== "Deploy-Fenster")).toEqual([
      ["Retro", "2026-10-02T08:00:00.000Z", "2026-10-02T08:30:00.000Z"],
      ["Retro", "2026-10-16T08:00:00.000Z", "2026-10-16T08:30:00.000Z"],
    ]);
  });
});

describe("a garbled line inside one VEVENT (a folded DESCRIPTION that lost its leading space)", () => {
  it("loses only that line (docs/imperfect-feeds.md), with an UNREADABLE_LINE warning naming its VEVENT's UID and BEGIN line", async () => {
    const snapshot = await load("garbled-line.ics");
    expect(reported(snapshot)).toEqual([["UNREADABLE_LINE", "6f5e4d3c-2b1a-4098-b7a6-958473625140", 14]]);
    expect(snapshot.diagnostics[0].severity).toBe("warning");
    expect(snapshot.diagnostics[0].message).toContain("line 21");
  });

  it("keeps the calendar's X-WR-TIMEZONE, so the all-day and floating events stay in Berlin", async () => {
    const snapshot = await load("garbled-line.ics");
    expect(snapshot.zoneSource).toBe("feed");
    expect(snapshot.zone.name).toBe("Europe/Berlin");
  });

  it("serves every component of the file, the garbled one too", async () => {
    expect(served(await load("garbled-line.ics"))).toEqual([
      ["Planung Q4", "2026-10-05T08:00:00.000Z", "2026-10-05T09:00:00.000Z"],
      ["Lieferantengespräch", "2026-10-06T08:00:00.000Z", "2026-10-06T09:00:00.000Z"],
      ["Kaffeerunde", "2026-10-07T13:00:00.000Z", "2026-10-07T14:00:00.000Z"],
      ["Brückentag", "2026-10-08T22:00:00.000Z", "2026-10-09T22:00:00.000Z"],
    ]);
  });
});

describe("a file cut off inside a VEVENT, without END:VCALENDAR", () => {
  it("never loaded before, is served in part by the store: its complete components, marked stale and truncated (docs/imperfect-feeds.md)", async () => {
    const { outcome, store } = await reload("truncated.ics");
    expect(outcome.outcome).toBe("loaded");
    const view = store.view("cal")!;
    expect(view).toMatchObject({ stale: true, lastFailure: "truncated", snapshot: { partial: true } });
    expect(served(view.snapshot!)).toHaveLength(4);
  });

  it("read on its own, names the cut VEVENT (UID and line) and keeps the complete ones in the feed's zone", () => {
    const snapshot = buildSnapshot(text("truncated.ics"), { calendarId: "cal", limits: defaultLimits(READ_AT), readAt: READ_AT });
    expect(reported(snapshot)).toEqual([["FEED_TRUNCATED", "6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f", 23]]);
    expect(snapshot.diagnostics[0].severity).toBe("error");
    expect(snapshot.zoneSource).toBe("feed");
    expect(served(snapshot)).toEqual([
      ["Daily", "2026-10-12T07:30:00.000Z", "2026-10-12T08:00:00.000Z"],
      ["Inventur", "2026-10-12T22:00:00.000Z", "2026-10-13T22:00:00.000Z"],
      ["Daily", "2026-10-13T07:30:00.000Z", "2026-10-13T08:00:00.000Z"],
      ["Daily", "2026-10-14T07:30:00.000Z", "2026-10-14T08:00:00.000Z"],
    ]);
  });
});

describe("a VEVENT without UID", () => {
  it("gets a UID derived from its content, reported with MISSING_UID and its line", async () => {
    const snapshot = await load("missing-uid.ics");
    expect(reported(snapshot)).toEqual([["MISSING_UID", expect.stringMatching(/^calq-derived-/), 16]]);
    const derived = snapshot.diagnostics[0].uid;
    const [backup] = searchAll(snapshot, { start: Date.UTC(2026, 9, 2, 6), endExclusive: Date.UTC(2026, 9, 2, 7) }, "startWithin");
    expect(backup.details.uid).toBe(derived);
    expect((await load("missing-uid.ics")).diagnostics[0].uid).toBe(derived);
  });

  it("is still served, with the event before it", async () => {
    expect(served(await load("missing-uid.ics"))).toEqual([
      ["Trực ca sáng", "2026-10-02T02:00:00.000Z", "2026-10-02T03:00:00.000Z"],
      ["Kiểm tra sao lưu (nhập tay)", "2026-10-02T06:00:00.000Z", "2026-10-02T06:30:00.000Z"],
    ]);
  });
});

describe("an HTML page where the feed should be (an expired sign-in)", () => {
  it("is refused as not iCalendar by the store, which builds no snapshot", async () => {
    const { outcome, store } = await reload("html-page.ics");
    expect(outcome).toEqual({ outcome: "failed", failure: "not_icalendar" });
    expect(store.view("cal")!.snapshot).toBeUndefined();
  });

  it("is refused by buildSnapshot with NotICalendarError", () => {
    expect(() => buildSnapshot(text("html-page.ics"), { calendarId: "cal", limits: defaultLimits(READ_AT), readAt: READ_AT })).toThrow(
      NotICalendarError,
    );
  });
});

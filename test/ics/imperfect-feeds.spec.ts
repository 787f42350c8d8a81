/**
 * How calq reads imperfect feeds (docs/imperfect-feeds.md): one
 * fixture per case, each written for this test after a producer's pattern,
 * loaded the way `calq serve` loads a feed (CalendarStore) and searched
 * in process. Per fixture: the exact instants served, and which diagnostics
 * are errors (something left out) and which are warnings (kept, read by a
 * stated rule). Then a property: a fixture with any one line replaced by
 * garbage still serves every event that line was not part of.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_REFRESH_MS } from "../../src/config/config-model.js";
import type { Occurrence } from "../../src/expand/occurrence.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import { CalendarStore } from "../../src/store/calendar-store.js";
import { searchAll, snapshotOf } from "../support/feeds.js";

const IMPERFECT = join(import.meta.dirname, "../fixtures/imperfect");
const READ_AT = Date.UTC(2026, 10, 29);
/** Every fixture's events lie in October 2026; the window has room for any zone. */
const AUTUMN = { start: Date.UTC(2026, 8, 28), endExclusive: Date.UTC(2026, 10, 4) };
const scratch = mkdtempSync(join(tmpdir(), "calq-imperfect-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function fixture(name: string): string {
  return readFileSync(join(IMPERFECT, name), "utf8");
}

/** A store over one file holding `text`, as `calq serve` reads a calendar. */
function storeOver(text: string): { store: CalendarStore; write: (next: string) => void } {
  const path = join(scratch, `${Math.random().toString(36).slice(2)}.ics`);
  writeFileSync(path, text);
  const store = new CalendarStore(
    [{ id: "cal", source: { kind: "file", path }, refreshMs: DEFAULT_REFRESH_MS, name: "cal", readers: [] }],
    { retentionMs: 15 * 60_000, now: () => READ_AT },
  );
  return { store, write: (next) => writeFileSync(path, next) };
}

async function load(name: string): Promise<Snapshot> {
  const { store } = storeOver(fixture(name));
  const outcome = await store.reload("cal");
  if (outcome.outcome !== "loaded") throw new Error(`${name} did not load: ${JSON.stringify(outcome)}`);
  return outcome.snapshot;
}

/** [summary, start, end] of every occurrence overlapping autumn 2026, in search order. */
function served(snapshot: Snapshot): [string, string, string][] {
  return searchAll(snapshot, AUTUMN, "overlap").map((occurrence: Occurrence) => [
    occurrence.details.summary,
    new Date(occurrence.start).toISOString(),
    new Date(occurrence.end).toISOString(),
  ]);
}

/** [code, uid] of each error, in report order. */
function errors(snapshot: Snapshot): [string, string | undefined][] {
  return snapshot.diagnostics.filter((d) => d.severity === "error").map((d) => [d.code, d.uid]);
}

/** [code, uid] of each warning, once per pair, in report order. */
function warnings(snapshot: Snapshot): [string, string | undefined][] {
  const seen = new Set<string>();
  return snapshot.diagnostics
    .filter((d) => d.severity === "warning")
    .map((d): [string, string | undefined] => [d.code, d.uid])
    .filter((pair) => !seen.has(pair.join("|")) && seen.add(pair.join("|")) !== undefined);
}

describe("case 1: dates without VALUE=DATE (Calendar Labs, old Google exports)", () => {
  it("reads them as dates in DTSTART, DTEND, EXDATE, RDATE and RECURRENCE-ID, and a bad EXDATE value costs only itself", async () => {
    const snapshot = await load("dates-without-value-date.ics");
    expect(served(snapshot)).toEqual([
      ["Gym day", "2026-10-02T07:00:00.000Z", "2026-10-03T07:00:00.000Z"],
      ["Sprint day", "2026-10-05T07:00:00.000Z", "2026-10-06T07:00:00.000Z"],
      ["Columbus Day", "2026-10-12T07:00:00.000Z", "2026-10-13T07:00:00.000Z"],
      // The EXDATE "2026-10-16" has no reading: only that exclusion is lost.
      ["Gym day", "2026-10-16T07:00:00.000Z", "2026-10-17T07:00:00.000Z"],
      ["Sprint day (moved)", "2026-10-20T07:00:00.000Z", "2026-10-21T07:00:00.000Z"],
      ["Sprint day", "2026-10-26T07:00:00.000Z", "2026-10-27T07:00:00.000Z"],
      ["Sprint day", "2026-10-28T07:00:00.000Z", "2026-10-29T07:00:00.000Z"],
      ["Halloween", "2026-10-31T07:00:00.000Z", "2026-11-01T07:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([["UNREADABLE_VALUE", "gym-day@old-google.example"]]);
    expect(warnings(snapshot)).toEqual([
      ["LENIENT_VALUE", "20261012_us_columbus@holidays.example"],
      ["LENIENT_VALUE", "halloween-2026@old-google.example"],
      ["LENIENT_VALUE", "sprint-day@old-google.example"],
    ]);
  });
});

describe("case 2: DTSTART and DTEND of different kinds", () => {
  it("reads a date start with a date-time end as all-day, a date end as midnight in the start's zone, a floating value in the other's zone", async () => {
    const snapshot = await load("mixed-kinds.ics");
    expect(served(snapshot)).toEqual([
      ["Offsite", "2026-10-04T22:00:00.000Z", "2026-10-06T22:00:00.000Z"],
      ["Team party", "2026-10-07T16:00:00.000Z", "2026-10-07T22:00:00.000Z"],
      ["Call with New York", "2026-10-09T13:00:00.000Z", "2026-10-09T14:00:00.000Z"],
      ["Second call with New York", "2026-10-12T13:00:00.000Z", "2026-10-12T14:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([]);
    expect(warnings(snapshot).map(([code]) => code)).toEqual(["LENIENT_VALUE", "LENIENT_VALUE", "LENIENT_VALUE", "LENIENT_VALUE"]);
  });
});

describe("case 3: all-day events with a sub-day DURATION (Zimbra) or DTEND equal to DTSTART", () => {
  it("reads them as whole days: the duration rounded up, at least one", async () => {
    const snapshot = await load("all-day-durations.ics");
    expect(served(snapshot)).toEqual([
      ["Holiday (one hour)", "2026-10-04T22:00:00.000Z", "2026-10-05T22:00:00.000Z"],
      ["Conference (36 hours)", "2026-10-06T22:00:00.000Z", "2026-10-08T22:00:00.000Z"],
      ["Moving day", "2026-10-09T22:00:00.000Z", "2026-10-10T22:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([]);
    expect(warnings(snapshot)).toHaveLength(3);
  });
});

describe("case 4: TZIDs without a VTIMEZONE", () => {
  it("resolves vendor prefixes, Outlook display names and Windows names, and reads an unknown one as floating", async () => {
    const snapshot = await load("vendor-tzids.ics");
    expect(served(snapshot)).toEqual([
      ["Thunderbird standup", "2026-10-05T13:00:00.000Z", "2026-10-05T14:00:00.000Z"],
      ["Evolution review", "2026-10-06T08:00:00.000Z", "2026-10-06T09:00:00.000Z"],
      ["KOrganizer sync", "2026-10-07T00:00:00.000Z", "2026-10-07T01:00:00.000Z"],
      ["OWA planning", "2026-10-08T13:00:00.000Z", "2026-10-08T14:00:00.000Z"],
      ["OWA retro", "2026-10-09T07:00:00.000Z", "2026-10-09T08:00:00.000Z"],
      ["Windows zone name", "2026-10-10T00:00:00.000Z", "2026-10-10T01:00:00.000Z"],
      // Floating, in the calendar's zone (Asia/Ho_Chi_Minh, +07:00).
      ["No such zone", "2026-10-12T02:00:00.000Z", "2026-10-12T03:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([]);
    expect(warnings(snapshot).map(([code]) => code)).toEqual([
      "LENIENT_VALUE",
      "LENIENT_VALUE",
      "LENIENT_VALUE",
      "LENIENT_VALUE",
      "LENIENT_VALUE",
      "UNKNOWN_TZID",
    ]);
  });

  it("a VTIMEZONE that cannot be read falls back to its TZID's IANA zone, else floating, with warnings", async () => {
    const snapshot = await load("broken-vtimezone.ics");
    expect(served(snapshot)).toEqual([
      ["IANA TZID with a broken VTIMEZONE", "2026-10-05T07:00:00.000Z", "2026-10-05T08:00:00.000Z"],
      ["Own TZID with a broken VTIMEZONE", "2026-10-06T09:00:00.000Z", "2026-10-06T10:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([]);
    expect(warnings(snapshot)).toEqual([
      ["UNREADABLE_TIMEZONE", undefined],
      ["UNKNOWN_TZID", "vtz-2@sync.example"],
    ]);
  });
});

describe("case 5: one unreadable content line", () => {
  it("loses only that line (a broken fold, an unbalanced quote, an X- property without a value), unless it is DTSTART", async () => {
    const snapshot = await load("unreadable-lines.ics");
    expect(served(snapshot)).toEqual([
      ["Broken fold", "2026-10-05T08:00:00.000Z", "2026-10-05T09:00:00.000Z"],
      ["Unbalanced quote", "2026-10-06T08:00:00.000Z", "2026-10-06T09:00:00.000Z"],
      ["X- property without a value", "2026-10-07T08:00:00.000Z", "2026-10-07T09:00:00.000Z"],
      ["Untouched", "2026-10-09T08:00:00.000Z", "2026-10-09T09:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([["MISSING_DTSTART", "nostart-4@groupware.example"]]);
    expect(warnings(snapshot)).toEqual([
      ["UNREADABLE_LINE", "fold-1@groupware.example"],
      ["UNREADABLE_LINE", "quote-2@groupware.example"],
      ["UNREADABLE_LINE", "xprop-3@groupware.example"],
      ["UNREADABLE_LINE", "nostart-4@groupware.example"],
    ]);
  });
});

describe("case 6: small value slips", () => {
  it("reads trailing whitespace, DTEND:None, an empty EXDATE, BYDAY with spaces, COUNT=-1 with UNTIL and RDATE periods", async () => {
    const snapshot = await load("value-slips.ics");
    expect(served(snapshot)).toEqual([
      ["Trailing space", "2026-10-05T14:00:00.000Z", "2026-10-05T14:10:00.000Z"],
      ["DTEND None", "2026-10-05T16:00:00.000Z", "2026-10-05T16:00:00.000Z"],
      ["Empty EXDATE", "2026-10-06T05:00:00.000Z", "2026-10-07T05:00:00.000Z"],
      ["Empty EXDATE", "2026-10-07T05:00:00.000Z", "2026-10-08T05:00:00.000Z"],
      ["CDO BYDAY", "2026-10-12T13:00:00.000Z", "2026-10-12T13:30:00.000Z"],
      ["CDO BYDAY", "2026-10-14T13:00:00.000Z", "2026-10-14T13:30:00.000Z"],
      ["CDO BYDAY", "2026-10-16T13:00:00.000Z", "2026-10-16T13:30:00.000Z"],
      ["COUNT=-1", "2026-10-19T12:00:00.000Z", "2026-10-19T12:15:00.000Z"],
      ["COUNT=-1", "2026-10-20T12:00:00.000Z", "2026-10-20T12:15:00.000Z"],
      ["Periods", "2026-10-21T15:00:00.000Z", "2026-10-21T16:00:00.000Z"],
      ["Periods", "2026-10-22T15:00:00.000Z", "2026-10-22T17:00:00.000Z"],
      ["Periods", "2026-10-23T15:00:00.000Z", "2026-10-23T15:30:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([]);
    expect(warnings(snapshot).map(([, uid]) => uid)).toEqual([
      "slip-duration@exporter.example",
      "slip-none@exporter.example",
      "slip-empty-exdate@exporter.example",
      "slip-cdo@exporter.example",
      "slip-count@exporter.example",
      "slip-period@exporter.example",
    ]);
  });
});

describe("case 7: duplicate UIDs without RECURRENCE-ID", () => {
  it("keeps the higher SEQUENCE wherever it stands, the last of a tie, and distinct single events that share a UID", async () => {
    const snapshot = await load("duplicate-uids.ics");
    expect(served(snapshot)).toEqual([
      ["Review (moved, sequence 2)", "2026-10-05T09:00:00.000Z", "2026-10-05T10:00:00.000Z"],
      ["Retro (last copy)", "2026-10-06T09:00:00.000Z", "2026-10-06T10:00:00.000Z"],
      ["Paper collection", "2026-10-06T22:00:00.000Z", "2026-10-07T22:00:00.000Z"],
      ["Paper collection", "2026-10-13T22:00:00.000Z", "2026-10-14T22:00:00.000Z"],
      ["Paper collection", "2026-10-20T22:00:00.000Z", "2026-10-21T22:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([]);
    expect(warnings(snapshot)).toEqual([
      ["DUPLICATE_UID", "review@google.example"],
      ["DUPLICATE_UID", "retro@google.example"],
      ["DUPLICATE_UID", "waste-collection@municipality.example"],
    ]);
  });

  it("gives distinct events that share a UID distinct event_ids", async () => {
    const snapshot = await load("duplicate-uids.ics");
    const ids = searchAll(snapshot, AUTUMN, "overlap")
      .filter((occurrence) => occurrence.details.summary === "Paper collection")
      .map((occurrence) => occurrence.details.uidKey);
    expect(new Set(ids).size).toBe(3);
  });
});

describe("case 8: Exchange all-day overrides with a midnight date-time RECURRENCE-ID", () => {
  it("match their slot by the wall-clock date, so the moved day is served once, on its new date; a midnight EXDATE excludes its day", async () => {
    const snapshot = await load("exchange-all-day-override.ics");
    expect(served(snapshot)).toEqual([
      ["Homeoffice", "2026-10-05T00:00:00.000Z", "2026-10-06T00:00:00.000Z"],
      ["Homeoffice (verschoben)", "2026-10-13T00:00:00.000Z", "2026-10-14T00:00:00.000Z"],
      ["Homeoffice", "2026-10-19T00:00:00.000Z", "2026-10-20T00:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([]);
    expect(warnings(snapshot)).toEqual([["NO_CALENDAR_ZONE", undefined]]);
  });
});

describe("case 9: feed boundaries", () => {
  it("reads components outside the VCALENDAR and in a second one, ignores text after END:VCALENDAR, each with a warning", async () => {
    const snapshot = await load("feed-boundaries.ics");
    expect(served(snapshot)).toEqual([
      ["In the first calendar", "2026-10-05T02:00:00.000Z", "2026-10-05T03:00:00.000Z"],
      ["Outside any calendar", "2026-10-06T02:00:00.000Z", "2026-10-06T03:00:00.000Z"],
      ["In the second calendar", "2026-10-07T02:00:00.000Z", "2026-10-07T03:00:00.000Z"],
    ]);
    expect(errors(snapshot)).toEqual([]);
    expect(warnings(snapshot)).toEqual([
      ["OUTSIDE_CALENDAR", undefined],
      ["TEXT_AFTER_END", undefined],
    ]);
  });
});

describe("case 10: a feed cut in the middle", () => {
  it("that never loaded serves its complete components, marked partial and stale, with a FEED_TRUNCATED error", async () => {
    const { store } = storeOver(fixture("cut-feed.ics"));
    expect((await store.reload("cal")).outcome).toBe("loaded");
    const view = store.view("cal")!;
    expect(view).toMatchObject({ stale: true, lastFailure: "truncated" });
    expect(view.snapshot?.partial).toBe(true);
    expect(served(view.snapshot!)).toEqual([
      ["Complete before the cut", "2026-10-05T07:00:00.000Z", "2026-10-05T08:00:00.000Z"],
      ["Also complete", "2026-10-06T07:00:00.000Z", "2026-10-06T08:00:00.000Z"],
    ]);
    // In feed order: the component cut at its line, then the feed as a whole.
    expect(errors(view.snapshot!)).toEqual([
      ["FEED_TRUNCATED", "cut-3@cloud.example"],
      ["FEED_TRUNCATED", undefined],
    ]);
  });

  it("is replaced by the next complete read, which is no longer stale", async () => {
    const { store, write } = storeOver(fixture("cut-feed.ics"));
    await store.reload("cal");
    write(`${fixture("cut-feed.ics")}ope/Berlin:20261007T100000\r\nSUMMARY:Now whole\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`);
    expect((await store.reload("cal")).outcome).toBe("loaded");
    const view = store.view("cal")!;
    expect(view.stale).toBe(false);
    expect(view.snapshot?.partial).toBeUndefined();
    expect(served(view.snapshot!).map(([summary]) => summary)).toEqual(["Complete before the cut", "Also complete", "Now whole"]);
  });

  it("with a last good version keeps serving that version, stale, as before", async () => {
    const whole = fixture("feed-boundaries.ics");
    const { store, write } = storeOver(whole);
    await store.reload("cal");
    write(fixture("cut-feed.ics"));
    expect(await store.reload("cal")).toEqual({ outcome: "failed", failure: "truncated" });
    const view = store.view("cal")!;
    expect(view.stale).toBe(true);
    expect(served(view.snapshot!).map(([summary]) => summary)).toEqual([
      "In the first calendar",
      "Outside any calendar",
      "In the second calendar",
    ]);
  });
});

describe("zones a feed defines in its own VTIMEZONE", () => {
  it("reads observances listed by RDATE (khal's pattern): each DTSTART and every RDATE value is a change, on both sides", async () => {
    const snapshot = await load("rdate-vtimezone.ics");
    const all = { start: Date.UTC(2014, 0, 1), endExclusive: Date.UTC(2027, 0, 1) };
    expect(
      searchAll(snapshot, all, "overlap").map((occurrence) => [occurrence.details.summary, new Date(occurrence.start).toISOString()]),
    ).toEqual([
      // Before the STANDARD's own DTSTART the zone keeps its TZOFFSETFROM (+02:00); after it, +01:00.
      ["Before the first STANDARD (its DTSTART)", "2014-10-25T08:00:00.000Z"],
      ["After the first STANDARD (its DTSTART)", "2014-10-27T09:00:00.000Z"],
      ["Before the first DAYLIGHT (its DTSTART)", "2015-03-28T09:00:00.000Z"],
      ["After the first DAYLIGHT (its DTSTART)", "2015-03-30T08:00:00.000Z"],
      ["Before spring 2026 (an RDATE in a list)", "2026-03-28T09:00:00.000Z"],
      // 02:30 does not exist that night: moved forward by the gap, to 03:30 CEST.
      ["In the spring 2026 gap", "2026-03-29T01:30:00.000Z"],
      ["After spring 2026 (an RDATE in a list)", "2026-03-30T08:00:00.000Z"],
      ...["20", "21", "22", "23", "24"].map((day) => ["Daily at ten", `2026-10-${day}T08:00:00.000Z`]),
      // The RDATE line of 2026-10-25, one of many: from that day on, 10:00 is 09:00 UTC.
      ...["25", "26", "27", "28", "29"].map((day) => ["Daily at ten", `2026-10-${day}T09:00:00.000Z`]),
    ]);
    expect(snapshot.diagnostics).toEqual([]);
  });

  it("reads observances by yearly RRULE, each from its own DTSTART and up to its UNTIL, on both sides of each change", async () => {
    const snapshot = await load("rrule-vtimezone.ics");
    const all = { start: Date.UTC(2006, 0, 1), endExclusive: Date.UTC(2027, 0, 1) };
    expect(
      searchAll(snapshot, all, "overlap").map((occurrence) => [
        occurrence.details.summary,
        new Date(occurrence.start).toISOString(),
        new Date(occurrence.end).toISOString(),
      ]),
    ).toEqual([
      ["Before spring 2006 (first Sunday of April)", "2006-04-01T15:00:00.000Z", "2006-04-01T16:00:00.000Z"],
      ["After spring 2006 (first Sunday of April)", "2006-04-03T14:00:00.000Z", "2006-04-03T15:00:00.000Z"],
      ["Before autumn 2006 (the old rule's UNTIL)", "2006-10-28T14:00:00.000Z", "2006-10-28T15:00:00.000Z"],
      ["After autumn 2006 (the old rule's UNTIL)", "2006-10-30T15:00:00.000Z", "2006-10-30T16:00:00.000Z"],
      ["Before spring 2007 (the new rule's DTSTART)", "2007-03-10T15:00:00.000Z", "2007-03-10T16:00:00.000Z"],
      ["After spring 2007 (the new rule's DTSTART)", "2007-03-12T14:00:00.000Z", "2007-03-12T15:00:00.000Z"],
      ["In the spring 2026 gap", "2026-03-08T07:30:00.000Z", "2026-03-08T08:00:00.000Z"],
      ...["28", "29", "30", "31"].map((day) => ["Daily at ten", `2026-10-${day}T14:00:00.000Z`, `2026-10-${day}T15:00:00.000Z`]),
      // 01:30 happens twice that night: the first (EDT) is taken.
      ["In the autumn 2026 fold", "2026-11-01T05:30:00.000Z", "2026-11-01T05:45:00.000Z"],
      ...["01", "02", "03"].map((day) => ["Daily at ten", `2026-11-${day}T15:00:00.000Z`, `2026-11-${day}T16:00:00.000Z`]),
    ]);
    expect(snapshot.diagnostics).toEqual([]);
  });
});

describe("small slips the other readers accept", () => {
  it("are read, each with a warning: whitespace before BEGIN:VCALENDAR, an empty parameter, ISO 8601 durations, a date with a Z, END:VCALENDER last", async () => {
    const snapshot = await load("small-slips.ics");
    expect(served(snapshot)).toEqual([
      ["Empty parameter", "2026-10-04T22:00:00.000Z", "2026-10-05T22:00:00.000Z"],
      ["Google RDATE with a Z", "2026-10-06T22:00:00.000Z", "2026-10-07T22:00:00.000Z"],
      ["Google RDATE with a Z", "2026-10-13T22:00:00.000Z", "2026-10-14T22:00:00.000Z"],
      // RDATE:20261016Z, the date 16 October.
      ["Google RDATE with a Z", "2026-10-15T22:00:00.000Z", "2026-10-16T22:00:00.000Z"],
      ["Periods", "2026-10-18T15:00:00.000Z", "2026-10-18T16:00:00.000Z"],
      ["Periods", "2026-10-19T15:00:00.000Z", "2026-10-19T16:00:00.000Z"],
      // Nine nominal days across the end of summer time: 09:00 CEST to 09:00 CET.
      ["Weeks beside days (P1W2D)", "2026-10-20T07:00:00.000Z", "2026-10-29T08:00:00.000Z"],
      ["A week after the T (PT1W)", "2026-10-22T07:00:00.000Z", "2026-10-29T08:00:00.000Z"],
      ["Periods", "2026-10-23T15:00:00.000Z", "2026-10-23T15:30:00.000Z"],
      ["Hours without a T (P1H)", "2026-10-26T08:00:00.000Z", "2026-10-26T09:00:00.000Z"],
      ["Lower-case letters (pt90m)", "2026-10-27T08:00:00.000Z", "2026-10-27T09:30:00.000Z"],
      ["A T with nothing after it (P1DT)", "2026-10-28T08:00:00.000Z", "2026-10-29T08:00:00.000Z"],
    ]);
    expect(warnings(snapshot)).toEqual([
      ["LENIENT_SYNTAX", undefined],
      ["LENIENT_SYNTAX", "empty-parameter@slips.example"],
      ["LENIENT_VALUE", "weeks-and-days@slips.example"],
      ["LENIENT_VALUE", "week-after-t@slips.example"],
      ["LENIENT_VALUE", "hours-without-t@slips.example"],
      ["LENIENT_VALUE", "lower-case@slips.example"],
      ["LENIENT_VALUE", "t-alone@slips.example"],
      ["LENIENT_VALUE", "google-rdate@slips.example"],
      ["LENIENT_VALUE", "periods@slips.example"],
    ]);
  });

  it("a duration with no one reading (P30M: minutes or months?) leaves its event out, with an error", async () => {
    const snapshot = await load("small-slips.ics");
    expect(errors(snapshot)).toContainEqual(["UNREADABLE_COMPONENT", "months@slips.example"]);
    expect(served(snapshot).map(([summary]) => summary)).not.toContain("Minutes or months? (P30M)");
  });

  it("one bad RDATE period (no amount, hour 25) drops only that RDATE, not the event", async () => {
    const snapshot = await load("small-slips.ics");
    const periods = errors(snapshot).filter(([, uid]) => uid === "periods@slips.example");
    expect(periods).toEqual([
      ["UNREADABLE_VALUE", "periods@slips.example"],
      ["UNREADABLE_VALUE", "periods@slips.example"],
      ["UNSUPPORTED_VALUE", "periods@slips.example"],
    ]);
    expect(served(snapshot).filter(([summary]) => summary === "Periods")).toHaveLength(3);
  });

  it("an RDATE period ending before it starts drops only that RDATE, with an error", async () => {
    const snapshot = await load("small-slips.ics");
    const ended = snapshot.diagnostics.filter((found) => found.code === "UNSUPPORTED_VALUE");
    expect(ended).toMatchObject([
      { severity: "error", uid: "periods@slips.example", message: expect.stringContaining("ends before it starts") },
    ]);
    // 21 October (15:00 to 14:00) is left out; 19 and 23 October are served.
    expect(served(snapshot).map(([summary, start]) => `${summary} ${start}`)).not.toContain("Periods 2026-10-21T15:00:00.000Z");
  });

  it("a feed whose last line is END:VCALENDER is complete: not cut, not stale", async () => {
    const { store } = storeOver(fixture("small-slips.ics"));
    expect((await store.reload("cal")).outcome).toBe("loaded");
    const view = store.view("cal")!;
    expect(view.stale).toBe(false);
    expect(view.snapshot?.partial).toBeUndefined();
    expect(view.snapshot?.diagnostics.filter((found) => found.code === "LENIENT_SYNTAX").map((found) => found.line)).toEqual([3, 7, 72]);
  });
});

describe("never one event against the whole calendar", () => {
  it("clamps ends past 9999, leaves out starts before year 1 and a rule value that is no number, and serves the rest", async () => {
    const snapshot = await load("out-of-range.ics");
    expect(served(snapshot)).toEqual([
      ["Lease (days)", "2026-10-02T13:00:00.000Z", "9999-12-30T00:00:00.000Z"],
      ["Lease (weeks)", "2026-10-02T14:00:00.000Z", "9999-12-30T00:00:00.000Z"],
      ["Warranty", "2026-10-02T15:00:00.000Z", "9999-12-30T00:00:00.000Z"],
      ["Lunch", "2026-10-02T16:00:00.000Z", "2026-10-02T17:00:00.000Z"],
      ["Ordinary", "2026-10-02T18:00:00.000Z", "2026-10-02T19:00:00.000Z"],
    ]);
    // In feed order: the year-one event stands before the weekly one.
    expect(errors(snapshot)).toEqual([
      ["INSTANT_OUT_OF_RANGE", "year-one@example.org"],
      ["UNREADABLE_RRULE", "weekly@example.org"],
    ]);
    expect(warnings(snapshot)).toEqual([
      ["END_CLAMPED", "forever-days@example.org"],
      ["END_CLAMPED", "forever-weeks@example.org"],
      ["END_CLAMPED", "end-of-time@example.org"],
    ]);
  });
});

describe("one line replaced by garbage", () => {
  /** Every complete fixture; the cut one is covered above. */
  const names = readdirSync(IMPERFECT).filter((name) => name.endsWith(".ics") && name !== "cut-feed.ics");
  const texts = new Map(names.map((name) => [name, fixture(name)]));

  /** The UID of the VEVENT each line belongs to (undefined outside any VEVENT). */
  function owners(lines: readonly string[]): (string | undefined)[] {
    const result: (string | undefined)[] = [];
    let start = -1;
    for (let i = 0; i < lines.length; i++) {
      if (/^BEGIN:VEVENT$/.test(lines[i])) start = i;
      result.push(undefined);
      if (/^END:VEVENT$/.test(lines[i]) && start !== -1) {
        const uid = lines
          .slice(start, i)
          .find((line) => line.startsWith("UID:"))
          ?.slice(4);
        for (let j = start; j <= i; j++) result[j] = uid;
        start = -1;
      }
    }
    return result;
  }

  const garbage = fc.oneof(
    fc.constantFrom(
      "",
      "garbage",
      "BEGIN:VEVENT",
      "END:VEVENT",
      "END:VCALENDAR",
      "BEGIN:VALARM",
      ";;;:::",
      'X-A;B="',
      "DTSTART:2026",
      "RRULE:FREQ=DAILY",
    ),
    fc.string({ maxLength: 40 }),
  );

  it("still serves every event that line was not part of", () => {
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.nat(), garbage, (name, at, replacement) => {
        const text = texts.get(name)!;
        const lines = text.split(/\r?\n/);
        const index = at % lines.length;
        const mangled = [...lines.slice(0, index), replacement, ...lines.slice(index + 1)].join("\r\n");
        // Without any BEGIN:VCALENDAR the text is no iCalendar at all, and is refused as such.
        fc.pre(/^BEGIN:VCALENDAR$/m.test(mangled));
        // A line starting with a space or tab continues the line before it (RFC 5545 §3.1): it is part of that line's event too.
        const hit = new Set([owners(lines)[index], /^[ \t]/.test(replacement) ? owners(lines)[index - 1] : undefined]);
        const uids = (snapshot: Snapshot) =>
          searchAll(snapshot, AUTUMN, "overlap").map((occurrence) => `${occurrence.details.uid} ${occurrence.details.summary}`);
        const before = uids(snapshotOf(text, READ_AT));
        const after = uids(snapshotOf(mangled, READ_AT));
        for (const event of new Set(before)) {
          if ([...hit].some((owner) => owner !== undefined && event.startsWith(`${owner} `))) continue;
          expect(after, `${name}: line ${index + 1} → ${JSON.stringify(replacement)}`).toContain(event);
        }
      }),
      { numRuns: 400 },
    );
  });
});

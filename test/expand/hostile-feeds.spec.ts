/**
 * Feeds written to hurt: each must load (the test would time out if one
 * stalled), report what it could not use, and keep the rest of the feed.
 * How fast they load is measured in bench/ (npm run bench:hostile), not here.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildSnapshot } from "../../src/ingest/snapshot.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { feed, ics, searchAll, snapshotOf, vevent } from "../support/feeds.js";

const readAt = Date.UTC(2026, 10, 29);
const innocent = ["UID:innocent", "DTSTART:20261130T090000Z", "DTEND:20261130T100000Z", "SUMMARY:still here"];

function loaded(...events: string[][]) {
  const snapshot = snapshotOf(feed(["X-WR-TIMEZONE:UTC"], ...events, innocent), readAt);
  const found = searchAll(snapshot, { start: Date.UTC(2026, 10, 30), endExclusive: Date.UTC(2026, 11, 1) }, "overlap");
  return { snapshot, summaries: found.map((occurrence) => occurrence.details.summary), codes: snapshot.diagnostics.map((d) => d.code) };
}

describe("rules that never produce a date are refused, not searched to the year 9999", () => {
  it.each([
    "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
    "FREQ=SECONDLY;BYMONTH=4,6,9,11;BYMONTHDAY=31",
    "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6",
    "FREQ=WEEKLY;INTERVAL=1;BYDAY=TU;BYMONTH=2;BYMONTHDAY=30",
  ])("%s", (rule) => {
    const { summaries, codes } = loaded(["UID:never", "DTSTART:20261130T000000Z", `RRULE:${rule}`, "SUMMARY:never"]);
    expect(codes).toContain("RRULE_NEVER_MATCHES");
    expect(summaries).toContain("still here");
  });
});

describe("BYSETPOS past every period's dates is refused without asking rrule (it would walk every period to 9999)", () => {
  it.each([
    ["FREQ=MINUTELY;BYSETPOS=53", "at most 1 date"],
    ["FREQ=HOURLY;BYMINUTE=0,30;BYSETPOS=3,-3", "at most 2 dates"],
    ["FREQ=SECONDLY;BYSETPOS=-2", "at most 1 date"],
    ["FREQ=MONTHLY;BYDAY=MO;BYSETPOS=32", "at most 31 dates"],
  ])("%s is refused from the rule alone, before the probe walks it", (rule, why) => {
    // How fast is measured in bench/ (npm run bench:hostile); here, that no walk was needed.
    const { snapshot, codes, summaries } = loaded(["UID:setpos", "DTSTART:20261129T000000Z", `RRULE:${rule}`, "SUMMARY:setpos"]);
    expect(codes).toContain("RRULE_NEVER_MATCHES");
    expect(codes).not.toContain("RRULE_TOO_EXPENSIVE");
    expect(snapshot.diagnostics.find((d) => d.code === "RRULE_NEVER_MATCHES")?.message).toContain(why);
    // The series keeps its DTSTART, as with every refused rule.
    expect(summaries).toContain("still here");
  });

  // DTSTART (00:00) is not a date of the rule but counts as the first of COUNT=3.
  it("keeps a BYSETPOS some period can satisfy: the last half hour of each hour", () => {
    const snapshot = snapshotOf(
      feed(["X-WR-TIMEZONE:UTC"], ["UID:half", "DTSTART:20261129T000000Z", "RRULE:FREQ=HOURLY;BYMINUTE=0,30;BYSETPOS=-1;COUNT=3"]),
      readAt,
    );
    const found = searchAll(snapshot, { start: Date.UTC(2026, 10, 29), endExclusive: Date.UTC(2026, 10, 30) }, "startWithin");
    expect(found.map((occurrence) => new Date(occurrence.start).toISOString().slice(11, 16))).toEqual(["00:00", "00:30", "01:30"]);
    expect(snapshot.diagnostics).toEqual([]);
  });

  it("refuses BYSETPOS=0 as unreadable rather than letting rrule throw", () => {
    const { codes, summaries } = loaded(["UID:zero", "DTSTART:20261129T000000Z", "RRULE:FREQ=DAILY;BYSETPOS=0"]);
    expect(codes).toContain("UNREADABLE_RRULE");
    expect(summaries).toContain("still here");
  });
});

describe('whether a rule is kept, and how far it counts, depends on the feed alone (docs/decisions.md, "Budgets count work")', () => {
  afterEach(() => vi.restoreAllMocks());

  it("keeps a plain weekly rule on a clock that races a minute at every reading", () => {
    const text = feed(
      ["X-WR-TIMEZONE:UTC"],
      ["UID:standup", "DTSTART:20261130T090000Z", "DURATION:PT15M", "RRULE:FREQ=WEEKLY;BYDAY=MO"],
      innocent,
    );
    let racing = readAt;
    vi.spyOn(Date, "now").mockImplementation(() => (racing += 60_000));
    vi.spyOn(performance, "now").mockImplementation(() => (racing += 60_000));
    const snapshot = snapshotOf(text, readAt);
    vi.restoreAllMocks();
    expect(snapshot.diagnostics).toEqual([]);
    const mondays = searchAll(snapshot, { start: Date.UTC(2026, 10, 30), endExclusive: Date.UTC(2026, 11, 29) }, "startWithin");
    expect(mondays.filter((occurrence) => occurrence.details.uid === "standup").map((o) => new Date(o.start).getUTCDate())).toEqual([
      30, 7, 14, 21, 28,
    ]);
  });

  it.each([
    ["WKST=MO", "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", [5, 10, 19, 24]],
    ["WKST=SU", "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", [5, 17, 19, 31]],
  ])("RFC 5545's COUNT=4 example (%s) keeps its four dates after a heavy series used up the feed's expansion work", (_, rule, days) => {
    const text = feed(
      ["X-WR-TIMEZONE:America/New_York"],
      // First in the feed: enough one-minute dates to use up all the expansion work a load may do.
      ["UID:heavy", "DTSTART;TZID=America/New_York:20260101T000000", "DURATION:PT1M", "RRULE:FREQ=MINUTELY;COUNT=50000"],
      ["UID:rfc", "DTSTART;TZID=America/New_York:19970805T090000", `RRULE:${rule}`],
    );
    const snapshot = buildSnapshot(text, { calendarId: "t", limits: { ...defaultLimits(readAt), maxExpansionWork: 2_000 }, readAt });
    expect(snapshot.diagnostics.map((d) => d.code)).toContain("EXPANSION_BUDGET_EXHAUSTED");
    const found = searchAll(snapshot, { start: Date.UTC(1997, 7, 1), endExclusive: Date.UTC(1997, 8, 30) }, "startWithin");
    expect(found.map((occurrence) => new Date(occurrence.start).getUTCDate())).toEqual(days);
  });
});

describe("INTERVALs that never reach their BYHOUR/BYMINUTE/BYSECOND are refused (rrule would loop forever)", () => {
  it.each([
    "FREQ=MINUTELY;INTERVAL=15;BYMINUTE=10",
    "FREQ=HOURLY;INTERVAL=2;BYHOUR=1",
    "FREQ=SECONDLY;INTERVAL=2;BYSECOND=1",
    "FREQ=SECONDLY;INTERVAL=86400;BYHOUR=1",
  ])("%s from midnight", (rule) => {
    const { codes, summaries } = loaded(["UID:loop", "DTSTART:20261129T000000Z", `RRULE:${rule}`]);
    expect(codes).toContain("RRULE_NEVER_MATCHES");
    expect(summaries).toContain("still here");
  });

  it("keeps INTERVALs that do reach them: every 5 hours from 02:00 meets 07:00, and 02:00 again 5 days on", () => {
    const snapshot = snapshotOf(
      feed(["X-WR-TIMEZONE:UTC"], ["DTSTART:20261129T020000Z", "RRULE:FREQ=HOURLY;INTERVAL=5;BYHOUR=2,7;COUNT=4"]),
      readAt,
    );
    const found = searchAll(snapshot, { start: Date.UTC(2026, 10, 29), endExclusive: Date.UTC(2026, 11, 10) }, "startWithin");
    expect(found.map((occurrence) => new Date(occurrence.start).toISOString())).toEqual([
      "2026-11-29T02:00:00.000Z",
      "2026-11-29T07:00:00.000Z",
      "2026-12-04T02:00:00.000Z",
      "2026-12-04T07:00:00.000Z",
    ]);
  });
});

describe("other hostile components", () => {
  it("a VTIMEZONE whose observance recurs every minute is refused, and events in it are read as floating, with warnings", () => {
    const text = ics(
      "BEGIN:VTIMEZONE",
      "TZID:Spinning",
      "BEGIN:STANDARD",
      "DTSTART:19700101T000000",
      "RRULE:FREQ=MINUTELY",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0200",
      "END:STANDARD",
      "END:VTIMEZONE",
      ...vevent("UID:spun", "DTSTART;TZID=Spinning:20261130T090000"),
      ...vevent(...innocent),
    );
    const snapshot = snapshotOf(text, readAt, "UTC");
    expect(snapshot.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["UNREADABLE_TIMEZONE", "warning"],
      ["UNKNOWN_TZID", "warning"],
    ]);
    expect(snapshot.index.items.map((occurrence) => [occurrence.details.uid, new Date(occurrence.start).toISOString()]).sort()).toEqual([
      ["innocent", "2026-11-30T09:00:00.000Z"],
      ["spun", "2026-11-30T09:00:00.000Z"],
    ]);
  });

  it("an event with 200,000 RDATEs loads and does not take the calendar down with it", () => {
    const rdates = Array.from({ length: 200_000 }, (_, i) =>
      new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace(/[-:]|\.\d+/g, ""),
    );
    const { summaries, snapshot } = loaded(["UID:many", "DTSTART:20251231T000000Z", `RDATE:${rdates.join(",")}`, "SUMMARY:many"]);
    expect(summaries).toContain("still here");
    expect(snapshot.index.size).toBeGreaterThan(1000);
  });

  it("an all-day event with an hours-only DURATION lasts its day (docs/imperfect-feeds.md), with a warning", () => {
    const { codes, snapshot } = loaded(["UID:odd", "DTSTART;VALUE=DATE:20261130", "DURATION:PT1H", "SUMMARY:odd"]);
    expect(codes).toEqual(["LENIENT_VALUE"]);
    const odd = snapshot.index.items.find((occurrence) => occurrence.details.uid === "odd");
    expect([odd?.start, odd?.end]).toEqual([Date.UTC(2026, 10, 30), Date.UTC(2026, 11, 1)]);
  });

  it("stops indexing at the feed's cap and answers the rest on demand, exactly", () => {
    const text = feed(
      ["X-WR-TIMEZONE:UTC"],
      ...Array.from({ length: 5 }, (_, i) => [`UID:s${i}`, "DTSTART:20261101T090000Z", "RRULE:FREQ=DAILY"]),
    );
    const capped = buildSnapshot(text, { calendarId: "t", limits: { ...defaultLimits(readAt), maxOccurrencesPerFeed: 100 }, readAt });
    const full = snapshotOf(text, readAt);
    expect(capped.index.size).toBeLessThanOrEqual(100);
    expect(capped.diagnostics.map((d) => d.code)).toContain("FEED_CAPPED");
    const window = { start: Date.UTC(2026, 11, 1), endExclusive: Date.UTC(2027, 1, 1) };
    const ids = (snapshot: typeof full) => searchAll(snapshot, window, "overlap", 7).map((o) => `${o.details.uid}@${o.start}`);
    expect(ids(capped)).toEqual(ids(full));
    expect(ids(full)).toHaveLength(5 * 62);
  });
});

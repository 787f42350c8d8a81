/**
 * The examples of the article the contract comes from (shared/seed), verbatim:
 * a "Friday morning" search 09:00-12:00 in Asia/Ho_Chi_Minh, and the New York
 * fold of 2026-11-01.
 */
import { describe, expect, it } from "vitest";
import { buildSnapshot, type Snapshot } from "../../src/ingest/snapshot.js";
import type { MatchMode } from "../../src/search/match.js";
import { searchPage } from "../../src/search/search-occurrences.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { resolveWindow } from "../../src/time/request-window.js";
import { ics, vevent } from "../support/feeds.js";

const HCM = "Asia/Ho_Chi_Minh";
const readAt = Date.UTC(2026, 8, 1);

const friday = buildSnapshot(
  ics(
    ...vevent(
      "UID:a",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T083000",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T093000",
      "SUMMARY:08:30-09:30",
    ),
    ...vevent(
      "UID:b",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T080000",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T090000",
      "SUMMARY:ends 09:00",
    ),
    ...vevent(
      "UID:c",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T120000",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T130000",
      "SUMMARY:starts 12:00",
    ),
    ...vevent(
      "UID:d",
      "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T113000",
      "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T123000",
      "SUMMARY:11:30-12:30",
    ),
  ),
  { calendarId: "work", configuredZone: HCM, limits: defaultLimits(readAt), readAt },
);

function found(snapshot: Snapshot, start: string, endExclusive: string, mode: MatchMode, timezone = HCM): string[] {
  const window = resolveWindow({ start, endExclusive, timezone }, 366 * 86_400_000);
  return searchPage(snapshot, { window, mode, limit: 100 }).occurrences.map((occurrence) => occurrence.details.summary);
}

describe("the seed's Friday-morning search, 09:00-12:00 (+07:00)", () => {
  const morning = ["2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00"] as const;
  const afternoon = ["2026-10-02T12:00:00+07:00", "2026-10-02T15:00:00+07:00"] as const;

  it("a meeting from 08:30 to 09:30 overlaps the window", () => {
    expect(found(friday, ...morning, "overlap")).toContain("08:30-09:30");
  });

  it("it does not start within the window", () => {
    expect(found(friday, ...morning, "startWithin")).not.toContain("08:30-09:30");
  });

  it("a meeting ending at 09:00 matches neither mode", () => {
    expect(found(friday, ...morning, "overlap")).not.toContain("ends 09:00");
    expect(found(friday, ...morning, "startWithin")).not.toContain("ends 09:00");
  });

  it("a meeting starting at 12:00 matches neither mode", () => {
    expect(found(friday, ...morning, "overlap")).not.toContain("starts 12:00");
    expect(found(friday, ...morning, "startWithin")).not.toContain("starts 12:00");
  });

  it("11:30-12:30 overlaps both adjacent windows, and starts within exactly one", () => {
    expect(found(friday, ...morning, "overlap")).toContain("11:30-12:30");
    expect(found(friday, ...afternoon, "overlap")).toContain("11:30-12:30");
    const startWithin = [found(friday, ...morning, "startWithin"), found(friday, ...afternoon, "startWithin")];
    expect(startWithin.filter((summaries) => summaries.includes("11:30-12:30"))).toHaveLength(1);
  });

  it("the overlap results are exactly the two crossing meetings", () => {
    expect(found(friday, ...morning, "overlap")).toEqual(["08:30-09:30", "11:30-12:30"]);
  });
});

describe("the seed's New York fold, 2026-11-01", () => {
  // 01:15 in the first (EDT) pass to 01:45 in the second (EST) pass.
  const fold = buildSnapshot(
    // DTSTART names the ambiguous wall time 01:15: RFC 5545 takes its first (EDT) instant.
    ics(...vevent("UID:fold", "DTSTART;TZID=America/New_York:20261101T011500", "DTEND:20261101T064500Z", "SUMMARY:01:15 EDT - 01:45 EST")),
    { calendarId: "ny", configuredZone: "America/New_York", limits: defaultLimits(readAt), readAt },
  );

  it("lasts 90 minutes once compared as instants", () => {
    const [occurrence] = fold.index.items;
    expect(occurrence.end - occurrence.start).toBe(90 * 60_000);
  });

  it("overlaps the query 01:30-01:40 in the second (EST) pass", () => {
    expect(found(fold, "2026-11-01T01:30:00-05:00", "2026-11-01T01:40:00-05:00", "overlap", "America/New_York")).toEqual([
      "01:15 EDT - 01:45 EST",
    ]);
  });

  it("also overlaps 01:30-01:40 in the first (EDT) pass, which it spans", () => {
    expect(found(fold, "2026-11-01T01:30:00-04:00", "2026-11-01T01:40:00-04:00", "overlap", "America/New_York")).toHaveLength(1);
  });
});

import { describe, expect, it } from "vitest";
import { CalqError } from "../../src/calq-error.js";
import { resolveWindow } from "../../src/time/request-window.js";

const DAY = 86_400_000;

function window(start: string, endExclusive: string, timezone = "Asia/Ho_Chi_Minh") {
  return resolveWindow({ start, endExclusive, timezone }, 366 * DAY);
}

function refusal(start: string, endExclusive: string, timezone = "Asia/Ho_Chi_Minh"): CalqError {
  try {
    window(start, endExclusive, timezone);
  } catch (error) {
    if (error instanceof CalqError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("request instants", () => {
  it("reads an RFC 3339 instant whose offset matches the zone", () => {
    const w = window("2026-10-02T09:00:00+07:00", "2026-10-02T12:00:00+07:00");
    expect(new Date(w.start).toISOString()).toBe("2026-10-02T02:00:00.000Z");
    expect(new Date(w.endExclusive).toISOString()).toBe("2026-10-02T05:00:00.000Z");
  });

  it("refuses local time written as UTC with a non-UTC zone", () => {
    const error = refusal("2026-10-02T09:00:00Z", "2026-10-02T12:00:00+07:00");
    expect(error.reason).toBe("TIMEZONE_OFFSET_MISMATCH");
    expect(error.field).toBe("start");
    expect(error.metadata.zone_offset).toBe("+07:00");
  });

  it("accepts Z when the zone is UTC, and when the zone's offset is zero at that instant", () => {
    expect(window("2026-10-02T09:00:00Z", "2026-10-02T12:00:00Z", "UTC").start).toBe(Date.UTC(2026, 9, 2, 9));
    expect(window("2026-01-15T09:00:00Z", "2026-01-15T12:00:00Z", "Europe/London").start).toBe(Date.UTC(2026, 0, 15, 9));
  });

  it("checks the offset against the zone at that instant, summer and winter", () => {
    expect(refusal("2026-07-01T09:00:00-05:00", "2026-07-01T10:00:00-04:00", "America/New_York").reason).toBe("TIMEZONE_OFFSET_MISMATCH");
    expect(window("2026-12-01T09:00:00-05:00", "2026-12-01T10:00:00-05:00", "America/New_York").start).toBe(Date.UTC(2026, 11, 1, 14));
  });

  it("reads local wall time without offset in the zone", () => {
    const w = window("2026-10-02T09:00:00", "2026-10-02T12:00", "Asia/Ho_Chi_Minh");
    expect(w.start).toBe(Date.UTC(2026, 9, 2, 2));
    expect(w.endExclusive).toBe(Date.UTC(2026, 9, 2, 5));
  });

  it("refuses a wall time inside the spring-forward gap", () => {
    const error = refusal("2026-03-08T02:30:00", "2026-03-08T05:00:00", "America/New_York");
    expect(error.reason).toBe("NONEXISTENT_LOCAL_TIME");
    expect(error.field).toBe("start");
  });

  it("refuses a wall time inside the fall-back fold and names both instants", () => {
    const error = refusal("2026-11-01T01:30:00", "2026-11-01T05:00:00", "America/New_York");
    expect(error.reason).toBe("AMBIGUOUS_TIMEZONE");
    expect(error.metadata).toEqual({ earlier: "2026-11-01T01:30:00-04:00", later: "2026-11-01T01:30:00-05:00" });
  });

  it("accepts either fold instant once its offset is given", () => {
    const first = window("2026-11-01T01:30:00-04:00", "2026-11-01T03:00:00-05:00", "America/New_York");
    const second = window("2026-11-01T01:30:00-05:00", "2026-11-01T03:00:00-05:00", "America/New_York");
    expect(second.start - first.start).toBe(3_600_000);
  });

  it("reads a date as the first instant of that day in the zone", () => {
    expect(window("2026-10-02", "2026-10-03").start).toBe(Date.UTC(2026, 9, 1, 17));
  });

  it("starts a day at the end of a gap when midnight is skipped", () => {
    // America/Santiago springs forward at 24:00 on 2026-09-05: the 6th starts at 01:00 (-03:00).
    const w = window("2026-09-06", "2026-09-07", "America/Santiago");
    expect(new Date(w.start).toISOString()).toBe("2026-09-06T04:00:00.000Z");
  });

  it("keeps milliseconds and refuses non-zero digits below them", () => {
    expect(window("2026-10-02T09:00:00.123+07:00", "2026-10-02T10:00:00.123000+07:00").start).toBe(Date.UTC(2026, 9, 2, 2, 0, 0, 123));
    expect(refusal("2026-10-02T09:00:00.1234+07:00", "2026-10-02T10:00:00+07:00").reason).toBe("INVALID_TIMESTAMP");
  });

  it.each([
    ["not a time"],
    ["2026-02-30"],
    ["2026-10-02T24:00:00"],
    ["2026-10-02T09:00:60"],
    ["2026-10-02 09:00:00"],
    ["2026-10-02t09:00:00"],
    ["2026-10-02T09:00:00+0700"],
    ["2026-10-02T09:00:00-00:00"],
    [""],
  ])("refuses %j as INVALID_TIMESTAMP", (text) => {
    expect(refusal(text, "2026-10-03").reason).toBe("INVALID_TIMESTAMP");
  });
});

describe("request zones", () => {
  it.each([["+07:00"], ["UTC+7"], ["EST"], ["est"], ["CET"], ["EST5EDT"], ["GB"], ["NZ"], ["Zulu"], ["Mars/Olympus_Mons"], [""]])(
    "refuses %j as UNKNOWN_TIMEZONE",
    (zone) => {
      const error = refusal("2026-10-02", "2026-10-03", zone);
      expect(error.reason).toBe("UNKNOWN_TIMEZONE");
      expect(error.field).toBe("timezone");
    },
  );

  it.each([["UTC"], ["Etc/UTC"], ["asia/ho_chi_minh"], ["America/Argentina/Buenos_Aires"], ["Asia/Saigon"]])("accepts %j", (zone) => {
    const w = window("2026-10-02", "2026-10-03", zone);
    expect(w.endExclusive - w.start).toBe(86_400_000);
  });

  it("echoes the zone as the caller wrote it", () => {
    expect(window("2026-10-02", "2026-10-03", "asia/ho_chi_minh").timezone).toBe("asia/ho_chi_minh");
  });
});

describe("request windows", () => {
  it("refuses an empty or reversed window", () => {
    expect(refusal("2026-10-02T09:00:00+07:00", "2026-10-02T09:00:00+07:00").reason).toBe("INVALID_INTERVAL");
    expect(refusal("2026-10-02T10:00:00+07:00", "2026-10-02T09:00:00+07:00").reason).toBe("INVALID_INTERVAL");
  });

  it("refuses a window longer than the maximum and says the maximum", () => {
    const error = refusal("2026-01-01", "2027-01-03");
    expect(error.reason).toBe("INVALID_INTERVAL");
    expect(error.metadata.max_window_days).toBe("366");
    expect(window("2026-01-01", "2027-01-02").endExclusive).toBeGreaterThan(0);
  });

  it("accepts the edges of the supported range and refuses beyond them", () => {
    expect(window("1900-01-01T00:00:00Z", "1900-01-02T00:00:00Z", "UTC").start).toBe(Date.UTC(1900, 0, 1));
    expect(window("2199-12-31T00:00:00Z", "2200-01-01T00:00:00Z", "UTC").endExclusive).toBe(Date.UTC(2200, 0, 1));
    expect(refusal("1899-12-31T23:59:59Z", "1900-01-02T00:00:00Z", "UTC").reason).toBe("INVALID_INTERVAL");
    expect(refusal("2199-12-31T00:00:00Z", "2200-01-01T00:00:00.001Z", "UTC").reason).toBe("INVALID_INTERVAL");
    expect(refusal("9999-01-01", "9999-01-02", "UTC").reason).toBe("INVALID_INTERVAL");
  });
});

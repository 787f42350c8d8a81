/**
 * The RFC 3339 renderings every result carries: the same text as the
 * platform's own ISO rendering for every supported instant, offsets with
 * their seconds when a zone had some, and both sides of a fall-back told
 * apart by their offsets.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { civil, formatDate, formatInZone, formatLocalDateTime, formatOffset } from "../../src/time/civil.js";
import { ianaZone } from "../../src/time/zones.js";

const SUPPORTED = { min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) - 1 };

describe("civil wall-time numbers", () => {
  /** What Date's own setters make of the fields: the reading civil() keeps without making a Date. */
  function bySetters(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    date.setUTCHours(hour, minute, second, ms);
    return date.getTime();
  }

  it("equal Date's reading of the fields, carries out of range included (day 0 and 40, month 13, hour 24), any year its own", () => {
    const field = (min: number, max: number) => fc.integer({ min, max });
    fc.assert(
      fc.property(
        fc.oneof(field(-300, 300), field(1890, 2210), field(-280_000, 280_000)),
        field(-14, 27),
        field(-40, 70),
        field(-30, 50),
        field(-70, 130),
        field(-70, 130),
        field(-2000, 2000),
        (year, month, day, hour, minute, second, ms) => {
          expect(civil(year, month, day, hour, minute, second, ms)).toBe(bySetters(year, month, day, hour, minute, second, ms));
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe("civil renderings", () => {
  it("render a wall time as toISOString does, without the Z and without a zero fraction", () => {
    fc.assert(
      fc.property(fc.integer(SUPPORTED), (local) => {
        const iso = new Date(local).toISOString().slice(0, -1);
        expect(formatLocalDateTime(local)).toBe(iso.endsWith(".000") ? iso.slice(0, -4) : iso);
        expect(formatDate(local)).toBe(iso.slice(0, 10));
      }),
      { numRuns: 2_000 },
    );
  });

  it("render offsets with their sign, and their seconds when there are some, the same each time", () => {
    expect(formatOffset(7 * 3_600_000)).toBe("+07:00");
    expect(formatOffset(-(4 * 3_600_000 + 30 * 60_000))).toBe("-04:30");
    expect(formatOffset(0)).toBe("+00:00");
    expect(formatOffset(7 * 3_600_000 + 6 * 60_000 + 30_000)).toBe("+07:06:30");
    expect(formatOffset(7 * 3_600_000 + 6 * 60_000 + 30_000)).toBe("+07:06:30");
  });

  it("tell the two 01:30s of New York's fall-back apart by their offsets", () => {
    const zone = ianaZone("America/New_York")!;
    const first = Date.UTC(2026, 10, 1, 5, 30);
    expect(formatInZone(first, zone)).toBe("2026-11-01T01:30:00-04:00");
    expect(formatInZone(first + 3_600_000, zone)).toBe("2026-11-01T01:30:00-05:00");
  });

  it("keep the seconds of a local mean time offset, and a fraction of a second", () => {
    expect(formatInZone(Date.UTC(1900, 0, 1, 12, 0, 0, 250), ianaZone("Asia/Ho_Chi_Minh")!)).toBe("1900-01-01T19:06:30.250+07:06:30");
  });
});

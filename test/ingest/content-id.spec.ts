/**
 * A snapshot's id names its content: the same bytes read the same way give
 * the same id on any replica; a change to the bytes or to how they are read
 * gives another.
 */
import { describe, expect, it } from "vitest";
import { contentDigest } from "../../src/feeds/feed-read.js";
import { snapshotContentId, snapshotContentIdOf } from "../../src/ingest/content-id.js";

const bytes = new TextEncoder().encode("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
const reading = {
  calendarId: "work",
  configuredZone: "Asia/Ho_Chi_Minh",
  maxComponents: 100,
  limits: { maxOccurrencesPerSeries: 10, maxOccurrencesPerFeed: 20 },
};

describe("snapshot content ids", () => {
  it("are the same for the same bytes read the same way", () => {
    expect(snapshotContentId(bytes, reading)).toBe(snapshotContentId(new Uint8Array(bytes), { ...reading }));
    expect(snapshotContentId(bytes, reading)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("differ when the bytes, the calendar, the zone or a cap differ", () => {
    const id = snapshotContentId(bytes, reading);
    const others = [
      snapshotContentId(new TextEncoder().encode("BEGIN:VCALENDAR\r\nX:1\r\nEND:VCALENDAR\r\n"), reading),
      snapshotContentId(bytes, { ...reading, calendarId: "home" }),
      snapshotContentId(bytes, { ...reading, configuredZone: undefined }),
      snapshotContentId(bytes, { ...reading, maxComponents: 101 }),
      snapshotContentId(bytes, { ...reading, limits: { ...reading.limits, maxOccurrencesPerSeries: 11 } }),
    ];
    expect(new Set([id, ...others]).size).toBe(6);
  });

  it("are the same from the bytes or from the digest a reader already took of them", async () => {
    expect(snapshotContentIdOf(await contentDigest(bytes), reading)).toBe(snapshotContentId(bytes, reading));
  });
});

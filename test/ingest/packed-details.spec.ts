/**
 * The events' details cross from an ingest worker as columns and come back
 * equal, field for field, to the objects they were packed from: each status
 * and flag, a LAST-MODIFIED present or absent, text beyond ASCII, and the
 * searchable text of a description cut inside a surrogate pair, CLASS and
 * what only GetEvent reads (organizer, attendees, links, categories).
 */
import { describe, expect, it } from "vitest";
import type { EventDetails } from "../../src/expand/occurrence.js";
import { detailsReader, packDetails } from "../../src/ingest/packed-details.js";
import { ics, snapshotOf, vevent } from "../support/feeds.js";

const readAt = Date.UTC(2026, 10, 29);

const text = ics(
  "X-WR-TIMEZONE:Europe/Paris",
  ...vevent(
    "UID:tentative@calq.test",
    "DTSTART;TZID=Europe/Paris:20261201T090000",
    "DURATION:PT1H",
    "SUMMARY:Réunion d'équipe",
    "LOCATION:Salle Ø, 2ᵉ étage",
    "STATUS:TENTATIVE",
    "TRANSP:TRANSPARENT",
    "LAST-MODIFIED:20261101T120000Z",
    "CLASS:PRIVATE",
    'ORGANIZER;CN="Ana Núñez":mailto:ana@example.com',
    "ATTENDEE;PARTSTAT=ACCEPTED:mailto:bo@example.com",
    "CATEGORIES:Équipe",
    "X-GOOGLE-CONFERENCE:https://meet.example/abc",
  ),
  ...vevent("UID:holiday@calq.test", "DTSTART;VALUE=DATE:20261224", "SUMMARY:会议", "STATUS:CONFIRMED"),
  ...vevent("UID:floating@calq.test", "DTSTART:20261202T080000", "SUMMARY:floating"),
  ...vevent("UID:weekly@calq.test", "DTSTART:20261203T150000Z", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:weekly"),
  ...vevent("UID:weekly@calq.test", "RECURRENCE-ID:20261210T150000Z", "DTSTART:20261210T160000Z", "SUMMARY:weekly, moved"),
  // The searched description keeps its first 4,096 code units: this one is cut between the halves of 🗓.
  ...vevent("UID:long@calq.test", "DTSTART:20261204T150000Z", "SUMMARY:long", `DESCRIPTION:${"x".repeat(4_095)}🗓 agenda`),
);

/** Every distinct details object of a snapshot, in index order. */
function detailsOf(feedText: string): EventDetails[] {
  return [...new Set(snapshotOf(feedText, readAt).index.items.map((occurrence) => occurrence.details))];
}

describe("packed details", () => {
  const original = detailsOf(text);

  it("cover what the fixture means them to: each status, both kinds of LAST-MODIFIED, a lone surrogate, CLASS and what GetEvent reads", () => {
    expect(original.some((details) => details.classified === true)).toBe(true);
    expect(original.some((details) => details.classified === undefined)).toBe(true);
    expect(original.find((details) => details.classified)?.about?.attendees).toHaveLength(1);
    expect(new Set(original.map((details) => details.status))).toEqual(new Set(["", "CONFIRMED", "TENTATIVE"]));
    expect(original.some((details) => details.lastModified === undefined)).toBe(true);
    expect(original.some((details) => details.lastModified !== undefined)).toBe(true);
    expect(original.some((details) => /[\uD800-\uDBFF]$/.test(details.searchable))).toBe(true);
  });

  it("come back from another thread equal, field for field, to the details they were packed from", () => {
    const read = detailsReader(structuredClone(packDetails(original)));
    const unpacked = original.map((_, i) => read(i));
    expect(unpacked).toStrictEqual(original);
  });

  it("share their columns with the other thread rather than copying them", () => {
    const packed = packDetails(original);
    const crossed = structuredClone(packed);
    crossed.flags[0] ^= 0xff;
    expect(packed.flags[0]).toBe(crossed.flags[0]);
    expect(packed.strings.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it("keep ranges of a packed set byte for byte, before the fresh ones", () => {
    const packed = packDetails(original);
    const kept = packDetails(original.slice(0, 2), { details: packed, ranges: [{ from: 3, to: original.length }] });
    const read = detailsReader(kept);
    expect(Array.from({ length: kept.count }, (_, i) => read(i))).toStrictEqual([...original.slice(3), ...original.slice(0, 2)]);
  });
});

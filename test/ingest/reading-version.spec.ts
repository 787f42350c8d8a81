/**
 * The reading version cannot be forgotten. Snapshot ids digest the feed's
 * bytes with READING_VERSION, so a change in how calq reads feeds must bump
 * it, or two builds that read a feed differently would claim one snapshot id
 * and a cursor would continue on data it was not made for. This test reads
 * every feed fixture and the demo data and compares what they answer with
 * READING_FINGERPRINT, recorded beside the version: a reading change fails
 * here until both are updated together.
 */
import { describe, expect, it } from "vitest";
import { READING_FINGERPRINT, READING_VERSION } from "../../src/ingest/content-id.js";
import { buildSnapshot } from "../../src/ingest/snapshot.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { answersOf, digestOf, readingFixtures } from "../support/reading.js";

const readAt = Date.UTC(2026, 10, 29);

function fingerprint(): string {
  const lines: string[] = [];
  for (const { path, text } of readingFixtures()) {
    try {
      const snapshot = buildSnapshot(text, { calendarId: "t", limits: defaultLimits(readAt), readAt });
      lines.push(`${path} ${digestOf(answersOf(snapshot, readAt))}`);
    } catch (error) {
      lines.push(`${path} refused ${error instanceof Error ? error.name : String(error)}`);
    }
  }
  return digestOf(lines);
}

describe("the reading version", () => {
  it("is bumped with every change in how feeds read: the fixtures answer as READING_FINGERPRINT records", () => {
    const now = fingerprint();
    expect(
      now,
      `the feed fixtures now read differently: bump READING_VERSION (now ${READING_VERSION}) and set READING_FINGERPRINT to "${now}"`,
    ).toBe(READING_FINGERPRINT);
  });

  it("tells apart two readings that differ in a single answer (the fingerprint can fail)", () => {
    const work = readingFixtures().find((fixture) => fixture.path.endsWith("work.ics"))!;
    const snapshot = buildSnapshot(work.text, { calendarId: "t", limits: defaultLimits(readAt), readAt });
    const answers = answersOf(snapshot, readAt);
    expect(answers.length).toBeGreaterThan(2);
    const changed = [...answers.slice(0, -1), `${answers.at(-1)} moved`];
    expect(digestOf(changed)).not.toBe(digestOf(answers));
  });
});

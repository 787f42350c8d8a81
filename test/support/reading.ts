/**
 * What a snapshot answers, as one digest: every occurrence a search finds in
 * the indexed years and in a far window answered on demand, each with what a
 * result shows, plus the zone and every diagnostic. Two snapshots with the
 * same digest answer alike; the feed fixtures' digest pins how calq reads
 * (src/ingest/content-id.ts: READING_VERSION and READING_FINGERPRINT).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eventIdOf } from "../../src/expand/occurrence.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import { searchAll } from "./feeds.js";

const YEAR_MS = 365.25 * 86_400_000;

/** The feeds whose reading is pinned: the demo data and every ICS fixture, by path. */
export function readingFixtures(): { path: string; text: string }[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ics")) found.push(path);
    }
  };
  walk("data");
  walk("test/fixtures");
  return found.sort().map((path) => ({ path, text: readFileSync(path, "utf8") }));
}

/** One line per answer of the snapshot, read at `readAt`. */
export function answersOf(snapshot: Snapshot, readAt: number): string[] {
  const lines = [`zone ${snapshot.zone.name} ${snapshot.zoneSource} events ${snapshot.eventCount}`];
  for (const { code, severity, uid, line } of snapshot.diagnostics) lines.push(`diagnostic ${code} ${severity} ${uid ?? ""} ${line ?? ""}`);
  const windows = [
    { start: readAt - YEAR_MS, endExclusive: readAt + 2 * YEAR_MS },
    { start: Date.UTC(2150, 0, 1), endExclusive: Date.UTC(2150, 1, 1) },
  ];
  for (const window of windows) {
    for (const occurrence of searchAll(snapshot, window, "overlap")) {
      const { details } = occurrence;
      lines.push(
        [
          eventIdOf(occurrence),
          occurrence.start,
          occurrence.end,
          details.summary,
          details.location,
          details.status,
          details.transparent,
          details.eventTimezone,
          details.allDay,
        ].join(" "),
      );
    }
  }
  return lines;
}

/** The SHA-256 (hex) of answer lines. */
export function digestOf(lines: readonly string[]): string {
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}

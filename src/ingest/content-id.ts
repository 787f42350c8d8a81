/**
 * A snapshot's id as a digest of what decides its answers: the calendar id,
 * the feed's bytes, the reading configuration (the configured zone and the
 * component and occurrence caps) and the version of calq's reading rules.
 * Every replica that read the same bytes the same way names the snapshot
 * alike, so a cursor continues on any of them, and after a restart.
 */
import { createHash } from "node:crypto";
import packageJson from "../../package.json" with { type: "json" };

/** How a feed is read: what, besides its bytes, decides a snapshot's answers. */
export interface ReadingConfig {
  readonly calendarId: string;
  readonly configuredZone?: string;
  readonly maxComponents?: number;
  readonly limits: { readonly maxOccurrencesPerSeries: number; readonly maxOccurrencesPerFeed: number };
}

/**
 * The version of how calq reads a feed into occurrences. Bump it with any
 * change that makes the same bytes read differently (a new lenient reading,
 * a changed recurrence rule), so cursors from before the change expire
 * instead of continuing on a snapshot whose pages would differ.
 * test/ingest/reading-version.spec.ts holds it to READING_FINGERPRINT.
 */
export const READING_VERSION = 4;

/**
 * What the feed fixtures and the demo data answer under READING_VERSION,
 * as one digest (test/support/reading.ts). A change in reading changes it,
 * and the test fails until both are updated together.
 */
export const READING_FINGERPRINT = "2b2db1a262dcc95d15d671fc4e77b4e2a15ba835aecea8ba97002fb6e89c0915";

/** 16 bytes of SHA-256 in base64url: the same bytes read the same way give the same id, everywhere. */
export function snapshotContentId(bytes: Uint8Array, request: ReadingConfig): string {
  return snapshotContentIdOf(createHash("sha256").update(bytes).digest("hex"), request);
}

/**
 * The same id from the feed's SHA-256 in hex, as the readers already
 * computed it to tell a changed feed from an unchanged one (FeedVersion.digest),
 * so a reload hashes its bytes once.
 */
export function snapshotContentIdOf(feedDigest: string, request: ReadingConfig): string {
  const reading = JSON.stringify({
    engine: `${packageJson.version}/${READING_VERSION}`,
    calendar: request.calendarId,
    zone: request.configuredZone ?? null,
    maxComponents: request.maxComponents ?? null,
    maxOccurrencesPerSeries: request.limits.maxOccurrencesPerSeries,
    maxOccurrencesPerFeed: request.limits.maxOccurrencesPerFeed,
  });
  return createHash("sha256").update(reading).update("\n").update(feedDigest).digest().subarray(0, 16).toString("base64url");
}

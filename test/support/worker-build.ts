/**
 * A snapshot built as an ingest worker builds it (packed-build.ts), but on
 * this thread: packed, crossed as postMessage would carry it, unpacked.
 * Tests of what a worker answers use it without starting one; `previous`
 * gives the build the calendar's snapshot before, as a reload does.
 */
import { buildPacked } from "../../src/ingest/packed-build.js";
import { packedFormOf, unpackSnapshot } from "../../src/ingest/packed-snapshot.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import { defaultLimits } from "../../src/store/calendar-store.js";

/** How a test reads a feed: at `readAt`, in `configuredZone`, with the default limits unless others are given. */
export interface WorkerBuildOptions {
  readonly readAt: number;
  readonly configuredZone?: string;
  readonly limits?: Partial<ReturnType<typeof defaultLimits>>;
  readonly maxComponents?: number;
  readonly previous?: Snapshot;
}

/** The snapshot of `text` as a worker builds and the main thread unpacks it. */
export function workerBuild(text: string, options: WorkerBuildOptions): Snapshot {
  const { readAt, configuredZone, previous } = options;
  const request = {
    calendarId: "t",
    configuredZone,
    limits: { ...defaultLimits(readAt), ...options.limits },
    readAt,
    maxComponents: options.maxComponents,
    partialAllowed: false,
  };
  const packed = buildPacked({ bytes: Buffer.from(text) }, request, previous === undefined ? undefined : packedFormOf(previous));
  return unpackSnapshot(structuredClone(packed));
}

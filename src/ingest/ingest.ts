/**
 * Feed bytes to a snapshot, the one way: reloads (the store), ImportCalendar
 * validation (admin) and `calq check` all read a feed through here, so they
 * agree on what a feed means and none of them holds the event loop.
 *
 * Decoding, the cheap refusals (empty, not iCalendar, cut short), parsing,
 * expansion and indexing run in a pool of worker threads sized to the cores,
 * and the snapshot comes back packed (typed arrays on shared memory, see
 * packed-snapshot.ts), so this thread only wraps it. Given the calendar's
 * previous snapshot, the worker reads again only what changed.
 *
 * What a build reads depends on its bytes and configuration alone: every
 * budget inside it counts work. The one bound in time is a safety net for
 * runaway work: a build past its deadline has its worker terminated and
 * fails as `build_stopped`, so nothing is made of it and the next poll
 * reads the feed again (docs/decisions.md, "Budgets count work").
 */
import { availableParallelism } from "node:os";
import type { CalendarConfig, FeedLimits } from "../config/config-model.js";
import type { ExpansionLimits } from "../expand/expand-calendar.js";
import { FeedFailure, type FeedFailureClass } from "../feeds/feed-read.js";
import { NotICalendarError } from "../ics/parse-calendar.js";
import type { BuildRequest } from "./feed-text.js";
import { type PackedSnapshot, packedFormOf, releasePackedForm, unpackSnapshot } from "./packed-snapshot.js";
import type { Snapshot } from "./snapshot.js";
import { siblingScript, WorkerDeadlineError, WorkerPool } from "./worker-pool.js";

/** What the main thread asks of an ingest worker. */
export interface BuildTask {
  /** Moved to the worker when handed over (IngestOptions.handOver), else copied; the build takes them out once read. */
  bytes?: Uint8Array;
  readonly request: BuildRequest;
  /** The calendar's previous snapshot, packed: its arrays are shared, not copied (IngestOptions.previous). */
  readonly previous?: PackedSnapshot;
}

/** What an ingest worker answers, and how much the build grew its heap (V8's total heap size, in bytes). */
export type BuildAnswer = { readonly heapGrowthBytes: number } & (
  | { readonly kind: "built"; readonly packed: PackedSnapshot }
  | { readonly kind: "refused"; readonly failure: FeedFailureClass; readonly detail: string }
  /** A throw other than FeedFailure: its name, and its stack without the message line (which may quote the feed). */
  | { readonly kind: "failed"; readonly errorName: string; readonly stack: string }
);

/**
 * How long one build may run in a worker before it is terminated: far above
 * any real feed (the 100k-event benchmark feed builds in about 2 s) and far
 * below the minutes a hostile rule could take.
 */
export const BUILD_DEADLINE_MS = 60_000;

/**
 * A worker whose heap a build grew by more than this is retired rather than
 * kept: V8 keeps a heap it has grown, so after one 100k-event feed (about
 * +140 MiB on a fresh worker) or a feed of 10,000 hourly series (about
 * +190 MiB) each worker would hold that much for good. A 10k-event feed
 * grows a fresh worker's heap by about 46 MiB, a warm one's by about 20, and
 * keeps its worker warm, reload after reload (its heap rises and falls with
 * V8's collections, so the heap's size alone would retire it every tenth
 * build and cost a cold start). A feed big enough to grow a fresh worker's
 * heap that much (some 20,000 events and up) is so built on a fresh worker
 * each time: a few hundred ms more CPU per changed reload, off the event
 * loop, for not holding its heap between reloads.
 */
export const RETIRE_WORKER_HEAP_GROWTH_BYTES = 64 * 2 ** 20;

/**
 * The nice value an ingest worker gives its own thread (0 is the service's;
 * higher yields the CPU to others). A reload of a 100k-event feed keeps a
 * core busy for about 1.5 s; on a machine with more busy threads than cores,
 * searches waited behind it for a scheduler slice. Raising a nice value needs
 * no privilege, and an idle machine still gives the build all of a core.
 */
export const BUILD_NICENESS = 10;

let pool: WorkerPool<BuildAnswer> | undefined;

/** The process's ingest pool, started on first use: one worker per core. */
function ingestPool(): WorkerPool<BuildAnswer> {
  pool ??= new WorkerPool<BuildAnswer>(
    siblingScript("ingest-worker", import.meta.url),
    Math.max(1, availableParallelism()),
    (answer) => answer.heapGrowthBytes > RETIRE_WORKER_HEAP_GROWTH_BYTES,
  );
  return pool;
}

/** How one build may go. */
export interface IngestOptions {
  /** How long the build may run in its worker (default BUILD_DEADLINE_MS). */
  readonly deadlineMs?: number;
  /**
   * Text cut before its END:VCALENDAR gives a snapshot of its complete
   * components, marked `partial`, instead of a `truncated` failure: for a
   * calendar that has never loaded whole (docs/imperfect-feeds.md, the cut-feed row).
   */
  readonly partialAllowed?: boolean;
  /** The bytes' SHA-256 in hex, when the caller has it already (FeedVersion.digest): the snapshot id reuses it. */
  readonly feedDigest?: string;
  /**
   * The caller hands the bytes over and never reads them again: when they
   * are a whole buffer of their own (a feed read from a file or over HTTP),
   * it is moved to the worker rather than copied, so a big feed is not held
   * here, and copied there, while it builds. Otherwise they are copied.
   */
  readonly handOver?: boolean;
  /**
   * The calendar's current snapshot: the build reads again only the events
   * whose text changed and keeps the rest of it, when nothing feed-wide
   * changed (docs/decisions.md, "Rebuilds in proportion to the change").
   * The result is the snapshot a build without it gives; Snapshot.build
   * says which way it went.
   */
  readonly previous?: Snapshot;
}

/** The buffer under `bytes`, when it may move to a worker: handed over, and theirs alone. */
function movable(bytes: Uint8Array, handOver: boolean): ArrayBuffer[] {
  const { buffer } = bytes;
  const whole = buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
  return handOver && whole ? [buffer] : [];
}

/**
 * Builds a snapshot from a feed's bytes off the event loop. Throws
 * FeedFailure when the bytes cannot be a feed (parse_error only for text
 * that is not iCalendar); any other error is a fault of calq's own and is
 * thrown as it is, to be classified internal.
 */
export async function ingestFeed(
  bytes: Uint8Array,
  config: Pick<CalendarConfig, "id" | "timezone">,
  feeds: FeedLimits,
  limits: ExpansionLimits,
  readAt: number,
  options: IngestOptions = {},
): Promise<Snapshot> {
  const deadlineMs = options.deadlineMs ?? BUILD_DEADLINE_MS;
  const request: BuildRequest = {
    calendarId: config.id,
    configuredZone: config.timezone,
    limits,
    readAt,
    maxComponents: feeds.maxComponents,
    partialAllowed: options.partialAllowed ?? false,
    feedDigest: options.feedDigest,
  };
  try {
    const previous = options.previous === undefined ? undefined : packedFormOf(options.previous);
    const task: BuildTask = { bytes, request, ...(previous === undefined ? {} : { previous }) };
    const answer = await ingestPool().run(task, deadlineMs, movable(bytes, options.handOver ?? false));
    switch (answer.kind) {
      case "built":
        if (options.previous !== undefined) releasePackedForm(options.previous);
        return unpackSnapshot(answer.packed);
      case "refused":
        throw new FeedFailure(answer.failure, answer.detail);
      case "failed":
        if (answer.errorName === "NotICalendarError")
          throw new FeedFailure("parse_error", "the text could not be read into events (NotICalendarError)");
        throw new IngestWorkerFault(answer.errorName, answer.stack);
    }
  } catch (error) {
    if (error instanceof FeedFailure) throw error;
    if (error instanceof WorkerDeadlineError) {
      throw new FeedFailure(
        "build_stopped",
        `reading the feed ran past the ${Math.round(error.deadlineMs / 1000)} s safety limit and was stopped; the next poll reads it again`,
      );
    }
    // Only text that is no iCalendar is the feed's fault (parse_error); any
    // other throw is a fault of calq's own and stays one (internal), by type.
    if (error instanceof NotICalendarError)
      throw new FeedFailure("parse_error", "the text could not be read into events (NotICalendarError)");
    throw error;
  }
}

/** A fault of calq's own inside an ingest worker, carried back by name and stack (never its message, which may quote the feed). */
export class IngestWorkerFault extends Error {
  constructor(faultName: string, workerStack: string) {
    super(`an ingest worker failed with ${faultName}`);
    this.name = "IngestWorkerFault";
    this.stack = `${this.name}: ${this.message}\n${workerStack}`;
  }
}

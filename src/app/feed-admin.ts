/**
 * Feed administration for holders of calendar.admin
 * (calendar_admin_service.proto): the state of each feed, a reload now, an
 * import that replaces a file-backed calendar's feed. Statuses say how a
 * feed failed by class only: never its URL, headers or an upstream server's
 * words.
 */
import { CalqError } from "../calq-error.js";
import { ADMIN } from "../config/capabilities.js";
import type { FeedLimits } from "../config/config-model.js";
import type { ShardMap } from "../config/shard-map.js";
import type { ExpansionLimits } from "../expand/expand-calendar.js";
import { writeFileDurably } from "../feeds/durable-write.js";
import { contentDigest, FeedFailure } from "../feeds/feed-read.js";
import { ingestFeed } from "../ingest/ingest.js";
import type { Snapshot } from "../ingest/snapshot.js";
import type { Logger } from "../log.js";
import type { CalendarStore, CalendarView, ReloadOutcome } from "../store/calendar-store.js";
import { type CalendarsElsewhere, findCalendar, inOtherShardGroup } from "./calendar-access.js";
import type { Call } from "./call.js";

export interface FeedAdminDeps {
  readonly store: CalendarStore;
  /** Every configured calendar with its shard group; the store holds this replica's group only. */
  readonly shards: ShardMap;
  /** Registry calendars of other groups (calendar-access.ts); absent without a registry. */
  readonly elsewhere?: CalendarsElsewhere;
  readonly feeds: FeedLimits;
  readonly limits: (now: number) => ExpansionLimits;
  readonly log: Logger;
  readonly now: () => number;
}

/** File system errors an operator can fix (folder missing, read-only, full): FEED_NOT_WRITABLE, not INTERNAL. */
const FILE_SYSTEM_REFUSALS = new Set([
  "ENOENT",
  "ENOTDIR",
  "EISDIR",
  "EACCES",
  "EPERM",
  "EROFS",
  "EBUSY",
  "ENOSPC",
  "EDQUOT",
  "EXDEV",
  "ELOOP",
]);

/** Refuses a caller without calendar.admin. (The RPC log writes every admin call's audit line.) */
export function requireAdmin(call: Call): void {
  if (!call.principal.capabilities.includes(ADMIN))
    throw new CalqError("ADMIN_CAPABILITY_REQUIRED", "this method needs the calendar.admin capability");
}

/** This replica's view of a calendar; an admin may learn that a calendar of another group exists, and where. */
async function calendar(deps: FeedAdminDeps, calendarId: string): Promise<CalendarView> {
  const view = calendarId === "" ? undefined : deps.store.view(calendarId);
  if (view !== undefined) return view;
  const elsewhere = calendarId === "" ? undefined : await findCalendar(deps, calendarId);
  if (elsewhere !== undefined) throw inOtherShardGroup(deps.shards, elsewhere.calendar, elsewhere.group);
  throw new CalqError("CALENDAR_NOT_FOUND", "no calendar has this id", "calendar_id");
}

/** The state of one calendar's feed, or of every calendar this replica serves ("" for all), in id order. */
export async function calendarStatus(deps: FeedAdminDeps, call: Call, calendarId: string): Promise<CalendarView[]> {
  requireAdmin(call);
  const views = calendarId === "" ? deps.store.views() : [await calendar(deps, calendarId)];
  return views.sort((a, b) => (a.config.id < b.config.id ? -1 : 1));
}

/** Reads a calendar's feed now, and how it went. */
export async function reloadCalendar(
  deps: FeedAdminDeps,
  call: Call,
  calendarId: string,
): Promise<{ outcome: ReloadOutcome["outcome"]; view: CalendarView }> {
  requireAdmin(call);
  const { config } = await calendar(deps, calendarId);
  const { outcome } = await deps.store.reload(config.id);
  return { outcome, view: deps.store.view(config.id)! };
}

/**
 * Replaces a file-backed calendar's feed with `bytes`, read exactly as a
 * reload will read the file once written, and serves it. Refused whole
 * (FEED_REJECTED) when it cannot be read, or when reading it left something
 * out and `allowDiagnostics` is not set.
 */
export async function importCalendar(
  deps: FeedAdminDeps,
  call: Call,
  calendarId: string,
  bytes: Uint8Array,
  allowDiagnostics: boolean,
): Promise<CalendarView> {
  requireAdmin(call);
  const { feeds, store } = deps;
  const { config } = await calendar(deps, calendarId);
  if (config.source.kind !== "file") {
    throw new CalqError("NOT_FILE_BACKED", "this calendar is read from a URL; change the feed at its origin");
  }
  const path = config.source.path;
  await store.install(config.id, async () => {
    if (bytes.length > feeds.maxBytes) {
      throw rejected({ failure: "too_large" }, `the upload is over the ${feeds.maxBytes}-byte feed limit`);
    }
    const readAt = deps.now();
    const digest = await contentDigest(bytes);
    let snapshot: Snapshot;
    try {
      snapshot = await ingestFeed(bytes, config, feeds, deps.limits(readAt), readAt, { feedDigest: digest });
    } catch (error) {
      if (error instanceof FeedFailure) throw rejected({ failure: error.failure }, error.message);
      throw error;
    }
    // Warnings name a reading that keeps the data; only errors mean the upload would lose some.
    const errors = snapshot.diagnostics.filter((diagnostic) => diagnostic.severity === "error");
    if (errors.length > 0 && !allowDiagnostics) {
      throw rejected(
        { diagnostics: String(errors.length), first_code: errors[0].code },
        "reading the upload left something out (error diagnostics); fix the feed, or set allow_diagnostics to import it anyway",
      );
    }
    await writeFileDurably(path, bytes).catch((error: unknown) => {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== "string" || !FILE_SYSTEM_REFUSALS.has(code)) throw error;
      throw new CalqError("FEED_NOT_WRITABLE", `the calendar's file could not be written (${code}); nothing was changed`, undefined, {
        code,
      });
    });
    // The watcher will see the rename; the digest tells it nothing changed.
    return { snapshot, version: { digest } };
  });
  deps.log({ level: "info", msg: "calendar imported", calendar_id: config.id, bytes: bytes.length });
  return store.view(config.id)!;
}

function rejected(metadata: Record<string, string>, message: string): CalqError {
  return new CalqError("FEED_REJECTED", `${message}; nothing was changed`, "ics", metadata);
}

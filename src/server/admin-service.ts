/**
 * calq.v1.CalendarAdminService: feed state, reloads and imports for
 * operators holding `calendar.admin`. Every call is audit-logged. Statuses
 * say how a feed failed by class only: never its URL, headers or the words
 * of the upstream server.
 */
import { create } from "@bufbuild/protobuf";
import { durationFromMs, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  type CalendarAdminService,
  type CalendarStatus,
  CalendarStatusSchema,
  DiagnosticSeverity,
  FeedDiagnosticSchema,
  FeedFailure as FeedFailureMessage,
  GetCalendarStatusResponseSchema,
  ImportCalendarResponseSchema,
  LoadFailureSchema,
  ReloadCalendarResponseSchema,
  ReloadOutcome,
  SourceKind,
} from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { CalqError } from "../calq-error.js";
import { ADMIN } from "../config/capabilities.js";
import type { FeedLimits, FeedSource } from "../config/config-model.js";
import type { ShardMap } from "../config/shard-map.js";
import { assertNever } from "../exhaustive.js";
import type { ExpansionLimits } from "../expand/expand-calendar.js";
import { writeFileDurably } from "../feeds/durable-write.js";
import { contentDigest, FeedFailure } from "../feeds/feed-read.js";
import type { Severity } from "../ics/diagnostic.js";
import { ingestFeed } from "../ingest/ingest.js";
import type { Logger } from "../logging/logger.js";
import type { CalendarStore, CalendarView, LoadFailure } from "../store/calendar-store.js";
import type { Snapshot } from "../store/snapshot.js";
import type { Authenticator } from "./authenticator.js";
import { inOtherShardGroup } from "./calendar-access.js";

export interface AdminServiceDeps {
  readonly store: CalendarStore;
  /** Every configured calendar with its shard group; the store holds this replica's group only. */
  readonly shards: ShardMap;
  readonly authenticator: Authenticator;
  readonly feeds: FeedLimits;
  readonly limits: (now: number) => ExpansionLimits;
  readonly log: Logger;
  readonly now: () => number;
}

const FAILURES: Record<LoadFailure, FeedFailureMessage> = {
  unreachable: FeedFailureMessage.UNREACHABLE,
  timeout: FeedFailureMessage.TIMEOUT,
  http_status: FeedFailureMessage.HTTP_STATUS,
  truncated: FeedFailureMessage.TRUNCATED,
  too_large: FeedFailureMessage.TOO_LARGE,
  not_icalendar: FeedFailureMessage.NOT_ICALENDAR,
  parse_error: FeedFailureMessage.PARSE_ERROR,
  internal: FeedFailureMessage.INTERNAL,
};

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

const SEVERITIES: Record<Severity, DiagnosticSeverity> = {
  warning: DiagnosticSeverity.WARNING,
  error: DiagnosticSeverity.ERROR,
};

/** Diagnostics returned per status; the count says how many there are. */
const MAX_DIAGNOSTICS = 1000;

const OUTCOMES = { loaded: ReloadOutcome.LOADED, unchanged: ReloadOutcome.UNCHANGED, failed: ReloadOutcome.FAILED } as const;

export function adminService(deps: AdminServiceDeps): ServiceImpl<typeof CalendarAdminService> {
  const { store, authenticator, feeds, log } = deps;

  /** Refuses anyone without calendar.admin. (The RPC log writes every admin call's audit line.) */
  async function admin(context: HandlerContext): Promise<void> {
    const principal = await authenticator.authenticate(context);
    if (!principal.capabilities.includes(ADMIN))
      throw new CalqError("ADMIN_CAPABILITY_REQUIRED", "this method needs the calendar.admin capability");
  }

  /** This replica's view of a calendar; an admin may learn that a calendar of another group exists, and where. */
  function calendar(calendarId: string): CalendarView {
    const view = calendarId === "" ? undefined : store.view(calendarId);
    if (view !== undefined) return view;
    const elsewhere = calendarId === "" ? undefined : deps.shards.calendar(calendarId);
    if (elsewhere !== undefined) throw inOtherShardGroup(deps.shards, elsewhere);
    throw new CalqError("CALENDAR_NOT_FOUND", "no calendar has this id", "calendar_id");
  }

  return {
    async getCalendarStatus(request, context) {
      await admin(context);
      const views = request.calendarId === "" ? store.views() : [calendar(request.calendarId)];
      views.sort((a, b) => (a.config.id < b.config.id ? -1 : 1));
      return create(GetCalendarStatusResponseSchema, { calendars: views.map(statusOf) });
    },

    async reloadCalendar(request, context) {
      await admin(context);
      const { config } = calendar(request.calendarId);
      const { outcome } = await store.reload(config.id);
      return create(ReloadCalendarResponseSchema, { outcome: OUTCOMES[outcome], status: statusOf(store.view(config.id)!) });
    },

    async importCalendar(request, context) {
      await admin(context);
      const { config } = calendar(request.calendarId);
      if (config.source.kind !== "file") {
        throw new CalqError("NOT_FILE_BACKED", "this calendar is read from a URL; change the feed at its origin");
      }
      const path = config.source.path;
      const bytes = request.ics;
      await store.install(config.id, async () => {
        if (bytes.length > feeds.maxBytes) {
          throw rejected({ failure: "too_large" }, `the upload is over the ${feeds.maxBytes}-byte feed limit`);
        }
        const readAt = deps.now();
        const digest = await contentDigest(bytes);
        let snapshot: Snapshot;
        try {
          // Read exactly as a reload will read the file once written.
          snapshot = await ingestFeed(bytes, config, feeds, deps.limits(readAt), readAt, { feedDigest: digest });
        } catch (error) {
          if (error instanceof FeedFailure) throw rejected({ failure: error.failure }, error.message);
          throw error;
        }
        // Warnings name a reading that keeps the data; only errors mean the upload would lose some.
        const errors = snapshot.diagnostics.filter((diagnostic) => diagnostic.severity === "error");
        if (errors.length > 0 && !request.allowDiagnostics) {
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
      log({ level: "info", msg: "calendar imported", calendar_id: config.id, bytes: bytes.length });
      return create(ImportCalendarResponseSchema, { status: statusOf(store.view(config.id)!) });
    },
  };
}

function rejected(metadata: Record<string, string>, message: string): CalqError {
  return new CalqError("FEED_REJECTED", `${message}; nothing was changed`, "ics", metadata);
}

function sourceKindOf(source: FeedSource): SourceKind {
  switch (source.kind) {
    case "file":
      return SourceKind.FILE;
    case "http":
      return SourceKind.HTTP;
    default:
      return assertNever(source, "feed source kind");
  }
}

function statusOf(view: CalendarView): CalendarStatus {
  const { config, snapshot, status } = view;
  const { lastFailure: failure } = status;
  return create(CalendarStatusSchema, {
    calendarId: config.id,
    sourceKind: sourceKindOf(config.source),
    lastAttemptTime: optionalTime(status.lastAttemptAt),
    lastSuccessTime: optionalTime(status.lastSuccessAt),
    lastFailure:
      failure === undefined
        ? undefined
        : create(LoadFailureSchema, {
            failure: FAILURES[failure.failure],
            time: timestampFromMs(failure.at),
            httpStatus: failure.httpStatus ?? 0,
          }),
    consecutiveFailures: status.consecutiveFailures,
    stale: view.stale,
    snapshotId: snapshot?.id ?? "",
    snapshotReadTime: optionalTime(snapshot?.dataAsOf),
    eventCount: snapshot?.eventCount ?? 0,
    occurrenceCount: snapshot?.index.size ?? 0,
    seriesExpandedOnDemand: snapshot?.tails.length ?? 0,
    timezone: snapshot?.zone.name ?? config.timezone ?? "",
    timezoneSource: snapshot?.zoneSource ?? "",
    diagnosticCount: snapshot?.diagnostics.length ?? 0,
    diagnostics: (snapshot?.diagnostics ?? []).slice(0, MAX_DIAGNOSTICS).map((diagnostic) =>
      create(FeedDiagnosticSchema, {
        code: diagnostic.code,
        message: diagnostic.message,
        uid: diagnostic.uid ?? "",
        line: diagnostic.line ?? 0,
        severity: SEVERITIES[diagnostic.severity],
      }),
    ),
    refreshInterval: durationFromMs(config.refreshMs),
  });
}

function optionalTime(ms: number | undefined) {
  return ms === undefined ? undefined : timestampFromMs(ms);
}

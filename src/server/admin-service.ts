/**
 * calq.v1.CalendarAdminService over Connect, gRPC and gRPC-Web: feed state,
 * reloads and imports (app/feed-admin.ts) for holders of calendar.admin,
 * mapped to the contract's messages. Every call is audit-logged (rpc-log.ts).
 */
import { create } from "@bufbuild/protobuf";
import { durationFromMs, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
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
import { calendarStatus, type FeedAdminDeps, importCalendar, reloadCalendar } from "../app/feed-admin.js";
import type { Turns } from "../app/turns.js";
import type { Authenticator } from "../auth/authenticator.js";
import type { FeedSource } from "../config/config-model.js";
import { assertNever } from "../exhaustive.js";
import type { Severity } from "../ics/diagnostic.js";
import type { CalendarView, LoadFailure } from "../store/calendar-store.js";
import { callOfContext } from "./call-context.js";

export interface AdminServiceDeps extends FeedAdminDeps {
  readonly authenticator: Authenticator;
  readonly turns: Turns;
}

const FAILURES: Record<LoadFailure, FeedFailureMessage> = {
  unreachable: FeedFailureMessage.UNREACHABLE,
  timeout: FeedFailureMessage.TIMEOUT,
  http_status: FeedFailureMessage.HTTP_STATUS,
  truncated: FeedFailureMessage.TRUNCATED,
  too_large: FeedFailureMessage.TOO_LARGE,
  not_icalendar: FeedFailureMessage.NOT_ICALENDAR,
  parse_error: FeedFailureMessage.PARSE_ERROR,
  build_stopped: FeedFailureMessage.BUILD_STOPPED,
  internal: FeedFailureMessage.INTERNAL,
};

const SEVERITIES: Record<Severity, DiagnosticSeverity> = {
  warning: DiagnosticSeverity.WARNING,
  error: DiagnosticSeverity.ERROR,
};

/** Diagnostics returned per status; the count says how many there are. */
const MAX_DIAGNOSTICS = 1000;

const OUTCOMES = { loaded: ReloadOutcome.LOADED, unchanged: ReloadOutcome.UNCHANGED, failed: ReloadOutcome.FAILED } as const;

export function adminService(deps: AdminServiceDeps): ServiceImpl<typeof CalendarAdminService> {
  const callOf = callOfContext(deps.authenticator, deps.turns);
  return {
    async getCalendarStatus(request, context) {
      const views = calendarStatus(deps, await callOf(context), request.calendarId);
      return create(GetCalendarStatusResponseSchema, { calendars: views.map(statusOf) });
    },

    async reloadCalendar(request, context) {
      const { outcome, view } = await reloadCalendar(deps, await callOf(context), request.calendarId);
      return create(ReloadCalendarResponseSchema, { outcome: OUTCOMES[outcome], status: statusOf(view) });
    },

    async importCalendar(request, context) {
      const view = await importCalendar(deps, await callOf(context), request.calendarId, request.ics, request.allowDiagnostics);
      return create(ImportCalendarResponseSchema, { status: statusOf(view) });
    },
  };
}

function sourceKindOf(source: FeedSource): SourceKind {
  switch (source.kind) {
    case "file":
      return SourceKind.FILE;
    case "http":
      return SourceKind.HTTP;
    case "caldav":
      return SourceKind.CALDAV;
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
    diagnosticCount: (status.sourceDiagnostics?.length ?? 0) + (snapshot?.diagnostics.length ?? 0),
    diagnostics: [...(status.sourceDiagnostics ?? []), ...(snapshot?.diagnostics ?? [])].slice(0, MAX_DIAGNOSTICS).map((diagnostic) =>
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

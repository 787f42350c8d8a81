/**
 * calq.v1.CalendarAdminService over Connect, gRPC and gRPC-Web: feed state,
 * reloads and imports (app/feed-admin.ts), and the calendar registry's
 * changes and listing (app/calendar-registry.ts, with the messages of
 * registry-messages.ts), for holders of calendar.admin, mapped to the
 * contract's messages. Every call is audit-logged (rpc-log.ts), and every
 * registry change also by its use case.
 */
import { create } from "@bufbuild/protobuf";
import { durationFromMs, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  type CalendarAdminService,
  type CalendarStatus,
  CalendarStatusSchema,
  CreateCalendarRequestSchema,
  CreateCalendarResponseSchema,
  DeleteCalendarResponseSchema,
  DiagnosticSeverity,
  FeedDiagnosticSchema,
  FeedFailure as FeedFailureMessage,
  GetCalendarStatusResponseSchema,
  ImportCalendarResponseSchema,
  ListRegisteredCalendarsRequestSchema,
  ListRegisteredCalendarsResponseSchema,
  LoadFailureSchema,
  RegistryEngine,
  RegistrySource,
  type RegistryStatus,
  RegistryStatusSchema,
  ReloadCalendarResponseSchema,
  ReloadOutcome,
  SetPersonRequestSchema,
  SetPersonResponseSchema,
  SourceKind,
  UpdateCalendarRequestSchema,
  UpdateCalendarResponseSchema,
} from "../../gen/calq/v1/calendar_admin_service_pb.js";
import {
  createCalendar,
  deleteCalendar,
  listRegisteredCalendars,
  type RegistryAdminDeps,
  setPerson,
  updateCalendar,
} from "../app/calendar-registry.js";
import { calendarStatus, type FeedAdminDeps, importCalendar, reloadCalendar } from "../app/feed-admin.js";
import type { Turns } from "../app/turns.js";
import type { Authenticator } from "../auth/authenticator.js";
import { CalqError } from "../calq-error.js";
import type { FeedSource } from "../config/config-model.js";
import type { RegistryServeSettings } from "../config/server-config.js";
import { checkBounds } from "../contract/index.js";
import { assertNever } from "../exhaustive.js";
import type { Severity } from "../ics/diagnostic.js";
import { checkCalendarSpec, checkPersonSpec, type FieldViolation } from "../registry/index.js";
import type { CalendarView, LoadFailure } from "../store/calendar-store.js";
import type { LiveStatus } from "../store/live-calendars.js";
import { callOfContext } from "./call-context.js";
import {
  calendarSpecOf,
  invalidSpec,
  loadHealthFilter,
  personSpecOf,
  registeredCalendarOf,
  registeredPersonOf,
  registryRefusal,
  unknownFields,
} from "./registry-messages.js";

export interface AdminServiceDeps extends FeedAdminDeps, RegistryAdminDeps {
  readonly authenticator: Authenticator;
  readonly turns: Turns;
  /** The registry's engine, for status; absent without a registry. */
  readonly registryEngine?: RegistryServeSettings["engine"];
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
      const views = await calendarStatus(deps, await callOf(context), request.calendarId);
      return create(GetCalendarStatusResponseSchema, {
        calendars: views.map(statusOf),
        registry: deps.live === undefined ? undefined : registryStatusOf(deps.registryEngine ?? "embedded", deps.live.status()),
      });
    },

    async reloadCalendar(request, context) {
      const { outcome, view } = await reloadCalendar(deps, await callOf(context), request.calendarId);
      return create(ReloadCalendarResponseSchema, { outcome: OUTCOMES[outcome], status: statusOf(view) });
    },

    async importCalendar(request, context) {
      const view = await importCalendar(deps, await callOf(context), request.calendarId, request.ics, request.allowDiagnostics);
      return create(ImportCalendarResponseSchema, { status: statusOf(view) });
    },

    async createCalendar(request, context) {
      const call = await callOf(context);
      const spec = calendarSpecOf(request.calendar);
      refuseUnknown(unknownFields(CreateCalendarRequestSchema, request, "request"), () => checkCalendarSpec(spec), "calendar");
      const outcome = await createCalendar(deps, call, spec).catch(refuse("calendar"));
      return create(CreateCalendarResponseSchema, { calendar: registeredCalendarOf(outcome.calendar), created: outcome.created });
    },

    async updateCalendar(request, context) {
      const call = await callOf(context);
      const spec = calendarSpecOf(request.calendar);
      refuseUnknown(unknownFields(UpdateCalendarRequestSchema, request, "request"), () => checkCalendarSpec(spec), "calendar");
      if (request.etag === "")
        throw invalidSpec([{ field: "etag", description: "required: the etag of the version this change was based on" }]);
      const calendar = await updateCalendar(deps, call, spec, request.etag).catch(refuse("calendar", request.etag));
      return create(UpdateCalendarResponseSchema, { calendar: registeredCalendarOf(calendar) });
    },

    async deleteCalendar(request, context) {
      const call = await callOf(context);
      const etag = request.etag === "" ? undefined : request.etag;
      const outcome = await deleteCalendar(deps, call, request.calendarId, etag).catch(refuse("calendar", request.etag));
      return create(DeleteCalendarResponseSchema, { calendarId: outcome.calendarId, changeNumber: BigInt(outcome.changeNumber) });
    },

    async setPerson(request, context) {
      const call = await callOf(context);
      const spec = personSpecOf(request.person);
      refuseUnknown(unknownFields(SetPersonRequestSchema, request, "request"), () => checkPersonSpec(spec), "person");
      const etag = request.etag === "" ? undefined : request.etag;
      const person = await setPerson(deps, call, spec, etag).catch(refuse("person", request.etag));
      return create(SetPersonResponseSchema, { person: registeredPersonOf(person) });
    },

    async listRegisteredCalendars(sent, context) {
      const call = await callOf(context);
      const request = checkBounds(ListRegisteredCalendarsRequestSchema, sent);
      const page = await listRegisteredCalendars(deps, call, {
        idPrefix: request.idPrefix,
        reader: request.reader,
        shardGroup: request.shardGroup,
        loadHealth: loadHealthFilter(request.loadHealth),
        pageSize: request.pageSize,
        pageToken: request.pageToken,
      }).catch(refuse("calendar"));
      return create(ListRegisteredCalendarsResponseSchema, {
        calendars: page.calendars.map(({ record, health }) => registeredCalendarOf(record, health)),
        nextPageToken: page.nextPageToken ?? "",
      });
    },
  };
}

/** A rejection handler that turns a registry refusal into the contract's. */
function refuse(kind: "calendar" | "person", sentEtag = ""): (error: unknown) => never {
  return (error) => {
    throw registryRefusal(error, kind, sentEtag);
  };
}

/**
 * Refuses a request holding fields the contract does not define, with the
 * spec's own faults named beside them, so one answer names everything to fix.
 */
function refuseUnknown(unknown: readonly FieldViolation[], check: () => unknown, kind: "calendar" | "person"): void {
  if (unknown.length === 0) return;
  let faults: readonly FieldViolation[] = [];
  try {
    check();
  } catch (error) {
    const refusal = registryRefusal(error, kind);
    if (!(refusal instanceof CalqError)) throw refusal;
    faults = refusal.violations;
  }
  throw invalidSpec([...unknown, ...faults]);
}

const ENGINES: Readonly<Record<RegistryServeSettings["engine"], RegistryEngine>> = {
  embedded: RegistryEngine.EMBEDDED,
  postgresql: RegistryEngine.POSTGRESQL,
};

/** How this replica follows the registry, as the contract's message. */
function registryStatusOf(engine: RegistryServeSettings["engine"], status: LiveStatus): RegistryStatus {
  return create(RegistryStatusSchema, {
    engine: ENGINES[engine],
    source: status.source === "local-copy" ? RegistrySource.LOCAL_COPY : RegistrySource.REGISTRY,
    connected: status.link === "connected",
    changeNumber: BigInt(status.changeNumber),
    syncedTime: status.syncedAt === 0 ? undefined : timestampFromMs(status.syncedAt),
    problem: status.lastError ?? "",
    shardGroup: status.group ?? "",
    calendarCount: status.calendarCount,
    personCount: status.personCount,
  });
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

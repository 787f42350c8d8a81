/**
 * A plain @grpc/grpc-js client for calq, the way any gRPC caller would use
 * it: protobuf bytes over HTTP/2, errors read from grpc-status-details-bin.
 */

import { create, type DescMessage, fromBinary, type MessageInitShape, type MessageShape, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import {
  CreateCalendarRequestSchema,
  CreateCalendarResponseSchema,
  DeleteCalendarRequestSchema,
  DeleteCalendarResponseSchema,
  GetCalendarStatusRequestSchema,
  GetCalendarStatusResponseSchema,
  ImportCalendarRequestSchema,
  ImportCalendarResponseSchema,
  ListRegisteredCalendarsRequestSchema,
  ListRegisteredCalendarsResponseSchema,
  ReloadCalendarRequestSchema,
  ReloadCalendarResponseSchema,
  SetPersonRequestSchema,
  SetPersonResponseSchema,
  UpdateCalendarRequestSchema,
  UpdateCalendarResponseSchema,
} from "../../gen/calq/v1/calendar_admin_service_pb.js";
import {
  FindFreeSlotsRequestSchema,
  FindFreeSlotsResponseSchema,
  FindMeetingTimesRequestSchema,
  FindMeetingTimesResponseSchema,
  GetCallerContextRequestSchema,
  GetCallerContextResponseSchema,
  GetEventRequestSchema,
  GetEventResponseSchema,
  ListCalendarsRequestSchema,
  ListCalendarsResponseSchema,
  ListChangesRequestSchema,
  ListChangesResponseSchema,
  QueryFreeBusyRequestSchema,
  QueryFreeBusyResponseSchema,
  SearchEventsAcrossCalendarsRequestSchema,
  SearchEventsAcrossCalendarsResponseSchema,
  SearchEventsRequestSchema,
  SearchEventsResponseSchema,
  WatchChangesRequestSchema,
  WatchChangesResponseSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { type BadRequest, BadRequestSchema, type ErrorInfo, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";

const SERVICE = "/calq.v1.CalendarService";
/** The deadline calls carry unless a test states one: generous, so a busy machine's slowness is never read as a refusal. */
const DEFAULT_DEADLINE_MS = 60_000;
const ADMIN_SERVICE = "/calq.v1.CalendarAdminService";

export class CalqGrpcClient {
  private readonly client: grpc.Client;

  constructor(
    address: string,
    private readonly token?: string,
    /** Sent with every call, e.g. the shard headers a balancer routes on. */
    private readonly headers: Readonly<Record<string, string>> = {},
  ) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  /** `deadlineMs` is the gRPC deadline the call carries (grpc-timeout), from now. */
  searchEvents(
    request: MessageInitShape<typeof SearchEventsRequestSchema>,
    token: string | null = this.token ?? null,
    deadlineMs = DEFAULT_DEADLINE_MS,
  ) {
    return this.call(`${SERVICE}/SearchEvents`, SearchEventsRequestSchema, SearchEventsResponseSchema, request, token, deadlineMs);
  }

  searchEventsAcrossCalendars(
    request: MessageInitShape<typeof SearchEventsAcrossCalendarsRequestSchema>,
    token: string | null = this.token ?? null,
    deadlineMs = DEFAULT_DEADLINE_MS,
  ) {
    return this.call(
      `${SERVICE}/SearchEventsAcrossCalendars`,
      SearchEventsAcrossCalendarsRequestSchema,
      SearchEventsAcrossCalendarsResponseSchema,
      request,
      token,
      deadlineMs,
    );
  }

  getEvent(request: MessageInitShape<typeof GetEventRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${SERVICE}/GetEvent`, GetEventRequestSchema, GetEventResponseSchema, request, token);
  }

  listCalendars(token: string | null = this.token ?? null) {
    return this.call(`${SERVICE}/ListCalendars`, ListCalendarsRequestSchema, ListCalendarsResponseSchema, {}, token);
  }

  getCallerContext(token: string | null = this.token ?? null) {
    return this.call(`${SERVICE}/GetCallerContext`, GetCallerContextRequestSchema, GetCallerContextResponseSchema, {}, token);
  }

  findFreeSlots(request: MessageInitShape<typeof FindFreeSlotsRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${SERVICE}/FindFreeSlots`, FindFreeSlotsRequestSchema, FindFreeSlotsResponseSchema, request, token);
  }

  findMeetingTimes(request: MessageInitShape<typeof FindMeetingTimesRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${SERVICE}/FindMeetingTimes`, FindMeetingTimesRequestSchema, FindMeetingTimesResponseSchema, request, token);
  }

  queryFreeBusy(request: MessageInitShape<typeof QueryFreeBusyRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${SERVICE}/QueryFreeBusy`, QueryFreeBusyRequestSchema, QueryFreeBusyResponseSchema, request, token);
  }

  listChanges(request: MessageInitShape<typeof ListChangesRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${SERVICE}/ListChanges`, ListChangesRequestSchema, ListChangesResponseSchema, request, token);
  }

  /** Opens a WatchChanges stream; the caller reads its notices and cancels it. */
  watchChanges(request: MessageInitShape<typeof WatchChangesRequestSchema>, token: string | null = this.token ?? null) {
    const metadata = new grpc.Metadata();
    if (token !== null) metadata.set("authorization", `Bearer ${token}`);
    for (const [name, value] of Object.entries(this.headers)) metadata.set(name, value);
    return this.client.makeServerStreamRequest(
      `${SERVICE}/WatchChanges`,
      (value: MessageShape<typeof WatchChangesRequestSchema>) => Buffer.from(toBinary(WatchChangesRequestSchema, value)),
      (bytes: Buffer) => fromBinary(WatchChangesResponseSchema, bytes),
      create(WatchChangesRequestSchema, request),
      metadata,
    );
  }

  getCalendarStatus(calendarId = "", token: string | null = this.token ?? null) {
    return this.call(
      `${ADMIN_SERVICE}/GetCalendarStatus`,
      GetCalendarStatusRequestSchema,
      GetCalendarStatusResponseSchema,
      { calendarId },
      token,
    );
  }

  reloadCalendar(calendarId: string, token: string | null = this.token ?? null) {
    return this.call(`${ADMIN_SERVICE}/ReloadCalendar`, ReloadCalendarRequestSchema, ReloadCalendarResponseSchema, { calendarId }, token);
  }

  importCalendar(request: MessageInitShape<typeof ImportCalendarRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${ADMIN_SERVICE}/ImportCalendar`, ImportCalendarRequestSchema, ImportCalendarResponseSchema, request, token);
  }

  createCalendar(request: MessageInitShape<typeof CreateCalendarRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${ADMIN_SERVICE}/CreateCalendar`, CreateCalendarRequestSchema, CreateCalendarResponseSchema, request, token);
  }

  updateCalendar(request: MessageInitShape<typeof UpdateCalendarRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${ADMIN_SERVICE}/UpdateCalendar`, UpdateCalendarRequestSchema, UpdateCalendarResponseSchema, request, token);
  }

  deleteCalendar(request: MessageInitShape<typeof DeleteCalendarRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${ADMIN_SERVICE}/DeleteCalendar`, DeleteCalendarRequestSchema, DeleteCalendarResponseSchema, request, token);
  }

  setPerson(request: MessageInitShape<typeof SetPersonRequestSchema>, token: string | null = this.token ?? null) {
    return this.call(`${ADMIN_SERVICE}/SetPerson`, SetPersonRequestSchema, SetPersonResponseSchema, request, token);
  }

  listRegisteredCalendars(
    request: MessageInitShape<typeof ListRegisteredCalendarsRequestSchema>,
    token: string | null = this.token ?? null,
  ) {
    return this.call(
      `${ADMIN_SERVICE}/ListRegisteredCalendars`,
      ListRegisteredCalendarsRequestSchema,
      ListRegisteredCalendarsResponseSchema,
      request,
      token,
    );
  }

  close(): void {
    this.client.close();
  }

  private call<I extends DescMessage, O extends DescMessage>(
    path: string,
    input: I,
    output: O,
    request: MessageInitShape<I>,
    token: string | null,
    deadlineMs = DEFAULT_DEADLINE_MS,
  ): Promise<MessageShape<O>> {
    const metadata = new grpc.Metadata();
    if (token !== null) metadata.set("authorization", `Bearer ${token}`);
    for (const [name, value] of Object.entries(this.headers)) metadata.set(name, value);
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        path,
        (value: MessageShape<I>) => Buffer.from(toBinary(input, value)),
        (bytes: Buffer) => fromBinary(output, bytes),
        create(input, request),
        metadata,
        { deadline: Date.now() + deadlineMs },
        (error, response) => (error ? reject(error) : resolve(response!)),
      );
    });
  }
}

/** A refusal as a gRPC client sees it. */
export interface GrpcFailure {
  readonly code: grpc.status;
  readonly message: string;
  readonly errorInfo?: ErrorInfo;
  readonly badRequest?: BadRequest;
  /** The raw grpc-status-details-bin trailer. */
  readonly detailsBin?: Buffer;
}

/** Awaits a call that must fail, and decodes its status details. */
export async function failureOf(call: Promise<unknown>): Promise<GrpcFailure> {
  let error: grpc.ServiceError;
  try {
    await call;
  } catch (caught) {
    error = caught as grpc.ServiceError;
    const detailsBin = error.metadata?.get("grpc-status-details-bin")[0] as Buffer | undefined;
    let errorInfo: ErrorInfo | undefined;
    let badRequest: BadRequest | undefined;
    if (detailsBin !== undefined) {
      for (const detail of fromBinary(StatusSchema, detailsBin).details) {
        if (detail.typeUrl === "type.googleapis.com/google.rpc.ErrorInfo") errorInfo = fromBinary(ErrorInfoSchema, detail.value);
        if (detail.typeUrl === "type.googleapis.com/google.rpc.BadRequest") badRequest = fromBinary(BadRequestSchema, detail.value);
      }
    }
    return { code: error.code, message: error.details, errorInfo, badRequest, detailsBin };
  }
  throw new Error("the call succeeded, but a failure was expected");
}

export { grpc };

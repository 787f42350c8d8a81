/**
 * The edge where engine errors become gRPC statuses (reasons.proto): a CalqError
 * becomes its code with a google.rpc.ErrorInfo (domain "calq") and, when a
 * field is at fault, a google.rpc.BadRequest. Anything else is INTERNAL with
 * a correlation id; its details go to the log only.
 */
import { randomUUID } from "node:crypto";
import { create, getOption } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { code, ReasonSchema } from "../../gen/calq/v1/reasons_pb.js";
import { BadRequest_FieldViolationSchema, BadRequestSchema, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { CalqError, type Reason } from "../calq-error.js";
import type { Logger } from "../log.js";
import { ERROR_DOMAIN } from "../rpc/status.js";

/** Each reason's status code, as its `code` option in proto/calq/v1/reasons.proto gives it (google.rpc.Code and connect's Code number the codes alike). */
const CODES: ReadonlyMap<string, Code> = new Map(
  ReasonSchema.values.filter((value) => value.number !== 0).map((value) => [value.localName, getOption(value, code) as number as Code]),
);

/** The status code of `reason`, from the proto. */
export function codeOf(reason: Reason): Code {
  const found = CODES.get(reason);
  if (found === undefined) throw new Error(`calq.v1.Reason has no value REASON_${reason}`);
  return found;
}

/** A CalqError as the ConnectError the wire carries. */
export function toConnectError(error: CalqError): ConnectError {
  const details: ConstructorParameters<typeof ConnectError>[3] = [
    {
      desc: ErrorInfoSchema,
      value: create(ErrorInfoSchema, { reason: error.reason, domain: ERROR_DOMAIN, metadata: { ...error.metadata } }),
    },
  ];
  const violations = [...(error.field === undefined ? [] : [{ field: error.field, description: error.message }]), ...error.violations];
  if (violations.length > 0) {
    details.push({
      desc: BadRequestSchema,
      value: create(BadRequestSchema, {
        fieldViolations: violations.map((violation) => create(BadRequest_FieldViolationSchema, violation)),
      }),
    });
  }
  return new ConnectError(error.message, codeOf(error.reason), undefined, details);
}

/**
 * A request connect could not read as its message (bad protobuf or JSON, a
 * broken envelope): the caller's fault, so INVALID_ARGUMENT, never INTERNAL,
 * with a correlation id that names the call in the log.
 */
export function malformedRequestError(cause: ConnectError, correlationId: string): ConnectError {
  return new ConnectError(
    `the request could not be read (${cause.rawMessage}); correlation id ${correlationId}`,
    Code.InvalidArgument,
    undefined,
    [
      {
        desc: ErrorInfoSchema,
        value: create(ErrorInfoSchema, {
          reason: "MALFORMED_REQUEST" satisfies Reason,
          domain: ERROR_DOMAIN,
          metadata: { correlation_id: correlationId },
        }),
      },
    ],
    cause,
  );
}

/**
 * How a call cut short by its client ended: CANCELLED (the client left or
 * reset the stream), or the deadline's own status. Node reports a vanished
 * client as ABORTED or with a bare AbortError; gRPC calls that CANCELLED.
 */
export function callCutShort(reason: unknown): ConnectError {
  const error = ConnectError.from(reason);
  if (error.code !== Code.Aborted && error.code !== Code.Unknown) return error;
  return new ConnectError("the client cancelled the call", Code.Canceled, undefined, undefined, reason);
}

/**
 * Any error thrown while serving, as what the caller may see. ConnectErrors
 * raised by the protocol layer pass through; unexpected errors are logged
 * with a correlation id (the call's own, when it has one) and answered
 * INTERNAL with only that id.
 */
export function toWireError(error: unknown, log: Logger, method: string, correlationId: string = randomUUID()): ConnectError {
  if (error instanceof CalqError) return toConnectError(error);
  if (error instanceof ConnectError && error.code !== Code.Internal && error.code !== Code.Unknown) return error;
  log({
    level: "error",
    msg: "internal error",
    method,
    correlation_id: correlationId,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return new ConnectError(`internal error; correlation id ${correlationId}`, Code.Internal, undefined, [
    {
      desc: ErrorInfoSchema,
      value: create(ErrorInfoSchema, {
        reason: "INTERNAL" satisfies Reason,
        domain: ERROR_DOMAIN,
        metadata: { correlation_id: correlationId },
      }),
    },
  ]);
}

/**
 * gRPC statuses as the service, the command line and the gateway all read
 * them: the code's canonical name, and calq's ErrorInfo (domain "calq") with
 * its BadRequest fields, from any ConnectError.
 */
import { Code, type ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, type ErrorInfo, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";

/** The error domain of every calq reason. */
export const ERROR_DOMAIN = "calq";

/** INVALID_ARGUMENT for Code.InvalidArgument: the names gRPC tools and dashboards use; OK when there is no code. */
export function codeName(code: Code | undefined): string {
  if (code === undefined) return "OK";
  // connect spells it the American way; gRPC's name is CANCELLED.
  if (code === Code.Canceled) return "CANCELLED";
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** calq's own ErrorInfo of a refusal, if the error carries one. */
export function calqErrorInfo(error: ConnectError): ErrorInfo | undefined {
  return error.findDetails(ErrorInfoSchema).find((detail) => detail.domain === ERROR_DOMAIN);
}

/** The request fields a refusal names (google.rpc.BadRequest). */
export function violatedFields(error: ConnectError): string[] {
  return error.findDetails(BadRequestSchema).flatMap((detail) => detail.fieldViolations.map((violation) => violation.field));
}

/**
 * What each refusal asks of the caller, read from calq.v1.Reason in the
 * contract (proto/calq/v1/reasons.proto: each value's comment and status
 * code, and each method's `reasons` option), plus the few codes the gateway
 * adds for what the service never sees or never explains. The tool descriptions
 * list these instructions and error results repeat the one that applies, so
 * both always say the same thing.
 */
import { type DescMethod, type DescService, type FileRegistry, getOption } from "@bufbuild/protobuf";
import { code, Reason, reasons } from "../../gen/calq/v1/reasons_pb.js";
import { Code } from "../../gen/google/rpc/code_pb.js";
import { proseOf } from "./descriptors.js";

/** One refusal reason and what the caller should do about it. */
export interface ErrorGuideEntry {
  /** The reason as sent in google.rpc.ErrorInfo, UPPER_SNAKE_CASE. */
  readonly reason: string;
  /** The gRPC status code the reason comes with, e.g. INVALID_ARGUMENT. */
  readonly status: string;
  /** The reason as a tool result's code: lower case. */
  readonly code: string;
  /** The instruction, one line. */
  readonly instruction: string;
}

/**
 * The gateway's own codes: arguments the schema refuses, and failures calq
 * did not explain (its transport's statuses, which carry no calq reason).
 */
export const GATEWAY_ERRORS = {
  invalid_arguments: "fix them to fit the schema.",
  service_unavailable: "retry later.",
  service_overloaded: "retry shortly.",
} as const;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

const REASON_ENUM = "calq.v1.Reason";

/**
 * The paragraphs of the service comment after its first (the summary): what
 * every method promises, such as being read-only and taking the caller from
 * authentication, and how refusals are sent.
 */
export function servicePromises(service: DescService): string[] {
  return proseOf(service).split("\n\n").slice(1);
}

/** Every reason of calq.v1.Reason, in the proto's order, with its status code and instruction (the value's comment). */
export function readErrorGuide(registry: FileRegistry): ErrorGuideEntry[] {
  const reasons = registry.getEnum(REASON_ENUM);
  if (reasons === undefined) throw new Error(`${REASON_ENUM} is not in the descriptor set`);
  return reasons.values
    .filter((value) => value.number !== 0)
    .map((value) => ({
      reason: value.localName,
      status: Code[getOption(value, code)],
      code: value.localName.toLowerCase(),
      instruction: proseOf(value),
    }));
}

/**
 * Reasons any tool call can get: it is made as someone, and the server can
 * fail. MALFORMED_REQUEST is left out: the gateway builds every request from
 * arguments its schema has checked, so a model can never cause it.
 */
export const EVERY_METHOD: ReadonlySet<string> = new Set(["UNAUTHENTICATED", "INTERNAL"]);

/** The reasons `method` lists in its `reasons` option, plus those every method can give, in the guide's order. */
export function reasonsOf(method: DescMethod, guide: readonly ErrorGuideEntry[]): ErrorGuideEntry[] {
  const listed = new Set(getOption(method, reasons).map((reason) => Reason[reason]));
  return guide.filter((entry) => listed.has(entry.reason) || EVERY_METHOD.has(entry.reason));
}

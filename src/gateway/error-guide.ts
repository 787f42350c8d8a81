/**
 * What each refusal asks of the caller, read from the service's proto comment
 * (the list "REASON (CODE): what to do"), plus the few codes the gateway adds
 * for what the service never sees or never explains. The tool descriptions
 * list these instructions and error results repeat the one that applies, so
 * both always say the same thing.
 */
import type { DescService } from "@bufbuild/protobuf";
import { commentOf } from "./descriptors.js";

/** One refusal reason of SPEC §8 and what the caller should do about it. */
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
  invalid_arguments: "the arguments do not fit this tool's schema; fix them (the caller is never an argument).",
  internal: "the calendar service failed; tell the user, and retry later; quote the correlation id if it persists.",
  service_unavailable: "the calendar service could not be reached; retry later.",
  service_overloaded: "the calendar service is busy; retry after a short wait.",
} as const;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

const REASON_LINE = /^([A-Z][A-Z_]+) \(([A-Z_]+)\): (.*)$/;

/**
 * The paragraphs of the service comment between its first (the summary) and
 * the one listing the reasons: what every method promises, such as being
 * read-only and taking the caller from authentication.
 */
export function servicePromises(service: DescService): string[] {
  const paragraphs = commentOf(service).split(/\n{2,}/);
  const reasonsAt = paragraphs.findIndex((paragraph) => paragraph.split("\n").some((line) => REASON_LINE.test(line)));
  return paragraphs.slice(1, reasonsAt === -1 ? paragraphs.length : reasonsAt).map((paragraph) => paragraph.replace(/\n/g, " "));
}

/**
 * The reasons the service comment lists, in its order. A reason's text runs
 * from its line to the next reason or the end of the paragraph.
 */
export function readErrorGuide(service: DescService): ErrorGuideEntry[] {
  const entries: { reason: string; status: string; lines: string[] }[] = [];
  let current: { reason: string; status: string; lines: string[] } | undefined;
  for (const line of commentOf(service).split("\n")) {
    const match = REASON_LINE.exec(line);
    if (match !== null) {
      current = { reason: match[1], status: match[2], lines: [match[3]] };
      entries.push(current);
    } else if (line === "") {
      current = undefined;
    } else if (current !== undefined) {
      current.lines.push(line);
    }
  }
  if (entries.length === 0) throw new Error(`the comment of ${service.typeName} lists no "REASON (CODE): instruction" lines`);
  return entries.map(({ reason, status, lines }) => ({ reason, status, code: reason.toLowerCase(), instruction: lines.join(" ") }));
}

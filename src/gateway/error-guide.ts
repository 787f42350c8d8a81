/**
 * What each refusal asks of the caller, read from the service's proto comment
 * (the list "REASON (CODE): what to do"). The tool descriptions list these
 * instructions and error results repeat the one that applies, so both say
 * exactly what the contract says.
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

const REASON_LINE = /^([A-Z][A-Z_]+) \(([A-Z_]+)\): (.*)$/;

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

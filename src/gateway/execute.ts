/**
 * Runs one tool call for one caller: the arguments are checked against the
 * tool's schema, then sent unchanged to the service, whose answer becomes
 * structured content plus a short text. A refusal becomes a tool result with
 * isError, the contract's reason as a lower-case code and the contract's
 * instruction for it. Nothing is fixed up, and nothing the service would not
 * say is passed on.
 */
import type { DescMethod, JsonObject, Message } from "@bufbuild/protobuf";
import { type CallOptions, Code, ConnectError } from "@connectrpc/connect";
import { CalendarService } from "../../gen/calq/v1/calendar_service_pb.js";
import { calqErrorInfo, violatedFields } from "../rpc/status.js";
import { asCaller, type CalqClient } from "./calq-client.js";
import { GATEWAY_ERRORS, type GatewayErrorCode } from "./error-guide.js";
import { renderResult } from "./render.js";
import { compileValidator, createAjv, type Validator } from "./schema-validator.js";
import { requestFromArguments, structuredFromMessage } from "./tool-json.js";
import type { ToolCatalog, ToolDefinition } from "./tool-schemas.js";

/** A tool result, in the shape MCP's CallToolResult has. */
export interface ToolResult {
  readonly content: { type: "text"; text: string }[];
  readonly structuredContent?: JsonObject;
  readonly isError?: true;
}

/** A refusal as the model sees it. */
export interface ToolError {
  /** A calq.v1.Reason in lower case, or one of the gateway's own (GATEWAY_ERRORS). */
  readonly code: string;
  /** The service's own message (or the schema's problems); safe to show. */
  readonly message: string;
  /** What the model should do, one line. */
  readonly instruction: string;
  /** The request fields at fault (google.rpc.BadRequest). */
  readonly fields: readonly string[];
  /** Facts to act on (google.rpc.ErrorInfo metadata), e.g. the two instants of a fold. */
  readonly metadata: Readonly<Record<string, string>>;
}

/** Where the gateway reports what it does not pass on (unreachable service, unexpected failures). */
export type GatewayLog = (record: Record<string, unknown>) => void;

type UnaryCall = (request: Message, options: CallOptions) => Promise<Message>;

/** Runs the catalog's tools against one calq service, for whichever caller each call names by token. */
export class ToolExecutor {
  private readonly validators = new Map<string, Validator>();
  /** Each tool's method as gen/ describes it: requests and responses use the generated types, like any client's. */
  private readonly methods = new Map<string, DescMethod>();
  private readonly instructions: Map<string, string>;

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly client: CalqClient,
    private readonly log: GatewayLog = () => {},
  ) {
    const ajv = createAjv();
    for (const tool of catalog.tools) {
      this.validators.set(tool.name, compileValidator(ajv, tool.inputSchema));
      this.methods.set(tool.name, generatedMethod(tool.method));
    }
    this.instructions = new Map(catalog.errors.map((entry) => [entry.code, entry.instruction]));
  }

  /** Every tool this executor runs. */
  tools(): readonly ToolDefinition[] {
    return this.catalog.tools;
  }

  /** The tool of this name, if there is one. */
  tool(name: string): ToolDefinition | undefined {
    return this.catalog.tools.find((tool) => tool.name === name);
  }

  /** Calls `tool` with `args` as the caller whose bearer token is `token`. */
  async call(tool: ToolDefinition, args: unknown, token: string): Promise<ToolResult> {
    const given = args ?? {};
    const problems = this.validators.get(tool.name)!.problems(given);
    if (problems.length > 0) {
      return errorResult({
        code: "invalid_arguments",
        message: problems.join("; "),
        instruction: GATEWAY_ERRORS.invalid_arguments,
        fields: [],
        metadata: {},
      });
    }
    const method = this.methods.get(tool.name)!;
    const request = requestFromArguments(method.input, given as Record<string, unknown>);
    const call = (this.client as unknown as Record<string, UnaryCall>)[method.localName].bind(this.client);
    try {
      const response = await call(request, asCaller(token));
      const structured = structuredFromMessage(method.output, response);
      return {
        content: [{ type: "text", text: renderResult(tool, given as Record<string, unknown>, response) }],
        structuredContent: structured,
      };
    } catch (error) {
      return errorResult(this.toToolError(error, tool));
    }
  }

  /** What `code` asks of the model: the contract's instruction for a reason, the gateway's for its own codes. */
  private instructionOf(code: string): string {
    if (Object.hasOwn(GATEWAY_ERRORS, code)) return GATEWAY_ERRORS[code as GatewayErrorCode];
    return this.instructions.get(code) ?? this.instructions.get("internal") ?? "";
  }

  /** A failed call as the model may see it: the service's reason and words, or a bare gateway code. */
  private toToolError(error: unknown, tool: ToolDefinition): ToolError {
    const connectError = ConnectError.from(error);
    const info = calqErrorInfo(connectError);
    if (info === undefined) {
      // Not the service's words (a connection failure, a proxy, a bug here): log them, say only that it failed.
      this.log({
        level: "warn",
        msg: "tool call failed without a calq reason",
        tool: tool.name,
        code: Code[connectError.code],
        error: connectError.message,
      });
      const code = gatewayCodeOf(connectError.code);
      return { code, message: GATEWAY_MESSAGES[code], instruction: this.instructionOf(code), fields: [], metadata: {} };
    }
    const code = info.reason.toLowerCase();
    const fields = violatedFields(connectError);
    return {
      code,
      message: connectError.rawMessage,
      instruction: this.instructionOf(code),
      fields,
      metadata: { ...info.metadata },
    };
  }
}

/** The codes for a call that failed without a calq reason: the contract's "internal", or the gateway's own. */
type UnexplainedFailure = "internal" | Exclude<GatewayErrorCode, "invalid_arguments">;

/**
 * The gateway's code for a status without a calq reason. RESOURCE_EXHAUSTED
 * is calq's concurrency or request-size limit: worth a retry after a pause,
 * unlike a fault.
 */
function gatewayCodeOf(code: Code): UnexplainedFailure {
  switch (code) {
    case Code.Unavailable:
    case Code.DeadlineExceeded:
      return "service_unavailable";
    case Code.ResourceExhausted:
      return "service_overloaded";
    default:
      return "internal";
  }
}

/** What a failure without a calq reason says happened; never the upstream's own words. */
const GATEWAY_MESSAGES: Record<UnexplainedFailure, string> = {
  internal: "the call failed",
  service_unavailable: "the calendar service could not be reached",
  service_overloaded: "the calendar service is busy",
};

/** The method of gen/'s CalendarService that `method` (from the descriptor set) describes; throws when gen/ lacks it. */
function generatedMethod(method: DescMethod): DescMethod {
  const generated = CalendarService.methods.find((candidate) => candidate.name === method.name);
  if (generated === undefined) throw new Error(`gen/ has no ${method.parent.typeName}.${method.name}: run npm run generate`);
  return generated;
}

/** A refusal as a tool result: the code, the message, what to do, and the facts given. */
export function errorResult(error: ToolError): ToolResult {
  const lines = [`${error.code}: ${error.message}`, `What to do: ${error.instruction}`];
  if (error.fields.length > 0) lines.push(`Fields: ${error.fields.join(", ")}`);
  const facts = Object.entries(error.metadata);
  if (facts.length > 0) lines.push(`Details: ${facts.map(([key, value]) => `${key}=${value}`).join(", ")}`);
  return { content: [{ type: "text", text: lines.join("\n") }], isError: true };
}

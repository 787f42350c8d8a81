/**
 * The calq tools, generated from the contract: names map to RPCs, and every
 * description, property and enum comes from the proto descriptors and their
 * comments. Nothing here restates what the proto says; change a proto
 * comment and the tool description changes with it.
 */
import { type DescField, type DescMessage, type DescMethod, type DescService, type FileRegistry, ScalarType } from "@bufbuild/protobuf";
import { type DeclaredBounds, declaredBounds } from "../contract/index.js";
import { isRequiredField, loadContractRegistry, proseOf } from "./descriptors.js";
import { type ErrorGuideEntry, EVERY_METHOD, GATEWAY_ERRORS, readErrorGuide, reasonsOf, servicePromises } from "./error-guide.js";
import { enumToolName, sendableValues } from "./tool-json.js";

/** A JSON Schema object, as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** One tool: what a model sees, and the RPC it calls. */
export interface ToolDefinition {
  /** snake_case, as tool names are written. */
  readonly name: ToolName;
  /** Human-readable name (MCP `title`). */
  readonly title: string;
  readonly description: string;
  /** Strict: every property required (optional ones nullable), no additional properties. */
  readonly inputSchema: JsonSchema;
  /** The shape of the result's structured content. */
  readonly outputSchema: JsonSchema;
  readonly method: DescMethod;
}

/** The tools and what each calls; `get_user_context` is named for what a model wants from it. */
const TOOL_METHODS = [
  { name: "search_calendar_events", title: "Search calendar events", method: "SearchEvents" },
  { name: "search_across_calendars", title: "Search across calendars", method: "SearchEventsAcrossCalendars" },
  { name: "get_event", title: "Get event", method: "GetEvent" },
  { name: "list_calendars", title: "List calendars", method: "ListCalendars" },
  { name: "get_user_context", title: "Get user context", method: "GetCallerContext" },
  { name: "query_free_busy", title: "Query free/busy", method: "QueryFreeBusy" },
  { name: "find_free_slots", title: "Find free slots", method: "FindFreeSlots" },
  { name: "list_changes", title: "List changes", method: "ListChanges" },
  { name: "find_meeting_times", title: "Find meeting times", method: "FindMeetingTimes" },
] as const;

/** The name of one of the calq tools. */
export type ToolName = (typeof TOOL_METHODS)[number]["name"];

/** The service whose methods become tools. */
export const SERVICE_NAME = "calq.v1.CalendarService";

/** The contract as tools: descriptions, schemas and the error guide. */
export interface ToolCatalog {
  readonly tools: readonly ToolDefinition[];
  readonly errors: readonly ErrorGuideEntry[];
  readonly service: DescService;
}

/** The tools of the contract in `registry` (by default gen/calq.binpb). */
export function buildToolCatalog(registry: FileRegistry = loadContractRegistry()): ToolCatalog {
  const service = registry.getService(SERVICE_NAME);
  if (service === undefined) throw new Error(`${SERVICE_NAME} is not in the descriptor set`);
  const errors = readErrorGuide(registry);
  const words = vocabulary(service, errors);
  const tools = TOOL_METHODS.map(({ name, title, method: methodName }) => {
    const method = service.methods.find((candidate) => candidate.name === methodName);
    if (method === undefined) throw new Error(`${SERVICE_NAME} has no method ${methodName}`);
    return {
      name,
      title,
      description: words(toolDescription(service, method, errors)),
      inputSchema: inputSchema(method.input, words),
      outputSchema: outputSchema(method.output, words),
      method,
    };
  });
  return { tools, errors, service };
}

/**
 * The method's comment, what the service promises for every method
 * (read-only, who the caller is), the request's comment; then the codes of
 * the refusals the method lists in the proto (reasonsOf), and in one line
 * the codes any call can get. What each code asks of the model comes with
 * the refusal itself (execute.ts: errorResult), so it is said once, where
 * it applies, and not in every tool's description (docs/gateway.md, "The
 * tools": the context budget). What each result field means is said once,
 * in the output schema.
 */
function toolDescription(service: DescService, method: DescMethod, errors: readonly ErrorGuideEntry[]): string {
  const reachable = reasonsOf(method, errors).filter((entry) => !NOT_FOR_MODELS.has(entry.reason));
  const [own, anyCall] = partition(reachable, (entry) => !EVERY_METHOD.has(entry.reason));
  const common = [...anyCall.map((entry) => entry.code), ...Object.keys(GATEWAY_ERRORS)];
  return [
    proseOf(method),
    ...servicePromises(service),
    proseOf(method.input),
    ...(own.length === 0 ? [] : [`${REFUSALS_LEAD} ${own.map((entry) => entry.code).join(", ")}.`]),
    `${ANY_CALL_LEAD} ${common.join(", ")}.`,
  ].join("\n\n");
}

/** How a description's list of its own refusal codes starts. */
export const REFUSALS_LEAD = "Refusal codes (isError true, each saying what to do):";
/** How a description's list of the codes any call can get starts. */
export const ANY_CALL_LEAD = "Any call may also fail with:";

/**
 * Reasons a model never has to act on, so listing them would only cost its
 * context: the strict input schema already refuses what causes
 * INVALID_MATCH_MODE and INVALID_LIMIT (match_mode is held to the enum's
 * sendable values, limit to its declared bounds), and the gateway's client resends a
 * call refused with CALENDAR_IN_OTHER_SHARD_GROUP to the group it names
 * (rpc/shard-routing.ts).
 */
const NOT_FOR_MODELS: ReadonlySet<string> = new Set(["INVALID_MATCH_MODE", "INVALID_LIMIT", "CALENDAR_IN_OTHER_SHARD_GROUP"]);

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

/**
 * Rewrites the contract's names into the tools' names: reasons into their
 * lower-case codes, sendable enum values into their tool names, RPC names
 * into tool names.
 */
function vocabulary(service: DescService, errors: readonly ErrorGuideEntry[]): (text: string) => string {
  const replacements = new Map<string, string>();
  for (const entry of errors) replacements.set(entry.reason, entry.code);
  for (const tool of TOOL_METHODS) replacements.set(tool.method, tool.name);
  for (const enumDesc of service.file.enums) {
    for (const value of sendableValues(enumDesc)) replacements.set(value.name, enumToolName(value));
  }
  const names = [...replacements.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`\\b(${names.join("|")})\\b`, "g");
  return (text) => text.replace(pattern, (name) => replacements.get(name)!);
}

/**
 * A strict input schema: every field a property, all required, optional ones
 * nullable, each bounded as its field declares (proto/calq/v1/reasons.proto),
 * so a model that follows the schema is never refused for a bound.
 */
function inputSchema(message: DescMessage, words: (text: string) => string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of message.fields) {
    const scalarList = field.fieldKind === "list" && field.listKind === "scalar";
    if (field.fieldKind !== "scalar" && field.fieldKind !== "enum" && !scalarList) {
      throw new Error(`${message.typeName}.${field.name}: only scalar, enum and repeated scalar fields can be tool arguments`);
    }
    const nullable = !isRequiredField(field);
    const bounds = declaredBounds(field);
    const schema = scalarList
      ? {
          type: nullable ? ["array", "null"] : "array",
          items: { ...valueSchema(field, sendableValues, false), ...numberBounds(bounds) },
          ...countBounds(bounds),
        }
      : { ...valueSchema(field, sendableValues, nullable), ...numberBounds(bounds), ...lengthBound(bounds) };
    let description = proseOf(field);
    if (field.enum !== undefined) {
      description += `\n${sendableValues(field.enum)
        .map((value) => `- ${enumToolName(value)}: ${proseOf(value)}`)
        .join("\n")}`;
    }
    // A nullable enum's comment says what null asks for (no filter); its zero value has no name to give.
    if (nullable && field.enum === undefined) description += `\n${nullMeaning(field, bounds, schema)}`;
    properties[field.name] = { ...schema, description: words(description) };
  }
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * `minimum` and `maximum` of a bounded number (of each item, for a list).
 * Where 0 stands for a default right below the range (1 to 100, or 0), the
 * schema starts at 0; where it does not join the range (5 to 1440, or 0),
 * the schema keeps the range and the model sends null for the default.
 */
function numberBounds(bounds: DeclaredBounds | undefined): JsonSchema {
  if (bounds === undefined) return {};
  const minimum = bounds.zeroMeans !== undefined && bounds.min === 1 ? 0 : bounds.min;
  return { ...(minimum === undefined ? {} : { minimum }), ...(bounds.max === undefined ? {} : { maximum: bounds.max }) };
}

/** `minItems` and `maxItems` of a bounded list. */
function countBounds(bounds: DeclaredBounds | undefined): JsonSchema {
  if (bounds === undefined) return {};
  return {
    ...(bounds.minItems === undefined ? {} : { minItems: bounds.minItems }),
    ...(bounds.maxItems === undefined ? {} : { maxItems: bounds.maxItems }),
  };
}

/** `maxLength` of a bounded string (code points, as the contract counts them). */
function lengthBound(bounds: DeclaredBounds | undefined): JsonSchema {
  return bounds?.maxLength === undefined ? {} : { maxLength: bounds.maxLength };
}

/** What null stands for: the field's zero value, or the default that zero stands for (and whether the schema lets 0 say it too). */
function nullMeaning(field: DescField, bounds: DeclaredBounds | undefined, schema: JsonSchema): string {
  if (bounds?.zeroMeans !== undefined) return `null${schema.minimum === 0 ? " or 0" : ""} means the default ${bounds.zeroMeans}.`;
  const empty = field.fieldKind === "list" || (field.fieldKind === "scalar" && field.scalar === ScalarType.STRING);
  return `null means ${empty ? "empty" : "0"}.`;
}

/** The JSON a response message becomes (tool-json.ts): scalars always present, messages when set. */
function outputSchema(message: DescMessage, words: (text: string) => string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of message.fields) {
    const single =
      field.message !== undefined && field.message.typeName !== TIMESTAMP
        ? outputSchema(field.message, words)
        : valueSchema(field, (desc) => desc.values, false);
    const schema = field.fieldKind === "list" ? { type: "array", items: single } : single;
    properties[field.name] = { ...schema, description: words(proseOf(field)) };
    if (field.fieldKind !== "message") required.push(field.name);
  }
  const description = words(proseOf(message));
  return { type: "object", ...(description === "" ? {} : { description }), properties, required, additionalProperties: false };
}

const TIMESTAMP = "google.protobuf.Timestamp";

/** The schema of one value of a scalar, enum or Timestamp field. */
function valueSchema(
  field: DescField,
  values: (desc: NonNullable<DescField["enum"]>) => { localName: string }[],
  nullable: boolean,
): JsonSchema {
  const orNull = (type: string) => (nullable ? [type, "null"] : type);
  if (field.enum !== undefined) {
    const names: (string | null)[] = values(field.enum).map((value) => value.localName.toLowerCase());
    return { type: orNull("string"), enum: nullable ? [...names, null] : names };
  }
  if (field.message?.typeName === TIMESTAMP) return { type: orNull("string"), format: "date-time" };
  if (field.scalar === undefined) throw new Error(`${field.parent.typeName}.${field.name}: no tool JSON for this field`);
  return { type: orNull(JSON_TYPES[field.scalar]) };
}

/** Proto3 JSON types of scalars (64-bit integers and bytes are strings in proto JSON). */
const JSON_TYPES: Record<ScalarType, string> = {
  [ScalarType.DOUBLE]: "number",
  [ScalarType.FLOAT]: "number",
  [ScalarType.INT64]: "string",
  [ScalarType.UINT64]: "string",
  [ScalarType.INT32]: "integer",
  [ScalarType.FIXED64]: "string",
  [ScalarType.FIXED32]: "integer",
  [ScalarType.BOOL]: "boolean",
  [ScalarType.STRING]: "string",
  [ScalarType.BYTES]: "string",
  [ScalarType.UINT32]: "integer",
  [ScalarType.SFIXED32]: "integer",
  [ScalarType.SFIXED64]: "string",
  [ScalarType.SINT32]: "integer",
  [ScalarType.SINT64]: "string",
};

/**
 * A model that follows a tool's schema is never refused for a bound: for
 * every bounded property of every tool, read from the generated schema
 * itself, a value at each edge the schema allows is answered by a real calq
 * server, and the value just past it is refused by the schema. The service,
 * asked that same value directly, refuses it with the reason and field the
 * contract's `bounds` option declares, which is also what the contract's
 * generic check (src/contract) says.
 */
import type { DescMethod, DescMethodUnary } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CalendarService } from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqError } from "../../src/calq-error.js";
import { checkBounds, declaredBounds } from "../../src/contract/index.js";
import { createCalqClient } from "../../src/gateway/calq-client.js";
import { ToolExecutor } from "../../src/gateway/execute.js";
import { requestFromArguments } from "../../src/gateway/tool-json.js";
import { buildToolCatalog, type JsonSchema, type ToolDefinition, type ToolName } from "../../src/gateway/tool-schemas.js";
import { calqErrorInfo, violatedFields } from "../../src/rpc/status.js";
import { ics, vevent } from "../support/feeds.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const TOKEN = "token-an";
const HCM = "Asia/Ho_Chi_Minh";
/** As many calendars as a request may name, all readable, so a list at its longest is answered, not refused as inaccessible. */
const CALENDARS = Array.from({ length: 50 }, (_, i) => `c${String(i).padStart(2, "0")}`);
const WINDOW = { start: "2026-10-02", end_exclusive: "2026-10-03", timezone: HCM };

/** Arguments every tool with a bounded property is answered with; each case changes one property. */
/** The search tools' filters, none given. */
const NO_FILTERS = { status: null, transparency: null, my_participation: null, categories: null };
const VALID: Partial<Record<ToolName, Record<string, unknown>>> = {
  search_calendar_events: {
    calendar_id: "c00",
    ...WINDOW,
    match_mode: "overlap",
    limit: null,
    cursor: null,
    text_query: null,
    ...NO_FILTERS,
  },
  search_across_calendars: {
    calendar_ids: ["c00"],
    ...WINDOW,
    match_mode: "overlap",
    limit: null,
    cursor: null,
    text_query: null,
    ...NO_FILTERS,
  },
  query_free_busy: { calendar_ids: ["c00"], ...WINDOW },
  find_free_slots: {
    calendar_ids: ["c00"],
    ...WINDOW,
    duration_minutes: 30,
    step_minutes: null,
    tentative: "busy",
    // With working hours, so working_days is read rather than refused for standing alone.
    working_hours_start: "09:00",
    working_hours_end: "17:00",
    working_days: null,
    limit: null,
  },
  list_changes: { calendar_ids: ["c00"], change_token: null, page_size: null, page_token: null, timezone: null },
  find_meeting_times: {
    // The last calendar, so that a longest list of optional attendees (the first 49) never names it twice.
    required_calendar_ids: ["c49"],
    optional_calendar_ids: null,
    ...WINDOW,
    duration_minutes: 30,
    step_minutes: null,
    buffer_before_minutes: null,
    buffer_after_minutes: null,
    tentative: "busy",
    min_optional_percent: null,
    working_hours_start: "09:00",
    working_hours_end: "17:00",
    working_days: null,
    limit: null,
  },
};

/** One value of one property: at an edge the schema allows, or just past it. */
interface BoundCase {
  readonly tool: ToolDefinition;
  readonly property: string;
  readonly value: unknown;
  readonly edge: string;
}

/** Values at and just past each bound `schema` states, as the schema's own keywords say. */
function casesOf(tool: ToolDefinition, property: string, schema: JsonSchema): { inside: BoundCase[]; outside: BoundCase[] } {
  const inside: BoundCase[] = [];
  const outside: BoundCase[] = [];
  const add = (edge: string, value: unknown, past: unknown) => {
    inside.push({ tool, property, value, edge });
    outside.push({ tool, property, value: past, edge: `past ${edge}` });
  };
  const number = (keyword: string, where: JsonSchema) => (typeof where[keyword] === "number" ? (where[keyword] as number) : undefined);
  const items = (schema.items ?? {}) as JsonSchema;
  /** `count` distinct items the schema allows: calendars for ids, numbers up from the item minimum. */
  const list = (count: number) =>
    Array.from({ length: count }, (_, i) =>
      items.type === "string" ? CALENDARS[i % CALENDARS.length] : (number("minimum", items) ?? 0) + i,
    );
  const [minimum, maximum] = [number("minimum", schema), number("maximum", schema)];
  if (minimum !== undefined) add(`minimum ${minimum}`, minimum, minimum - 1);
  if (maximum !== undefined) add(`maximum ${maximum}`, maximum, maximum + 1);
  const [minItems, maxItems] = [number("minItems", schema), number("maxItems", schema)];
  if (minItems !== undefined && minItems > 0) add(`minItems ${minItems}`, list(minItems), list(minItems - 1));
  if (maxItems !== undefined) add(`maxItems ${maxItems}`, list(maxItems), [...list(maxItems), list(1)[0]]);
  const [itemMinimum, itemMaximum] = [number("minimum", items), number("maximum", items)];
  if (itemMinimum !== undefined) add(`item minimum ${itemMinimum}`, [itemMinimum], [itemMinimum - 1]);
  if (itemMaximum !== undefined) add(`item maximum ${itemMaximum}`, [itemMaximum], [itemMaximum + 1]);
  const maxLength = number("maxLength", schema);
  if (maxLength !== undefined) add(`maxLength ${maxLength}`, "x".repeat(maxLength), "x".repeat(maxLength + 1));
  return { inside, outside };
}

const catalog = buildToolCatalog();
const inside: BoundCase[] = [];
const outside: BoundCase[] = [];
for (const tool of catalog.tools) {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [property, schema] of Object.entries(properties)) {
    const cases = casesOf(tool, property, schema);
    inside.push(...cases.inside);
    outside.push(...cases.outside);
  }
}
const label = ({ tool, property, edge }: BoundCase) => `${tool.name}.${property} at ${edge}`;

let served: TestServer;
let executor: ToolExecutor;

beforeAll(async () => {
  const feed = ics(...vevent("UID:standup", `DTSTART;TZID=${HCM}:20261002T090000`, `DTEND;TZID=${HCM}:20261002T093000`, "SUMMARY:Standup"));
  served = await startTestServer({
    calendars: Object.fromEntries(CALENDARS.map((id) => [id, feed])),
    config: {
      calendars: CALENDARS.map((id) => ({ id, source: `${id}.ics`, timezone: HCM, readers: ["an"] })),
      principals: [{ id: "an", primary: "c00", timezone: HCM, tokens: [TOKEN] }],
    },
  });
  executor = new ToolExecutor(catalog, createCalqClient(served.baseUrl));
});

afterAll(async () => {
  await served.close();
});

/** The tool's arguments with one property changed. */
function argumentsOf({ tool, property, value }: BoundCase): Record<string, unknown> {
  const valid = VALID[tool.name];
  if (valid === undefined) throw new Error(`${tool.name} has a bounded property but no valid arguments in this test`);
  return { ...valid, [property]: value };
}

/** The generated unary method of `method`, as a client sends it. */
function unary(method: DescMethod): DescMethodUnary {
  const generated = CalendarService.methods.find((candidate) => candidate.name === method.name);
  if (generated === undefined || !isUnary(generated)) throw new Error(`${method.name} is not a unary method of gen/`);
  return generated;
}

function isUnary(method: DescMethod): method is DescMethodUnary {
  return method.methodKind === "unary";
}

describe("the bounds of every tool's arguments", () => {
  it("are stated in the schema of every bounded field the contract declares", () => {
    const bounded = catalog.tools.flatMap((tool) =>
      tool.method.input.fields.filter((field) => declaredBounds(field) !== undefined).map((field) => `${tool.name}.${field.name}`),
    );
    expect(bounded.length).toBeGreaterThan(0);
    expect(new Set(inside.map(({ tool, property }) => `${tool.name}.${property}`))).toEqual(new Set(bounded));
  });

  it.each(inside.map((boundCase) => [label(boundCase), boundCase] as const))("%s is answered by the service", async (_label, boundCase) => {
    const result = await executor.call(boundCase.tool, argumentsOf(boundCase), TOKEN);
    expect(result.isError, result.content[0].text).toBeUndefined();
  });

  it.each(outside.map((boundCase) => [label(boundCase), boundCase] as const))(
    "%s is refused by the schema, and by the service and the contract's check for the declared reason",
    async (_label, boundCase) => {
      const args = argumentsOf(boundCase);
      const result = await executor.call(boundCase.tool, args, TOKEN);
      expect(result.content[0].text).toMatch(/^invalid_arguments: /);

      const method = unary(boundCase.tool.method);
      const field = method.input.fields.find((candidate) => candidate.name === boundCase.property)!;
      const declared = declaredBounds(field)!;
      const request = requestFromArguments(method.input, args);
      const refusal = await createGrpcTransport({ baseUrl: served.baseUrl })
        .unary(method, undefined, 10_000, { authorization: `Bearer ${TOKEN}` }, request)
        .then(
          () => undefined,
          (error: unknown) => ConnectError.from(error),
        );
      expect(refusal, "the service answered").toBeDefined();
      expect(calqErrorInfo(refusal!)?.reason).toBe(declared.reason);
      expect(violatedFields(refusal!)).toEqual([boundCase.property]);

      let checked: CalqError | undefined;
      try {
        checkBounds(method.input, request);
      } catch (error) {
        if (error instanceof CalqError) checked = error;
      }
      expect([checked?.reason, checked?.field]).toEqual([declared.reason, boundCase.property]);
    },
  );
});

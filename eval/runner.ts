/**
 * Runs the evaluation: each case, under each description variant, is sent to
 * the chat endpoint with the variant's tools. When the model asks for the
 * user's context or calendars (look-ups), it gets what the gateway would
 * answer for the case's user (same renderer); the first call of any other
 * tool, or a reply in words, ends the case and is scored.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { GetCallerContextResponseSchema, ListCalendarsResponseSchema } from "../gen/calq/v1/calendar_service_pb.js";
import { renderResult } from "../src/gateway/render.js";
import { structuredFromMessage } from "../src/gateway/tool-json.js";
import { buildToolCatalog, type ToolDefinition } from "../src/gateway/tool-schemas.js";
import { formatDate, formatLocalDateTime, formatOffset } from "../src/time/civil.js";
import { nextOffsetChange, weekdayName, weeksAround } from "../src/time/local-day.js";
import { requestZone } from "../src/time/request-window.js";
import { DAY_MS, floorTo } from "../src/time/units.js";
import { instantToLocal } from "../src/time/zone-rules.js";
import type { ChatMessage, EvalCase } from "./cases.js";
import { type AssistantMessage, type ChatEndpoint, complete as completeOverHttp } from "./chat-client.js";
import { type CaseScore, type Outcome, scoreCase, summarize, type VariantReport } from "./scoring.js";
import type { DescriptionVariant } from "./variants.js";

/**
 * What the user's assistant app says up front: the conventions the cases
 * assume, in the user's words, never naming a tool or an argument, so that
 * the variants differ only in their tool descriptions.
 */
export const SYSTEM_PROMPT = [
  "You are a calendar assistant. Use the tools to answer questions about the user's calendar.",
  "Conventions of this app: morning is 09:00-12:00, afternoon 12:00-17:00, evening 17:00-21:00;",
  'a week runs from Monday to the next Monday; "next Friday" means the coming Friday;',
  'work hours are 09:00-17:00, Monday to Friday; a time given without a length means the hour from it ("at 3 pm" is 15:00-16:00);',
  "meetings start on the hour or the half hour;",
  '"my calendar" is the user\'s primary calendar, and "my calendars" or "all my calendars" every calendar the user has.',
].join(" ");

/** Context and calendar look-ups a model may make before its decisive move. */
const MAX_ROUNDS = 4;

/** One model turn; the HTTP client by default, recorded answers in tests. */
export type Complete = (messages: readonly ChatMessage[], tools: ReturnType<DescriptionVariant["tools"]>) => Promise<AssistantMessage>;

/** What to run, and against which model. */
export interface EvaluationOptions {
  readonly cases: readonly EvalCase[];
  readonly variants: readonly DescriptionVariant[];
  /** The model; by default the OpenAI-compatible endpoint given. */
  readonly complete?: Complete;
  readonly endpoint?: ChatEndpoint;
  /** Called after each scored case (progress). */
  readonly onScore?: (score: CaseScore) => void;
}

/** Every case's score, and one report per variant. */
export interface Evaluation {
  readonly scores: CaseScore[];
  readonly reports: VariantReport[];
}

/** Runs every case under every variant, one after another (endpoints rate-limit). */
export async function runEvaluation(options: EvaluationOptions): Promise<Evaluation> {
  const { tools: definitions } = buildToolCatalog();
  const complete: Complete =
    options.complete ??
    ((messages, tools) => {
      if (options.endpoint === undefined) throw new Error("an endpoint or a complete function is needed");
      return completeOverHttp(options.endpoint, messages, tools);
    });
  const scores: CaseScore[] = [];
  for (const variant of options.variants) {
    const tools = variant.tools(definitions);
    for (const testCase of options.cases) {
      const score = scoreCase(testCase, variant.name, await runCase(testCase, tools, definitions, complete));
      scores.push(score);
      options.onScore?.(score);
    }
  }
  return { scores, reports: options.variants.map((variant) => summarize(variant.name, scores)) };
}

/** The model's last move in one case. */
export async function runCase(
  testCase: EvalCase,
  tools: ReturnType<DescriptionVariant["tools"]>,
  definitions: readonly ToolDefinition[],
  complete: Complete,
): Promise<Outcome> {
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM_PROMPT },
    ...(testCase.history ?? []),
    { role: "user", content: testCase.request },
  ];
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const message = await complete(messages, tools);
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) return { kind: "reply", text: message.content ?? "" };
      const decisive = calls.find((call) => !ANSWERED_HERE.has(call.function.name));
      if (decisive !== undefined)
        return { kind: "call", name: decisive.function.name, arguments: parseArguments(decisive.function.arguments) };
      messages.push({ role: "assistant", content: message.content, tool_calls: calls });
      for (const call of calls) {
        const definition = definitions.find((candidate) => candidate.name === call.function.name)!;
        messages.push({ role: "tool", tool_call_id: call.id, content: answerFor(definition, testCase) });
      }
    }
    return { kind: "failed", error: `only look-ups, no other call and no reply, after ${MAX_ROUNDS} rounds` };
  } catch (error) {
    return { kind: "failed", error: error instanceof Error ? error.message : String(error) };
  }
}

/** Tools the runner answers from the case; any other call ends the case. */
const ANSWERED_HERE = new Set(["get_user_context", "list_calendars"]);

/** The gateway's answer (text, then structured JSON) for the case's user, from the response the service would send. */
function answerFor(definition: ToolDefinition, testCase: EvalCase): string {
  const { context } = testCase;
  const [schema, response] =
    definition.name === "get_user_context"
      ? [
          GetCallerContextResponseSchema,
          create(GetCallerContextResponseSchema, {
            principalId: "user",
            timezone: context.timezone ?? "",
            currentTime: timestampFromDate(new Date(context.now)),
            primaryCalendarId: context.primaryCalendarId,
            ...localDays(context),
          }),
        ]
      : [
          ListCalendarsResponseSchema,
          create(ListCalendarsResponseSchema, {
            calendars: context.calendars.map((calendar) => ({
              id: calendar.id,
              displayName: calendar.displayName,
              timezone: calendar.timezone ?? context.timezone ?? "UTC",
              primary: calendar.id === context.primaryCalendarId,
              busyOnly: calendar.busyOnly === true,
            })),
          }),
        ];
  return `${renderResult(definition, {}, response)}\n${JSON.stringify(structuredFromMessage(schema, response))}`;
}

/** Today, the weeks around it (Monday first, as the app's users have it) and the next offset change, as the service answers them. */
function localDays(context: EvalCase["context"]) {
  if (context.timezone === null) return { weekStartWeekday: "Monday" };
  const zone = requestZone(context.timezone);
  const now = Date.parse(context.now);
  const today = floorTo(instantToLocal(zone, now), DAY_MS);
  const weeks = weeksAround(today, 1);
  const change = nextOffsetChange(zone, now, now + 366 * DAY_MS);
  return {
    today: formatDate(today),
    todayWeekday: weekdayName(today),
    weekStartWeekday: "Monday",
    thisWeekStart: weeks.thisWeek,
    nextWeekStart: weeks.nextWeek,
    weekAfterNextStart: weeks.weekAfterNext,
    ...(change === undefined
      ? {}
      : {
          nextOffsetChange: {
            time: timestampFromDate(new Date(change.time)),
            offsetBefore: formatOffset(change.before),
            offsetAfter: formatOffset(change.after),
            localBefore: formatLocalDateTime(change.time + change.before) + formatOffset(change.before),
            localAfter: formatLocalDateTime(change.time + change.after) + formatOffset(change.after),
          },
        }),
  };
}

function parseArguments(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A minimal client of an OpenAI-compatible Chat Completions endpoint
 * (`POST {base}/chat/completions`), enough to offer tools and read back
 * either tool calls or a reply.
 */
import type { OpenAiTool } from "../src/gateway/formats.js";
import type { ChatMessage, ToolCall } from "./cases.js";

/** Where and as whom to ask, and which model. */
export interface ChatEndpoint {
  /** e.g. https://api.openai.com/v1 */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  /**
   * Sent only when set: some reasoning models refuse any `temperature`,
   * others refuse 0 (eval/run.ts takes it from CALQ_EVAL_TEMPERATURE).
   */
  readonly temperature?: number;
}

/** The assistant's message of the first choice. */
export interface AssistantMessage {
  readonly content: string | null;
  readonly tool_calls?: ToolCall[];
}

/** One completion with the tools offered; the model may call them or reply. */
export async function complete(
  endpoint: ChatEndpoint,
  messages: readonly ChatMessage[],
  tools: readonly OpenAiTool[],
): Promise<AssistantMessage> {
  const response = await fetch(`${endpoint.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${endpoint.apiKey}` },
    body: JSON.stringify({
      model: endpoint.model,
      messages,
      tools,
      tool_choice: "auto",
      ...(endpoint.temperature === undefined ? {} : { temperature: endpoint.temperature }),
    }),
    signal: AbortSignal.timeout(120_000),
  });
  if (!response.ok) throw new Error(`the endpoint answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  const body = (await response.json()) as { choices?: { message?: AssistantMessage }[] };
  const message = body.choices?.[0]?.message;
  if (message === undefined) throw new Error("the endpoint's answer has no choices[0].message");
  return message;
}

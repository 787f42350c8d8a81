/**
 * What `eval/run.ts` is asked to do, read from its flags and environment
 * and checked before any request is sent: a mistake in either is a usage
 * error (status 2), never a run of zero cases or a crash halfway.
 */
import { parseArgs } from "node:util";
import type { ChatEndpoint } from "./chat-client.js";
import { type DescriptionVariant, VARIANTS, variantNamed } from "./variants.js";

/** A flag or environment variable the runner cannot use; run.ts prints it and exits 2. */
export class EvalUsageError extends Error {}

/** A checked run: the endpoint, the variants, how many cases, and where to write the outcomes. */
export interface RunOptions {
  readonly endpoint: ChatEndpoint;
  readonly variants: readonly DescriptionVariant[];
  /** The first this many cases; undefined runs them all. */
  readonly caseCount: number | undefined;
  readonly out: string | undefined;
}

/** Reads `argv` (flags after the script) and `env`; throws EvalUsageError on anything it cannot use. */
export function parseRunOptions(argv: readonly string[], env: NodeJS.ProcessEnv): RunOptions {
  let values: { variants?: string; cases?: string; out?: string };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { variants: { type: "string" }, cases: { type: "string" }, out: { type: "string" } },
      strict: true,
    }));
  } catch (error) {
    throw new EvalUsageError((error as Error).message);
  }
  const names = (values.variants ?? VARIANTS.map((variant) => variant.name).join(",")).split(",");
  const variants = names.map((name) => {
    try {
      return variantNamed(name);
    } catch (error) {
      throw new EvalUsageError(`--variants: ${(error as Error).message}`);
    }
  });
  let caseCount: number | undefined;
  if (values.cases !== undefined) {
    caseCount = Number(values.cases);
    if (!/^\d+$/.test(values.cases) || caseCount < 1)
      throw new EvalUsageError(`--cases ${values.cases} is not a positive whole number of cases`);
  }
  const { CALQ_EVAL_BASE_URL: baseUrl, CALQ_EVAL_API_KEY: apiKey, CALQ_EVAL_MODEL: model, CALQ_EVAL_TEMPERATURE: temperatureText } = env;
  if (!baseUrl || !apiKey || !model) {
    throw new EvalUsageError("set CALQ_EVAL_BASE_URL (e.g. https://api.openai.com/v1), CALQ_EVAL_API_KEY and CALQ_EVAL_MODEL");
  }
  let temperature: number | undefined;
  if (temperatureText !== undefined && temperatureText !== "") {
    temperature = Number(temperatureText);
    if (!Number.isFinite(temperature) || temperature < 0 || temperature > 2)
      throw new EvalUsageError(`CALQ_EVAL_TEMPERATURE ${temperatureText} is not a number from 0 to 2`);
  }
  return {
    endpoint: { baseUrl, apiKey, model, ...(temperature === undefined ? {} : { temperature }) },
    variants,
    caseCount,
    out: values.out,
  };
}

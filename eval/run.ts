/**
 * The evaluation command:
 *
 *   CALQ_EVAL_BASE_URL=... CALQ_EVAL_API_KEY=... CALQ_EVAL_MODEL=... [CALQ_EVAL_TEMPERATURE=...] \
 *     node bin/run-ts.mjs eval/run.ts [--variants full,terse,bare] [--cases N] [--out FILE]
 *
 * Prints two Markdown tables, the rates per variant and per expected tool and
 * variant, and, with --out, writes every case's outcome as JSON. Needs a
 * real OpenAI-compatible endpoint. A flag or variable it cannot use exits 2
 * with a one-line message before any request.
 */
import { writeFileSync } from "node:fs";
import { CASES } from "./cases.js";
import { EvalUsageError, parseRunOptions, type RunOptions } from "./run-options.js";
import { runEvaluation } from "./runner.js";
import { reportTable } from "./scoring.js";

const USAGE = "usage: node bin/run-ts.mjs eval/run.ts [--variants full,terse,bare] [--cases N] [--out FILE]";

let options: RunOptions;
try {
  options = parseRunOptions(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof EvalUsageError)) throw error;
  process.stderr.write(`eval: ${error.message}\n${USAGE}\n`);
  process.exit(2);
}
const { endpoint, variants, caseCount, out } = options;
const cases = caseCount === undefined ? CASES : CASES.slice(0, caseCount);

const evaluation = await runEvaluation({
  cases,
  variants,
  endpoint,
  onScore: ({ variant, caseId, exact, asked, outcome }) =>
    process.stderr.write(
      `${variant} ${caseId}: ${exact ? "exact" : asked ? "asked" : outcome.kind === "call" ? `called ${outcome.name}` : outcome.kind}\n`,
    ),
});
process.stdout.write(`Model ${endpoint.model}, ${cases.length} cases\n\n${reportTable(evaluation.reports)}\n`);
for (const variant of variants) process.stdout.write(`- ${variant.name}: ${variant.summary}\n`);
if (out !== undefined) writeFileSync(out, `${JSON.stringify(evaluation, null, 2)}\n`);

/**
 * The evaluation command:
 *
 *   CALQ_EVAL_BASE_URL=... CALQ_EVAL_API_KEY=... CALQ_EVAL_MODEL=... \
 *     node bin/run-ts.mjs eval/run.ts [--variants full,terse,bare] [--cases N] [--out FILE]
 *
 * Prints one Markdown row per variant and, with --out, writes every case's
 * outcome as JSON. Needs a real OpenAI-compatible endpoint.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CASES } from "./cases.js";
import { runEvaluation } from "./runner.js";
import { reportTable } from "./scoring.js";
import { VARIANTS, variantNamed } from "./variants.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { variants: { type: "string", default: VARIANTS.map((variant) => variant.name).join(",") }, cases: { type: "string" }, out: { type: "string" } },
  strict: true,
});
const baseUrl = process.env.CALQ_EVAL_BASE_URL;
const apiKey = process.env.CALQ_EVAL_API_KEY;
const model = process.env.CALQ_EVAL_MODEL;
if (baseUrl === undefined || apiKey === undefined || model === undefined) {
  process.stderr.write("eval: set CALQ_EVAL_BASE_URL (e.g. https://api.openai.com/v1), CALQ_EVAL_API_KEY and CALQ_EVAL_MODEL\n");
  process.exit(2);
}
const variants = values.variants.split(",").map(variantNamed);
const cases = values.cases === undefined ? CASES : CASES.slice(0, Number(values.cases));

const evaluation = await runEvaluation({
  cases,
  variants,
  endpoint: { baseUrl, apiKey, model },
  onScore: (score) => process.stderr.write(`${score.variant} ${score.caseId}: ${score.exact ? "exact" : score.asked ? "asked" : score.outcome.kind}\n`),
});
process.stdout.write(`Model ${model}, ${cases.length} cases\n\n${reportTable(evaluation.reports)}\n`);
for (const variant of variants) process.stdout.write(`- ${variant.name}: ${variant.summary}\n`);
if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify(evaluation, null, 2)}\n`);

import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { EvalUsageError, parseRunOptions } from "../../eval/run-options.js";
import { VARIANTS } from "../../eval/variants.js";

const ENV = { CALQ_EVAL_BASE_URL: "http://127.0.0.1:1/v1", CALQ_EVAL_API_KEY: "k", CALQ_EVAL_MODEL: "m" };

describe("the evaluation command's flags and environment", () => {
  it("runs every variant and every case by default, with no temperature", () => {
    const options = parseRunOptions([], ENV);
    expect(options.variants).toEqual(VARIANTS);
    expect(options.caseCount).toBeUndefined();
    expect(options.endpoint).toEqual({ baseUrl: ENV.CALQ_EVAL_BASE_URL, apiKey: "k", model: "m" });
  });

  it("takes the variants, a case count, an output file and CALQ_EVAL_TEMPERATURE", () => {
    const options = parseRunOptions(["--variants", "bare,full", "--cases", "5", "--out", "r.json"], {
      ...ENV,
      CALQ_EVAL_TEMPERATURE: "0.2",
    });
    expect(options.variants.map((variant) => variant.name)).toEqual(["bare", "full"]);
    expect(options).toMatchObject({ caseCount: 5, out: "r.json", endpoint: { temperature: 0.2 } });
  });

  it("refuses what it cannot use instead of running zero cases or crashing", () => {
    const refusals: [string[], NodeJS.ProcessEnv, string][] = [
      [["--cases", "abc"], ENV, "--cases abc is not a positive whole number"],
      [["--cases", "0"], ENV, "--cases 0 is not a positive whole number"],
      [["--cases", "2.5"], ENV, "--cases 2.5 is not a positive whole number"],
      [["--variants", "full,shiny"], ENV, "--variants: unknown variant shiny"],
      [["--case", "3"], ENV, "--case"],
      [[], { ...ENV, CALQ_EVAL_TEMPERATURE: "warm" }, "CALQ_EVAL_TEMPERATURE warm is not a number from 0 to 2"],
      [[], { CALQ_EVAL_BASE_URL: "x" }, "set CALQ_EVAL_BASE_URL"],
    ];
    for (const [argv, env, message] of refusals) {
      expect(() => parseRunOptions(argv, env), argv.join(" ")).toThrow(EvalUsageError);
      expect(() => parseRunOptions(argv, env), argv.join(" ")).toThrow(message);
    }
  });

  it("exits 2 with the reason, before calling any endpoint, on --cases abc", () => {
    const run = spawnSync(process.execPath, ["bin/run-ts.mjs", "eval/run.ts", "--cases", "abc"], {
      env: { ...process.env, ...ENV },
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("eval: --cases abc is not a positive whole number of cases");
    expect(run.stdout).toBe("");
  });
});

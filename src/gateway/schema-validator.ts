/**
 * JSON Schema checking with ajv: tool arguments before a call, and (in tests)
 * results against a tool's output schema. Formats such as `date-time` are
 * checked, not ignored.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import ajvFormats from "ajv-formats";
import type { JsonSchema } from "./tool-schemas.js";

// ajv-formats is CommonJS: imported from ESM, its plugin is the module's `default` property.
const addFormats = ajvFormats.default;

/** An ajv instance that reports every error and checks formats. */
export function createAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  return ajv;
}

/** A compiled schema whose failures read as one line per problem. */
export interface Validator {
  /** Problems with `value`; empty when it is valid. */
  problems(value: unknown): string[];
}

/** Compiles `schema` once; the validator is reused for every call. */
export function compileValidator(ajv: Ajv, schema: JsonSchema): Validator {
  const validate: ValidateFunction = ajv.compile(schema);
  return {
    problems(value) {
      return validate(value) ? [] : (validate.errors ?? []).map(describeProblem);
    },
  };
}

/** "`user_id`: not allowed (this tool has no such argument)" rather than ajv's JSON pointers. */
function describeProblem(error: ErrorObject): string {
  const where = error.instancePath === "" ? "arguments" : `\`${error.instancePath.slice(1).replace(/\//g, ".")}\``;
  if (error.keyword === "additionalProperties") {
    return `\`${(error.params as { additionalProperty: string }).additionalProperty}\`: not allowed (this tool has no such argument)`;
  }
  if (error.keyword === "required")
    return `\`${(error.params as { missingProperty: string }).missingProperty}\`: required (send null where null is allowed)`;
  if (error.keyword === "enum")
    return `${where}: must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((value) => JSON.stringify(value)).join(", ")}`;
  return `${where}: ${error.message ?? "invalid"}`;
}

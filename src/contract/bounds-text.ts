/**
 * Declared bounds in words, one way everywhere: the server's refusals, the
 * command's help and the docs' table say "1 to 100, or 0 for the default
 * 20" from the same declaration, so no reader spells a bound its own way.
 */
import type { DeclaredBounds } from "./field-bounds.js";

/** The values a number bound accepts, leaving out the zero that means a default: "1 to 100", "at least 5", "at most 50". */
export function valueRange(bounds: Pick<DeclaredBounds, "min" | "max">): string | undefined {
  return span(bounds.min, bounds.max);
}

/** How many items a list may hold: "1 to 50", "at most 7". */
export function countRange(bounds: Pick<DeclaredBounds, "minItems" | "maxItems">): string | undefined {
  return span(bounds.minItems, bounds.maxItems);
}

/** ", or 0 for the default 20" when zero stands for a default, else "". */
export function zeroClause(bounds: Pick<DeclaredBounds, "zeroMeans">): string {
  return bounds.zeroMeans === undefined ? "" : `, or 0 for the default ${bounds.zeroMeans}`;
}

/**
 * Every bound of a field in one phrase: "1 to 100, or 0 for the default 20",
 * "1 to 50 items", "at most 7 items, each 1 to 7", "at most 200 characters".
 */
export function describeBounds(bounds: DeclaredBounds): string {
  const count = countRange(bounds);
  const values = valueRange(bounds);
  const parts = [
    count === undefined ? undefined : `${count} items`,
    values === undefined ? undefined : bounds.field.fieldKind === "list" ? `each ${values}` : `${values}${zeroClause(bounds)}`,
    bounds.maxLength === undefined ? undefined : `at most ${bounds.maxLength} characters`,
  ];
  return parts.filter((part) => part !== undefined).join(", ");
}

function span(low: number | undefined, high: number | undefined): string | undefined {
  if (low !== undefined && high !== undefined) return `${low} to ${high}`;
  if (low !== undefined) return `at least ${low}`;
  if (high !== undefined) return `at most ${high}`;
  return undefined;
}

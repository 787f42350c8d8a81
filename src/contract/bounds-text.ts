/**
 * Declared bounds in words, one way everywhere: the server's refusals, the
 * command's help and the docs' table say "1 to 100, or 0 for the default
 * 20" from the same declaration, so no reader spells a bound its own way.
 * Imports nothing, so the command's help can load it alone.
 */
/**
 * The numbers of a field's bounds (proto/calq/v1/reasons.proto, FieldBounds),
 * and whether the field is a list, whose values bound its items. Plain data,
 * so a reader that does not load protobuf-es (the command's help) can have
 * them said in the same words.
 */
export interface BoundNumbers {
  /** The smallest value accepted (of each item, for a list). */
  readonly min?: number;
  /** The largest value accepted (of each item, for a list). */
  readonly max?: number;
  /** When set, 0 is accepted too and stands for this value. */
  readonly zeroMeans?: number;
  /** The fewest items of a list. */
  readonly minItems?: number;
  /** The most items of a list. */
  readonly maxItems?: number;
  /** The most characters of a string, in Unicode code points. */
  readonly maxLength?: number;
  /** True when the field is a list. */
  readonly list: boolean;
}

/** The values a number bound accepts, leaving out the zero that means a default: "1 to 100", "at least 5", "at most 50". */
export function valueRange(bounds: Pick<BoundNumbers, "min" | "max">): string | undefined {
  return span(bounds.min, bounds.max);
}

/** How many items a list may hold: "1 to 50", "at most 7". */
export function countRange(bounds: Pick<BoundNumbers, "minItems" | "maxItems">): string | undefined {
  return span(bounds.minItems, bounds.maxItems);
}

/** ", or 0 for the default 20" when zero stands for a default, else "". */
export function zeroClause(bounds: Pick<BoundNumbers, "zeroMeans">): string {
  return bounds.zeroMeans === undefined ? "" : `, or 0 for the default ${bounds.zeroMeans}`;
}

/**
 * Every bound of a field in one phrase: "1 to 100, or 0 for the default 20",
 * "1 to 50 items", "at most 7 items, each 1 to 7", "at most 200 characters".
 */
export function describeBounds(bounds: BoundNumbers): string {
  const count = countRange(bounds);
  const values = valueRange(bounds);
  const parts = [
    count === undefined ? undefined : `${count} items`,
    values === undefined ? undefined : bounds.list ? `each ${values}` : `${values}${zeroClause(bounds)}`,
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

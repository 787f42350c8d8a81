/**
 * A flag that takes one value of a contract enum, spelled as a command line
 * spells it: the value's name without its prefix, lower case, words joined
 * by "-" (MATCH_MODE_START_WITHIN is start-within, TENTATIVE_POLICY_BUSY is
 * busy). The unspecified value is never sendable.
 */
import type { DescEnum } from "@bufbuild/protobuf";

/** The command-line spellings of `schema`'s values, each to its number. */
export function enumFlagValues(schema: DescEnum): ReadonlyMap<string, number> {
  return new Map(
    schema.values.filter((value) => value.number !== 0).map((value) => [value.localName.toLowerCase().replaceAll("_", "-"), value.number]),
  );
}

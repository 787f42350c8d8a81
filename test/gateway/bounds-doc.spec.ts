/**
 * docs/gateway.md lists the bounds the contract declares; this keeps the
 * list equal to the proto, row for row, as the contract's own words say them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { boundedFields, describeBounds } from "../../src/contract/index.js";
import { loadContractRegistry } from "../../src/gateway/descriptors.js";

/** The table's rows, generated: every bounded field of every message of the contract, in the proto's order. */
function boundsRows(): string[] {
  const rows: string[] = [];
  for (const type of loadContractRegistry()) {
    if (type.kind !== "message") continue;
    for (const bounds of boundedFields(type)) {
      rows.push(`| \`${type.name}.${bounds.field.name}\` | ${describeBounds(bounds)} | \`${bounds.reason}\` |`);
    }
  }
  return rows;
}

describe("docs/gateway.md's bounds", () => {
  it("hold the table of every bound the contract declares, word for word", () => {
    const doc = readFileSync("docs/gateway.md", "utf8");
    const header = "| request field | accepts | refused with |\n|---|---|---|\n";
    expect(doc).toContain(`${header}${boundsRows().join("\n")}\n\n`);
  });
});

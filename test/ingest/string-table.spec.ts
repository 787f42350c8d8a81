/**
 * A string table holds many strings as one flat string with offsets, and
 * gives each back exactly as it went in, across a thread boundary too.
 */
import { describe, expect, it } from "vitest";
import { stringAt, stringCount, stringTable } from "../../src/ingest/string-table.js";

describe("a string table", () => {
  it("gives back every entry in order, empty ones and ones beyond Latin-1 too", () => {
    const entries = ["", "uid-1@calq.test", "", "Réunion d'équipe", "会议", "🗓️ planning", ""];
    const table = stringTable(entries);
    expect(stringCount(table)).toBe(entries.length);
    expect(entries.map((_, i) => stringAt(table, i))).toEqual(entries);
  });

  it("keeps a lone surrogate as it is through structured cloning, where UTF-8 would make it U+FFFD", () => {
    const cut = "🗓️ planning".slice(0, 1);
    expect(new TextDecoder().decode(new TextEncoder().encode(cut))).toBe("\uFFFD");
    const crossed = structuredClone(stringTable(["before", cut, "after"]));
    expect(stringAt(crossed, 1)).toBe(cut);
    expect(stringAt(crossed, 2)).toBe("after");
  });

  it("holds no entries when given none", () => {
    const table = stringTable([]);
    expect(stringCount(table)).toBe(0);
    expect(table.text).toBe("");
  });
});

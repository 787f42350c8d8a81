/**
 * A string table holds many strings in one buffer that moves between
 * threads, and gives each back exactly as it went in: one byte a code unit
 * when Latin-1 holds them all, two otherwise, a lone surrogate included.
 */
import { describe, expect, it } from "vitest";
import { stringCount, stringReader, stringTable, stringTableBuffers } from "../../src/ingest/string-table.js";

/** The table moved through structured cloning as postMessage moves it, and read on the other side. */
function crossed(entries: readonly string[]) {
  const table = stringTable(entries);
  const transfer = stringTableBuffers(table);
  const moved = structuredClone(table, { transfer });
  const read = stringReader(moved);
  return { table: moved, transfer, entries: Array.from({ length: stringCount(moved) }, (_, i) => read(i)) };
}

describe("a string table", () => {
  it("gives back every entry in order, empty ones too, one byte a code unit when Latin-1 holds them all", () => {
    const entries = ["", "uid-1@calq.test", "", "Réunion d'équipe, salle ÿ", ""];
    const { table, entries: read } = crossed(entries);
    expect(read).toEqual(entries);
    expect(table.encoding).toBe("latin1");
    expect(table.bytes.length).toBe(entries.join("").length);
  });

  it("keeps two bytes a code unit once one entry goes beyond Latin-1", () => {
    const entries = ["Réunion", "会议", "🗓️ planning", "Ωmega"];
    const { table, entries: read } = crossed(entries);
    expect(read).toEqual(entries);
    expect(table.encoding).toBe("utf16le");
  });

  it("keeps a lone surrogate as it is, where UTF-8 would make it U+FFFD", () => {
    const cut = "🗓️ planning".slice(0, 1);
    expect(new TextDecoder().decode(new TextEncoder().encode(cut))).toBe("\uFFFD");
    expect(crossed(["before", cut, "after"]).entries).toEqual(["before", cut, "after"]);
  });

  it("moves its buffers rather than copying them", () => {
    const { transfer } = crossed(["a", "b"]);
    for (const buffer of transfer) expect(buffer.byteLength).toBe(0);
  });

  it("holds no entries when given none", () => {
    const { table, entries } = crossed([]);
    expect(stringCount(table)).toBe(0);
    expect(entries).toEqual([]);
  });
});

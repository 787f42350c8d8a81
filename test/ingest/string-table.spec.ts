/**
 * A string table holds many strings in one buffer that threads share, and
 * gives each back exactly as it went in: one byte a code unit when Latin-1
 * holds them all, two otherwise, a lone surrogate included; a table built
 * from ranges of others gives back theirs.
 */
import { describe, expect, it } from "vitest";
import { type StringTable, StringTableBuilder, stringCount, stringReader, stringTable } from "../../src/ingest/string-table.js";

/** Every entry of a table. */
function entriesOf(table: StringTable): string[] {
  const read = stringReader(table);
  return Array.from({ length: stringCount(table) }, (_, i) => read(i));
}

/** The table crossed through structured cloning as postMessage carries it, and read on the other side. */
function crossed(entries: readonly string[]) {
  const table = stringTable(entries);
  const shared = structuredClone(table);
  return { original: table, table: shared, entries: entriesOf(shared) };
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

  it("shares its buffers rather than copying them", () => {
    const { original, table } = crossed(["a", "b"]);
    table.bytes[0] = "z".charCodeAt(0);
    expect(entriesOf(original)).toEqual(["z", "b"]);
  });

  it("built from ranges of other tables and new strings, gives back each in the order added, Latin-1 widened where needed", () => {
    const narrow = stringTable(["Réunion", "", "salle ÿ", "lunch"]);
    const wide = stringTable(["会议", "🗓️ planning"]);
    const builder = new StringTableBuilder();
    builder.addRange(narrow, 1, 3);
    builder.add("Ωmega");
    builder.addRange(wide, 0, 2);
    builder.addRange(narrow, 0, 1);
    builder.addRange(narrow, 2, 2);
    const built = builder.build();
    expect(built.encoding).toBe("utf16le");
    expect(entriesOf(built)).toEqual(["", "salle ÿ", "Ωmega", "会议", "🗓️ planning", "Réunion"]);
    const latin = new StringTableBuilder();
    latin.addRange(narrow, 0, 4);
    latin.add("end");
    expect(latin.build().encoding).toBe("latin1");
  });

  it("holds no entries when given none", () => {
    const { table, entries } = crossed([]);
    expect(stringCount(table)).toBe(0);
    expect(entries).toEqual([]);
  });
});

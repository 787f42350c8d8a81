/**
 * The pieces both engines' durability and wake-ups rest on, in process: a
 * journal line is read back only when it is whole and its check matches,
 * and every group has a NOTIFY channel PostgreSQL keeps apart from the
 * others' (identifiers are cut at 63 bytes).
 */
import { describe, expect, it } from "vitest";
import { crc32Hex, decodeEntries, encodeEntries } from "../../src/registry/journal-file.js";
import { channelOf } from "../../src/registry/postgres-subscription.js";

describe("a journal's lines", () => {
  const entries = [
    { t: "header", n: 0 },
    { t: "change", n: 1, subject: "Lịch làm việc" },
    { t: "change", n: 2 },
  ];

  it("read back as written, UTF-8 included", () => {
    const bytes = encodeEntries(entries);
    expect(decodeEntries(bytes)).toEqual({ entries, validLength: bytes.length });
  });

  it("use the standard CRC-32", () => {
    expect(crc32Hex(Buffer.from("123456789"))).toBe("cbf43926");
  });

  it("stop at a torn last line, and say where the whole ones end", () => {
    const whole = encodeEntries(entries.slice(0, 2));
    const torn = Buffer.concat([whole, encodeEntries(entries.slice(2)).subarray(0, 12)]);
    expect(decodeEntries(torn)).toEqual({ entries: entries.slice(0, 2), validLength: whole.length });
  });

  it("stop at a line whose check fails, even when whole lines follow", () => {
    const first = encodeEntries(entries.slice(0, 1));
    const damaged = Buffer.from(encodeEntries(entries.slice(1, 2)).toString("utf8").replace('"n":1', '"n":7'));
    expect(decodeEntries(Buffer.concat([first, damaged, encodeEntries(entries.slice(2))]))).toEqual({
      entries: entries.slice(0, 1),
      validLength: first.length,
    });
  });
});

describe("a group's NOTIFY channel", () => {
  it("names the group when it fits an identifier, and one channel serves a registry without groups", () => {
    expect(channelOf("g1")).toBe("calq_registry:g1");
    expect(channelOf(undefined)).toBe("calq_registry");
  });

  it("is the group's digest when the name would pass 63 bytes, distinct for groups that share a long prefix", () => {
    const long = "a".repeat(60);
    expect(Buffer.byteLength(channelOf(`${long}-1`))).toBeLessThanOrEqual(63);
    expect(channelOf(`${long}-1`)).not.toBe(channelOf(`${long}-2`));
  });
});

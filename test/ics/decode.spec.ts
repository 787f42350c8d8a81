/**
 * Feed bytes to text: a character split by a fold at 75 octets comes back
 * whole, and nothing else moves (line numbers stay true).
 */
import { describe, expect, it } from "vitest";
import { decodeFeed } from "../../src/ics/decode.js";

/** `text` with a fold (break + space) inserted after the `at`-th byte. */
function foldAt(text: string, at: number, lineBreak: string): Buffer {
  const bytes = Buffer.from(text);
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(`${lineBreak} `), bytes.subarray(at)]);
}

describe("decodeFeed", () => {
  it.each([
    ["a 3-byte character split after its first byte, CRLF", "SUMMARY:lịch", 10, "\r\n"],
    ["a 3-byte character split after its second byte, LF", "SUMMARY:lịch", 11, "\n"],
    ["a 4-byte emoji split after its first byte", "SUMMARY:🎉 party", 9, "\r\n"],
  ])("mends %s, keeping the line count", (_case, text, at, lineBreak) => {
    const decoded = decodeFeed(foldAt(text, at, lineBreak)).text;
    expect(decoded).not.toContain("\uFFFD");
    expect(decoded.replace(/\r?\n[ \t]/g, "")).toBe(text);
    expect(decoded.split("\n")).toHaveLength(2);
  });

  it("leaves text without split characters byte for byte, BOM included", () => {
    const text = "\uFEFFBEGIN:VCALENDAR\r\nSUMMARY:lịch\r\n  indented continuation\r\nEND:VCALENDAR\r\n";
    expect(decodeFeed(Buffer.from(text))).toEqual({ text });
  });

  it("reports invalid UTF-8 by its line, and replaces it", () => {
    const bytes = Buffer.from([0x41, 0x0a, 0x53, 0xff, 0x54]);
    expect(decodeFeed(bytes)).toEqual({ text: "A\nS\uFFFDT", invalidUtf8Line: 2 });
  });
});

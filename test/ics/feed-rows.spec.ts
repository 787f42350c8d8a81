import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { feedRows } from "../../src/ics/feed-lexer.js";

describe("a feed's rows", () => {
  it("are what splitting at CRLF, LF or CR gives, one at a time", () => {
    const text = fc.array(fc.constantFrom("a", "b", " ", "\t", "\r", "\n", "\r\n"), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (feed) => {
        expect([...feedRows(feed)]).toEqual(feed.split(/\r\n|\n|\r/));
      }),
      { numRuns: 2000 },
    );
  });
});

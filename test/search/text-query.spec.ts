/**
 * Search by words (src/search/text-query.ts): case and diacritics do not
 * matter, Vietnamese included, every word must occur, nothing is a pattern.
 */
import { describe, expect, it } from "vitest";
import { foldText, searchableText } from "../../src/ics/searchable-text.js";
import { MAX_QUERY_CHARS, matchesWords, parseTextQuery } from "../../src/search/text-query.js";

function words(query: string): readonly string[] {
  const parsed = parseTextQuery(query);
  if (!("words" in parsed)) throw new Error(`refused: ${parsed.problem}`);
  return parsed.words;
}

const meeting = searchableText("Họp giao ban tuần", "Phòng Đà Lạt, tầng 3", "Bàn kế hoạch quý IV với anh Đăng");

describe("text queries", () => {
  it("find Vietnamese text without its marks: hop finds Họp, d finds đ", () => {
    expect(matchesWords(words("hop"), meeting)).toBe(true);
    expect(matchesWords(words("HỌP"), meeting)).toBe(true);
    expect(matchesWords(words("da lat"), meeting)).toBe(true);
    expect(matchesWords(words("dang"), meeting)).toBe(true);
    expect(foldText("Đà Nẵng đẹp")).toBe("da nang dep");
  });

  it("need every word, each in the summary, the location or the description", () => {
    expect(matchesWords(words("giao ban phong ke hoach"), meeting)).toBe(true);
    expect(matchesWords(words("giao ban nha trang"), meeting)).toBe(false);
  });

  it("never match a word across two fields", () => {
    const split = searchableText("team", "lunch", "");
    expect(matchesWords(words("teamlunch"), split)).toBe(false);
  });

  it("fold other scripts' marks and compatibility forms too", () => {
    expect(matchesWords(words("cafe"), searchableText("Café Zürich", "", ""))).toBe(true);
    expect(matchesWords(words("zurich"), searchableText("Café Zürich", "", ""))).toBe(true);
    expect(matchesWords(words("strasse"), searchableText("Hauptstraße 1", "", ""))).toBe(true);
    expect(matchesWords(words("ﬁnal"), searchableText("Final review", "", ""))).toBe(true);
  });

  it("are words, not patterns: regular-expression characters only separate words", () => {
    expect(words("a.*b")).toEqual(["a", "b"]);
    expect(matchesWords(words("(review)"), searchableText("Final review", "", ""))).toBe(true);
  });

  it("are bounded, and a query of punctuation alone is refused rather than matching everything", () => {
    expect(parseTextQuery("x".repeat(MAX_QUERY_CHARS + 1))).toEqual({ problem: "too_long" });
    expect(parseTextQuery("a b c d e f g h i j k")).toEqual({ problem: "too_many_words" });
    expect(parseTextQuery(" -- !! ")).toEqual({ problem: "no_words" });
    expect(parseTextQuery("")).toEqual({ words: [] });
    expect(matchesWords([], meeting)).toBe(true);
  });
});

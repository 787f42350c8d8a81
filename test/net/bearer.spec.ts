import { describe, expect, it } from "vitest";
import { bearerToken } from "../../src/net/bearer.js";

describe("bearerToken", () => {
  it("reads the token of a Bearer header, in any case of the scheme, ignoring surrounding spaces", () => {
    expect(bearerToken("Bearer abc.DEF-1")).toBe("abc.DEF-1");
    expect(bearerToken("  bearer abc  ")).toBe("abc");
  });

  it("finds no token in another scheme, an empty or spaced token, or no header", () => {
    for (const header of ["Basic YWJj", "Bearer ", "Bearer a b", "Bearer\tabc", "abc", "", null, undefined]) {
      expect(bearerToken(header), String(header)).toBeUndefined();
    }
  });
});

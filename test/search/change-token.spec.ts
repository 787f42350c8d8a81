/**
 * Change tokens (src/search/change-token.ts) are signed and bound: read back
 * only for the caller and calendars they were made for, unaltered, and a
 * page token never passes for a change token.
 */
import { describe, expect, it } from "vitest";
import { ChangeTokenCodec } from "../../src/search/change-token.js";

const codec = new ChangeTokenCodec([{ id: "k1", secret: new Uint8Array(32).fill(1) }]);
const binding = { principalId: "an", calendarIds: ["home", "work"] };

describe("change tokens", () => {
  it("read back the snapshots they name, and page tokens where they continue", () => {
    expect(codec.readToken(codec.token(binding, ["s1", "s2"]), binding)).toEqual(["s1", "s2"]);
    const page = { from: ["s1", "s2"], to: ["s3", "s4"], after: "home abc" };
    expect(codec.readPage(codec.pageToken(binding, page), binding)).toEqual(page);
  });

  it("are refused for another caller, other calendars, or altered", () => {
    const token = codec.token(binding, ["s1", "s2"]);
    const refused = { reason: "INVALID_CHANGE_TOKEN", field: "change_token" };
    expect(() => codec.readToken(token, { ...binding, principalId: "binh" })).toThrow(expect.objectContaining(refused));
    expect(() => codec.readToken(token, { ...binding, calendarIds: ["work"] })).toThrow(expect.objectContaining(refused));
    const [body, key, signature] = token.split(".");
    expect(() => codec.readToken(`${body}x.${key}.${signature}`, binding)).toThrow(expect.objectContaining(refused));
    const otherKey = new ChangeTokenCodec([{ id: "k2", secret: new Uint8Array(32).fill(2) }]);
    expect(() => otherKey.readToken(token, binding)).toThrow(expect.objectContaining(refused));
  });

  it("do not pass a page token for a change token, or the other way round", () => {
    const page = codec.pageToken(binding, { from: ["s1", "s2"], to: ["s3", "s4"], after: "" });
    expect(() => codec.readToken(page, binding)).toThrow(expect.objectContaining({ reason: "INVALID_CHANGE_TOKEN" }));
    expect(() => codec.readPage(codec.token(binding, ["s1", "s2"]), binding)).toThrow(
      expect.objectContaining({ reason: "INVALID_CHANGE_TOKEN", field: "page_token" }),
    );
  });
});

import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig, sha256Hex } from "../../src/config/calq-config.js";

const token = `sha256:${sha256Hex("secret")}`;

function base() {
  return {
    calendars: [{ id: "work", source: "work.ics", timezone: "Asia/Ho_Chi_Minh", readers: ["an"] }],
    principals: [{ id: "an", primary: "work", tokens: [token] }],
  };
}

function refusal(document: unknown): string {
  try {
    parseConfig(document, "/srv/calq");
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("calq.yaml", () => {
  it("resolves sources against the config's folder and applies search defaults", () => {
    const config = parseConfig(base(), "/srv/calq");
    expect(config.calendars[0]).toMatchObject({
      id: "work",
      source: { kind: "file", path: "/srv/calq/work.ics" },
      refreshMs: 5 * 60_000,
      name: "work",
      readers: ["an"],
    });
    expect(config.principals[0].tokenDigests).toEqual([sha256Hex("secret")]);
    expect(config.search).toEqual({ maxWindowDays: 366, cursorLifetimeMinutes: 15, cursorKeyEnv: [] });
  });

  it("refuses tokens written in clear", () => {
    const document = base();
    document.principals[0].tokens = ["secret"];
    expect(refusal(document)).toContain("principals[0] (an).tokens[0]: write tokens as sha256:<64 hex digits>");
  });

  it("refuses a reader that is not a principal", () => {
    const document = base();
    document.calendars[0].readers = ["an", "mallory"];
    expect(refusal(document)).toContain('calendar work names unknown reader "mallory"');
  });

  it("refuses a primary calendar that does not exist", () => {
    const document = base();
    document.principals[0].primary = "home";
    expect(refusal(document)).toContain('(an).primary: no calendar has id "home"');
  });

  it("refuses duplicate calendar ids and the reserved id primary", () => {
    const document = base();
    document.calendars.push({ ...document.calendars[0] });
    expect(refusal(document)).toContain('calq.yaml: duplicate calendar id "work"');
    const reserved = base();
    reserved.calendars[0].id = "primary";
    reserved.principals[0].primary = "primary";
    expect(refusal(reserved)).toContain('"primary" is reserved');
  });

  it("refuses a token shared by two principals", () => {
    const document = base();
    document.principals.push({ id: "binh", primary: "work", tokens: [token] });
    expect(refusal(document)).toContain("calq.yaml: duplicate token (two principals share one)");
  });

  it("refuses unknown zones and capabilities", () => {
    const zone = base();
    zone.calendars[0].timezone = "GMT+7";
    expect(refusal(zone)).toContain('(work).timezone: "GMT+7" is not an IANA zone name');
    const capability = { ...base(), principals: [{ id: "an", tokens: [token], capabilities: ["calendar.write"] }] };
    expect(refusal(capability)).toContain('unknown capability "calendar.write"');
  });

  it("refuses a config that is not a mapping of lists", () => {
    expect(refusal("calendars: work")).toContain("expected a mapping");
    expect(refusal({ calendars: "work" })).toContain("calendars: expected a list");
  });
});

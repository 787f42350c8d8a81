/**
 * A registry person's settings apply to calls authenticated as them: their
 * primary calendar, zone and working hours take precedence over calq.yaml's,
 * while credentials and capabilities stay calq.yaml's.
 */
import { describe, expect, it } from "vitest";
import { Authenticator, type PersonSettings } from "../../src/auth/authenticator.js";
import { parseConfig } from "../../src/config/calq-config.js";
import { sha256Hex } from "../../src/config/secret.js";

const config = parseConfig(
  {
    calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
    principals: [
      { id: "an", primary: "work", timezone: "Asia/Ho_Chi_Minh", tokens: [`sha256:${sha256Hex("token-an")}`] },
      { id: "binh", tokens: [`sha256:${sha256Hex("token-binh")}`], capabilities: ["calendar.admin"] },
    ],
  },
  "/etc/calq",
  "calq.yaml",
  {},
);

function authenticator(people: Record<string, PersonSettings>): Authenticator {
  return new Authenticator(config, { people: async (principalId) => people[principalId] });
}

describe("people's registry settings", () => {
  it("give an authenticated principal their primary calendar, zone and working hours over calq.yaml's", async () => {
    const hours = { days: [1, 2], startMinute: 9 * 60, endMinute: 17 * 60 };
    const principal = await authenticator({ an: { primary: "team", timezone: "Europe/Berlin", workingHours: hours } }).verify(
      "Bearer token-an",
      undefined,
    );
    expect(principal).toMatchObject({ id: "an", primary: "team", timezone: "Europe/Berlin", workingHours: hours });
    expect(principal.capabilities).toEqual(["calendar.read"]);
  });

  it("keep calq.yaml's settings where the person sets none, and its capabilities always", async () => {
    const an = await authenticator({ an: { timezone: "Europe/Berlin" } }).verify("Bearer token-an", undefined);
    expect(an).toMatchObject({ primary: "work", timezone: "Europe/Berlin" });
    const binh = await authenticator({ binh: { primary: "team" } }).verify("Bearer token-binh", undefined);
    expect(binh.capabilities).toContain("calendar.admin");
    expect(binh.primary).toBe("team");
  });

  it("change nothing for a principal the registry does not know", async () => {
    expect(await authenticator({}).verify("Bearer token-an", undefined)).toMatchObject({ primary: "work", timezone: "Asia/Ho_Chi_Minh" });
  });
});

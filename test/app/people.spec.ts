/**
 * Whose working hours a meeting reads: calq.yaml's principals, with the
 * registry's people over them as the replica follows them, each found by the
 * calendar that is their primary one.
 */
import { describe, expect, it } from "vitest";
import { livePeople, type RegisteredPeople, settingsOfPerson } from "../../src/app/people.js";
import type { PrincipalConfig } from "../../src/config/config-model.js";
import type { PersonRecord } from "../../src/registry/index.js";

const an: PrincipalConfig = {
  id: "an",
  primary: "an-work",
  timezone: "Asia/Ho_Chi_Minh",
  tokenDigests: [],
  capabilities: [],
  workingHours: { days: [1, 2, 3, 4, 5], startMinute: 8 * 60, endMinute: 17 * 60 },
};

function person(principalId: string, settings: Partial<PersonRecord>): PersonRecord {
  return {
    principalId,
    weekStart: "MO",
    emails: [],
    shardGroup: undefined,
    etag: "e",
    updatedBy: "admin",
    updatedAt: 0,
    changeNumber: 1,
    ...settings,
  };
}

describe("a registry person's settings", () => {
  it("read as a principal's: ISO weekdays, minutes after midnight, 24:00 as the day's end", () => {
    const settings = settingsOfPerson(
      person("binh", {
        primaryCalendar: "binh-work",
        zone: "Europe/Berlin",
        workingHours: { days: ["MO", "WE", "SU"], start: "09:30", endExclusive: "24:00" },
        weekStart: "SU",
        emails: ["binh@example.com"],
      }),
    );
    expect(settings).toEqual({
      primary: "binh-work",
      timezone: "Europe/Berlin",
      workingHours: { days: [1, 3, 7], startMinute: 570, endMinute: 1440 },
      weekStart: 7,
      emails: ["binh@example.com"],
    });
  });
});

describe("livePeople", () => {
  it("finds calq.yaml's principals by their primary calendar, and the registry's people over them as they change", () => {
    let registered: RegisteredPeople = { version: 0, people: new Map() };
    const people = livePeople([an], () => registered);
    expect(people.ownerOf("an-work")?.workingHours).toEqual(an.workingHours);
    expect(people.ownerOf("binh-work")).toBeUndefined();

    // The registry sets Binh (unknown to calq.yaml) and moves An's hours; An's zone stays calq.yaml's.
    const hours = { days: ["TU" as const], start: "10:00", endExclusive: "12:00" };
    registered = {
      version: 1,
      people: new Map([
        ["an", person("an", { workingHours: hours })],
        ["binh", person("binh", { primaryCalendar: "binh-work", zone: "Europe/Berlin" })],
      ]),
    };
    expect(people.ownerOf("an-work")).toMatchObject({
      id: "an",
      timezone: "Asia/Ho_Chi_Minh",
      workingHours: { days: [2], startMinute: 600, endMinute: 720 },
    });
    expect(people.ownerOf("binh-work")).toMatchObject({ id: "binh", timezone: "Europe/Berlin" });

    // A person who takes another's primary calendar makes it shared: it belongs to neither.
    registered = {
      version: 2,
      people: new Map([["binh", person("binh", { primaryCalendar: "an-work" })]]),
    };
    expect(people.ownerOf("an-work")).toBeUndefined();
    expect(people.ownerOf("binh-work")).toBeUndefined();
  });
});

/**
 * A calendar or person spec is checked whole before the registry writes
 * anything: every field at fault is named with its path, and the defaults an
 * admin may leave out are filled the way calq.yaml fills them. An id may
 * not be both calq.yaml's and the registry's.
 */
import { describe, expect, it } from "vitest";
import { calendarIdsInBoth, checkCalendarSpec, checkPersonSpec, type FieldViolation, RegistryError } from "../../src/registry/index.js";

/** The violations `check` refuses `value` with. */
function violationsOf(check: (value: unknown) => unknown, value: unknown): FieldViolation[] {
  try {
    check(value);
  } catch (error) {
    if (error instanceof RegistryError && error.failure === "INVALID_SPEC") return [...error.violations];
    throw error;
  }
  throw new Error("the spec was accepted");
}

const fields = (violations: FieldViolation[]) => violations.map((violation) => violation.field);

describe("a calendar spec", () => {
  it("fills the defaults calq.yaml fills: no name, a 5-minute refresh, no readers", () => {
    expect(checkCalendarSpec({ id: "work", source: { kind: "file", path: "/data/work.ics" } })).toEqual({
      id: "work",
      name: "",
      source: { kind: "file", path: "/data/work.ics" },
      refreshMs: 300_000,
      readers: [],
      freeBusyReaders: [],
    });
  });

  it("keeps an http source's secret headers as references to variables, never values", () => {
    const spec = checkCalendarSpec({
      id: "team",
      source: {
        kind: "http",
        url: "https://calendar.example.com/team.ics",
        headers: [{ name: "Authorization", value: { env: "TEAM_AUTH" } }],
      },
      zone: "Asia/Ho_Chi_Minh",
      readers: ["an"],
      freeBusyReaders: ["binh"],
      shardKey: "an@example.com",
    });
    expect(spec.source).toEqual({
      kind: "http",
      url: "https://calendar.example.com/team.ics",
      headers: [{ name: "Authorization", value: { env: "TEAM_AUTH" } }],
    });
  });

  it("accepts a CalDAV collection with a credential named by reference and how it is sent", () => {
    const source = { kind: "caldav", collectionUrl: "https://dav.example.com/an/work/", credential: { env: "AN_DAV" }, scheme: "basic" };
    expect(checkCalendarSpec({ id: "dav", source }).source).toEqual(source);
  });

  it("refuses a CalDAV collection that does not say how its credential is sent, rather than guess", () => {
    const source = { kind: "caldav", collectionUrl: "https://dav.example.com/an/work/", credential: { env: "AN_DAV" } };
    expect(violationsOf(checkCalendarSpec, { id: "dav", source })).toEqual([
      { field: "source.scheme", description: "expected how the credential is sent: basic or bearer" },
    ]);
    expect(violationsOf(checkCalendarSpec, { id: "dav", source: { ...source, scheme: "digest" } })).toHaveLength(1);
  });

  it("names every field at fault at once", () => {
    const violations = violationsOf(checkCalendarSpec, {
      id: "bad id",
      source: { kind: "http", url: "ftp://example.com/a.ics" },
      zone: "EST",
      refreshMs: 10,
      readers: ["an", "an"],
      freeBusyReaders: ["an"],
      shardKey: "no spaces",
      colour: "red",
    });
    expect(fields(violations).sort()).toEqual(
      ["colour", "freeBusyReaders[0]", "id", "readers[1]", "refreshMs", "shardKey", "source.url", "zone"].sort(),
    );
    expect(violations.find((violation) => violation.field === "colour")?.description).toBe("unknown field");
  });

  it("refuses a URL carrying a password, and says to reference a secret", () => {
    const [violation] = violationsOf(checkCalendarSpec, { id: "a", source: { kind: "http", url: "https://an:pw@example.com/a.ics" } });
    expect(violation.field).toBe("source.url");
    expect(violation.description).toMatch(/secret/);
  });

  it("refuses the reserved id primary, a relative file path and an unknown source kind", () => {
    expect(fields(violationsOf(checkCalendarSpec, { id: "primary", source: { kind: "file", path: "work.ics" } }))).toEqual([
      "id",
      "source.path",
    ]);
    expect(fields(violationsOf(checkCalendarSpec, { id: "a", source: { kind: "webcal" } }))).toEqual(["source.kind"]);
  });

  it("refuses a header given twice in another case, and a secret reference that is not a variable name", () => {
    const violations = violationsOf(checkCalendarSpec, {
      id: "a",
      source: {
        kind: "http",
        url: "https://example.com/a.ics",
        headers: [
          { name: "Authorization", value: { env: "A" } },
          { name: "authorization", value: { env: "B" } },
          { name: "X-Key", value: { env: "1BAD" } },
        ],
      },
    });
    expect(fields(violations)).toEqual(["source.headers[1].name", "source.headers[2].value.env"]);
  });

  it("says in its message that nothing was applied", () => {
    expect(() => checkCalendarSpec({ id: "a" })).toThrow(/nothing was applied/);
  });
});

describe("a person spec", () => {
  it("fills a Monday week start and lower-cases e-mail addresses", () => {
    expect(
      checkPersonSpec({
        principalId: "an",
        primaryCalendar: "work",
        zone: "Europe/Berlin",
        workingHours: { days: ["FR", "MO"], start: "09:00", endExclusive: "17:30" },
        emails: ["An@Example.com"],
      }),
    ).toEqual({
      principalId: "an",
      primaryCalendar: "work",
      zone: "Europe/Berlin",
      workingHours: { days: ["MO", "FR"], start: "09:00", endExclusive: "17:30" },
      weekStart: "MO",
      emails: ["an@example.com"],
    });
  });

  it("refuses working hours that end before they start, a day twice and an address twice", () => {
    const violations = violationsOf(checkPersonSpec, {
      principalId: "an",
      workingHours: { days: ["MO", "MO"], start: "18:00", endExclusive: "09:00" },
      emails: ["an@example.com", "AN@example.com"],
      weekStart: "Monday",
    });
    expect(fields(violations)).toEqual(["workingHours.days[1]", "workingHours.endExclusive", "weekStart", "emails[1]"]);
  });

  it("lets a day's work end at 24:00", () => {
    expect(
      checkPersonSpec({ principalId: "an", workingHours: { days: ["SA"], start: "20:00", endExclusive: "24:00" } }).workingHours,
    ).toEqual({
      days: ["SA"],
      start: "20:00",
      endExclusive: "24:00",
    });
  });
});

describe("calq.yaml's calendars beside the registry's", () => {
  it("are told apart by id: the ids in both are named, sorted, each once", () => {
    expect(calendarIdsInBoth(["work", "team", "home"], [{ id: "team" }, { id: "an-work" }, { id: "home" }, { id: "team" }])).toEqual([
      "home",
      "team",
    ]);
    expect(calendarIdsInBoth(["work"], [{ id: "an-work" }])).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/calq-config.js";
import { ConfigError } from "../../src/config/config-model.js";
import { sha256Hex } from "../../src/config/secret.js";

const token = `sha256:${sha256Hex("secret")}`;

function base() {
  return {
    calendars: [{ id: "work", source: "work.ics", timezone: "Asia/Ho_Chi_Minh", readers: ["an"] }],
    principals: [{ id: "an", primary: "work", tokens: [token] }],
  };
}

function refusal(document: unknown): string {
  try {
    parseConfig(document, "/srv/calq", "calq.yaml", {});
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("calq.yaml", () => {
  it("resolves sources against the config's folder and applies search defaults", () => {
    const config = parseConfig(base(), "/srv/calq", "calq.yaml", {});
    expect(config.calendars[0]).toMatchObject({
      id: "work",
      source: { kind: "file", path: "/srv/calq/work.ics" },
      refreshMs: 5 * 60_000,
      name: "work",
      readers: ["an"],
    });
    expect(config.principals[0].tokenDigests).toEqual([sha256Hex("secret")]);
    expect(config.search).toEqual({ maxWindowDays: 366, cursorLifetimeMinutes: 15, cursorKeyEnv: [], workBudget: 500_000 });
  });

  it("reads search.work_budget as a count of units and refuses one that is not a positive integer", () => {
    expect(parseConfig({ ...base(), search: { work_budget: 250_000 } }, "/srv/calq", "calq.yaml", {}).search.workBudget).toBe(250_000);
    expect(refusal({ ...base(), search: { work_budget: 0 } })).toContain("search.work_budget: expected a positive integer");
  });

  it("refuses the budgets written in time that calq no longer reads, naming what replaced them", () => {
    expect(refusal({ ...base(), search: { cpu_budget: "1s" } })).toContain(
      "search.cpu_budget: no longer read; use search.work_budget, a count of units of work rather than a duration",
    );
    expect(refusal({ ...base(), feeds: { expansion_budget: "2s" } })).toContain(
      "feeds.expansion_budget: no longer read; use feeds.expansion_work, a count of rule dates rather than a duration",
    );
  });

  it("refuses tokens written in clear", () => {
    const document = base();
    document.principals[0].tokens = ["secret"];
    expect(refusal(document)).toContain("principals[0] (an).tokens[0]: write tokens as sha256:<64 hex digits>");
  });

  it("reads a token digest from the variable a tokens entry names, so digests can live in a Secret", () => {
    const document = { ...base(), principals: [{ id: "an", primary: "work", tokens: [{ env: "AN_TOKEN_DIGEST" }, token] }] };
    const config = parseConfig(document, "/srv/calq", "calq.yaml", { AN_TOKEN_DIGEST: `sha256:${sha256Hex("from a secret")}\n` });
    expect(config.principals[0].tokenDigests).toEqual([sha256Hex("from a secret"), sha256Hex("secret")]);
    expect(refusal(document)).toBe("calq.yaml: principals[0] (an).tokens[0]: environment variable AN_TOKEN_DIGEST is not set");
    const inClear = () => parseConfig(document, "/srv/calq", "calq.yaml", { AN_TOKEN_DIGEST: "the token itself" });
    expect(inClear).toThrow("principals[0] (an).tokens[0]: write tokens as sha256:<64 hex digits>");
    expect(inClear).not.toThrow("the token itself");
  });

  it("refuses a reader that is not a principal", () => {
    const document = base();
    document.calendars[0].readers = ["an", "mallory"];
    expect(refusal(document)).toContain('calendar work names unknown reader "mallory"');
  });

  it("reads free/busy readers beside readers, and refuses an unknown one or one who is both", () => {
    const config = parseConfig(
      {
        ...base(),
        calendars: [{ ...base().calendars[0], free_busy_readers: ["binh"] }],
        principals: [...base().principals, { id: "binh" }],
      },
      "/srv/calq",
      "calq.yaml",
      {},
    );
    expect(config.calendars[0].freeBusyReaders).toEqual(["binh"]);
    expect(refusal({ ...base(), calendars: [{ ...base().calendars[0], free_busy_readers: ["nobody"] }] })).toContain(
      'calendar work names unknown free/busy reader "nobody"',
    );
    expect(refusal({ ...base(), calendars: [{ ...base().calendars[0], free_busy_readers: ["an"] }] })).toContain(
      'lists "an" both as reader and as free/busy reader',
    );
  });

  it("reads a principal's working hours, week start and addresses, as the registry's people hold them", () => {
    const person = {
      ...base().principals[0],
      working_hours: { days: ["MO", "WE"], start: "08:30", end_exclusive: "24:00" },
      week_start: "SU",
      emails: ["An@Example.com"],
    };
    const [principal] = parseConfig({ ...base(), principals: [person] }, "/srv/calq", "calq.yaml", {}).principals;
    expect(principal).toMatchObject({
      workingHours: { days: [1, 3], startMinute: 510, endMinute: 1440 },
      weekStart: 7,
      emails: ["an@example.com"],
    });
    const weekdays = parseConfig(
      { ...base(), principals: [{ ...person, working_hours: { start: "09:00", end_exclusive: "17:00" } }] },
      "/srv/calq",
      "calq.yaml",
      {},
    );
    expect(weekdays.principals[0].workingHours?.days).toEqual([1, 2, 3, 4, 5]);
    expect(refusal({ ...base(), principals: [{ ...person, working_hours: { start: "17:00", end_exclusive: "09:00" } }] })).toContain(
      "working_hours: end_exclusive must come after start",
    );
    expect(refusal({ ...base(), principals: [{ ...person, working_hours: { start: "9am", end_exclusive: "17:00" } }] })).toContain(
      'working_hours.start: expected a local time "HH:MM"',
    );
    expect(refusal({ ...base(), principals: [{ ...person, week_start: "Monday" }] })).toContain("principals[0].week_start");
    expect(refusal({ ...base(), principals: [{ ...person, emails: ["an"] }] })).toContain('emails[0]: "an" is not an e-mail address');
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

  it("reads an http(s) source with a refresh interval and header secrets from the environment", () => {
    const document = base();
    Object.assign(document.calendars[0], {
      source: "https://calendar.example/feeds/team.ics",
      refresh: "90s",
      headers: { Authorization: { env: "TEAM_FEED_AUTH" } },
    });
    const config = parseConfig(document, "/srv/calq", "calq.yaml", { TEAM_FEED_AUTH: "Bearer s3cret" });
    const { source } = config.calendars[0];
    expect(source.kind).toBe("http");
    if (source.kind !== "http") return;
    expect(source.url.href).toBe("https://calendar.example/feeds/team.ics");
    expect(source.headers.get("Authorization")?.reveal()).toBe("Bearer s3cret");
    expect(config.calendars[0].refreshMs).toBe(90_000);
    expect(JSON.stringify(config)).not.toContain("s3cret");
  });

  it("refuses a header whose environment variable is not set, naming the variable only", () => {
    const document = base();
    Object.assign(document.calendars[0], {
      source: "https://calendar.example/team.ics",
      headers: { Authorization: { env: "MISSING_VAR" } },
    });
    expect(refusal(document)).toContain("calendars[0] (work).headers.Authorization: environment variable MISSING_VAR is not set");
  });

  it.each([
    [{ source: "ftp://calendar.example/team.ics" }, "only http and https URLs are read"],
    [{ headers: { Authorization: { env: "X" } } }, "only an http(s) source sends headers"],
    [{ refresh: "5" }, "refresh: expected a duration from 100ms to 480h"],
    [{ refresh: "50ms" }, "refresh: expected a duration from 100ms to 480h"],
    [{ refresh: "1000h" }, "refresh: expected a duration from 100ms to 480h"],
    [
      { source: "https://an:pa55@cloud.example/remote.php/dav/calendars/an/work?export" },
      "the URL holds a user name or password; put the credentials in headers",
    ],
  ])("refuses a bad calendar setting %j", (setting, message) => {
    const document = base();
    Object.assign(document.calendars[0], setting);
    expect(refusal(document)).toContain(message);
  });

  it.each([
    ["a line break", "Bearer top\nSECRET-line2"],
    ["a character above U+00FF", "Bearer tok\u20ac"],
    ["a trailing newline", "Bearer token\n"],
  ])("refuses a header secret with %s, naming the variable and never the value", (_case, value) => {
    const document = base();
    Object.assign(document.calendars[0], { source: "https://calendar.example/team.ics", headers: { Authorization: { env: "FEED_AUTH" } } });
    let message = "";
    try {
      parseConfig(document, "/srv/calq", "calq.yaml", { FEED_AUTH: value });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("environment variable FEED_AUTH is not a valid header value");
    expect(message).not.toContain("SECRET");
    expect(message).not.toContain("tok");
  });

  it("reads feed limits, keeping defaults for the ones not given", () => {
    const config = parseConfig(
      { ...base(), feeds: { max_bytes: 1_000_000, fetch_timeout: "10s", expansion_work: 50_000 } },
      "/srv/calq",
      "calq.yaml",
      {},
    );
    expect(config.feeds).toEqual({
      maxBytes: 1_000_000,
      fetchTimeoutMs: 10_000,
      maxComponents: 100_000,
      maxOccurrencesPerSeries: 20_000,
      maxOccurrencesPerFeed: 1_000_000,
      expansionWork: 50_000,
    });
  });

  it("refuses an unknown or non-positive feed limit", () => {
    expect(refusal({ ...base(), feeds: { max_size: 10 } })).toContain("calq.yaml: feeds.max_size: unknown key");
    expect(refusal({ ...base(), feeds: { max_components: 0 } })).toContain("feeds.max_components: expected a positive integer");
  });
});

describe("a CalDAV source in calq.yaml", () => {
  const withSource = (source: unknown, extra: Record<string, unknown> = {}) => ({
    ...base(),
    calendars: [{ id: "work", source, readers: ["an"], ...extra }],
  });

  it("reads the collection URL and takes its credentials from the variable named, never from the file", () => {
    const config = parseConfig(
      withSource({ caldav: "https://dav.example.com/cal/work/", credentials: { basic_env: "WORK_DAV" } }),
      "/srv/calq",
      "calq.yaml",
      { WORK_DAV: "an:s3cret" },
    );
    const source = config.calendars[0].source;
    expect(source.kind).toBe("caldav");
    if (source.kind !== "caldav") throw new Error("expected a CalDAV source");
    expect(source.url.href).toBe("https://dav.example.com/cal/work/");
    expect(source.credentials?.scheme).toBe("basic");
    expect(source.credentials?.secret.reveal()).toBe("an:s3cret");
    expect(JSON.stringify(source)).not.toContain("s3cret");
  });

  it("refuses two kinds of credentials, an unset variable, a Basic secret without a colon, a password in the URL, and headers", () => {
    const both = withSource({ caldav: "https://dav.example.com/c/", credentials: { basic_env: "A", bearer_env: "B" } });
    expect(refusal(both)).toContain("give exactly one of basic_env or bearer_env");
    expect(refusal(withSource({ caldav: "https://dav.example.com/c/", credentials: { bearer_env: "UNSET" } }))).toContain(
      "environment variable UNSET is not set",
    );
    expect(() =>
      parseConfig(withSource({ caldav: "https://dav.example.com/c/", credentials: { basic_env: "A" } }), "/srv/calq", "calq.yaml", {
        A: "no-colon",
      }),
    ).toThrow("must hold user:password");
    expect(refusal(withSource({ caldav: "https://an:pw@dav.example.com/c/" }))).toContain("holds a user name or password");
    expect(refusal(withSource({ caldav: "ftp://dav.example.com/c/" }))).toContain("only http and https URLs are read");
    expect(refusal(withSource({ caldav: "https://dav.example.com/c/" }, { headers: { Authorization: { env: "A" } } }))).toContain(
      "a CalDAV source takes credentials, not headers",
    );
    expect(refusal(withSource({ caldav: "https://dav.example.com/c/", password: "x" }))).toContain("unknown key");
  });
});

/**
 * CalendarAdminService over a real port with @grpc/grpc-js: who may call it,
 * what a status tells (and never tells), reloads with each outcome, and
 * imports that are either served whole or change nothing.
 */
import { lstatSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiagnosticSeverity, FeedFailure, ReloadOutcome, SourceKind } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { type FeedServer, startFeedServer, status, versioned } from "../support/feed-server.js";
import { feed } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, grpc } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const MAX_BYTES = 64 * 1024;

const calendarText = (summary: string, ...extra: string[][]) =>
  feed(
    ["X-WR-TIMEZONE:Asia/Ho_Chi_Minh"],
    ["UID:standup@calq.test", "DTSTART:20261002T020000Z", "DTEND:20261002T023000Z", `SUMMARY:${summary}`],
    ...extra,
  );

const withDiagnostic = calendarText("imported", [
  "UID:broken@calq.test",
  "DTSTART:20261002T050000Z",
  "DTEND:20261002T040000Z",
  "SUMMARY:ends first",
]);

let provider: FeedServer;
let served: TestServer;
let admin: CalqGrpcClient;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  provider = await startFeedServer(versioned(calendarText("remote v1"), "v1"));
  served = await startTestServer({
    calendars: {
      local: calendarText("local v1", ["UID:reversed@calq.test", "DTSTART:20261002T050000Z", "DTEND:20261002T040000Z"]),
      real: calendarText("real v1"),
      // A garbled property whose text must never reach the log.
      private: calendarText("private", [
        "UID:garbled@calq.test",
        "DTSTART:20261002T050000Z",
        'DESCRIPTION;X-P="unterminated:Confidential merger talks',
      ]),
    },
    config: {
      calendars: [
        { id: "local", source: "local.ics", readers: ["an"] },
        { id: "remote", source: `${provider.url}?key=url-secret-99`, readers: ["an"] },
        { id: "linked", source: "linked.ics", readers: ["an"] },
        { id: "dangling", source: "dangling.ics", readers: ["an"] },
        { id: "private", source: "private.ics", readers: ["an"] },
        { id: "unwritable", source: "no-such-folder/cal.ics", readers: ["an"] },
      ],
      principals: [
        { id: "an", primary: "local", tokens: ["token-an"] },
        { id: "auditor", tokens: ["token-auditor"], capabilities: ["calendar.read.any"] },
        { id: "ops", tokens: ["token-ops"], capabilities: ["calendar.admin"] },
      ],
      feeds: { max_bytes: MAX_BYTES },
    },
    log: (record) => logs.push(record),
    beforeStart: (dir) => {
      symlinkSync(join(dir, "real.ics"), join(dir, "linked.ics"));
      // A link to a file not written yet: a relative one, as an operator would make it.
      mkdirSync(join(dir, "store"));
      symlinkSync(join("store", "dangling-target.ics"), join(dir, "dangling.ics"));
    },
  });
  admin = new CalqGrpcClient(served.address, "token-ops");
});

afterAll(async () => {
  admin.close();
  await served.close();
  await provider.close();
});

const search = (calendarId: string) =>
  admin.searchEvents(
    { calendarId, start: "2026-10-02T00:00:00Z", endExclusive: "2026-10-03T00:00:00Z", timezone: "UTC", matchMode: MatchMode.OVERLAP },
    "token-an",
  );
const summaries = async (calendarId: string) => (await search(calendarId)).events.map((event) => event.summary);
const onDisk = () => readFileSync(join(served.dir, "local.ics"), "utf8");

describe("who may call the admin service", () => {
  it("refuses a caller without credentials, and one without calendar.admin even if it may read any calendar", async () => {
    expect((await failureOf(admin.getCalendarStatus("", null))).code).toBe(grpc.status.UNAUTHENTICATED);
    for (const token of ["token-an", "token-auditor"]) {
      const failure = await failureOf(admin.getCalendarStatus("", token));
      expect(failure.code).toBe(grpc.status.PERMISSION_DENIED);
      expect(failure.errorInfo?.reason).toBe("ADMIN_CAPABILITY_REQUIRED");
    }
  });

  it("audit-logs every admin call, allowed or not, with its outcome and correlation id", async () => {
    await admin.getCalendarStatus("local");
    await failureOf(admin.reloadCalendar("local", "token-an"));
    const audits = logs.filter((record) => record.kind === "audit" && record.msg === "admin call");
    expect(audits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ principal: "ops", method: "calq.v1.CalendarAdminService/GetCalendarStatus", code: "OK" }),
        expect.objectContaining({
          principal: "an",
          method: "calq.v1.CalendarAdminService/ReloadCalendar",
          code: "PERMISSION_DENIED",
          reason: "ADMIN_CAPABILITY_REQUIRED",
        }),
      ]),
    );
    expect(audits.every((record) => typeof record.correlation_id === "string")).toBe(true);
  });

  it("says CALENDAR_NOT_FOUND for an unknown id (an admin sees every calendar)", async () => {
    const failure = await failureOf(admin.reloadCalendar("nope"));
    expect(failure.code).toBe(grpc.status.NOT_FOUND);
    expect(failure.errorInfo?.reason).toBe("CALENDAR_NOT_FOUND");
  });
});

describe("GetCalendarStatus", () => {
  it("gives each calendar's counts, zone and diagnostics (component, line, reason)", async () => {
    const { calendars } = await admin.getCalendarStatus();
    expect(calendars.map((calendar) => calendar.calendarId)).toEqual(["dangling", "linked", "local", "private", "remote", "unwritable"]);
    const [, , local, , remote] = calendars;
    expect(local).toMatchObject({
      sourceKind: SourceKind.FILE,
      stale: false,
      eventCount: 1,
      occurrenceCount: 1,
      timezone: "Asia/Ho_Chi_Minh",
      timezoneSource: "feed",
      diagnosticCount: 1,
    });
    expect(local.snapshotId).not.toBe("");
    expect(local.lastSuccessTime).toBeDefined();
    expect(local.refreshInterval?.seconds).toBe(300n);
    expect(local.diagnostics).toHaveLength(1);
    expect(local.diagnostics[0]).toMatchObject({
      code: "END_BEFORE_START",
      uid: "reversed@calq.test",
      line: 12,
      severity: DiagnosticSeverity.ERROR,
    });
    expect(remote.sourceKind).toBe(SourceKind.HTTP);
  });

  it("never names a feed's URL or its secret", async () => {
    const response = await admin.getCalendarStatus();
    const text = JSON.stringify(response, (_key, value) => (typeof value === "bigint" ? String(value) : value));
    expect(text).not.toContain("url-secret-99");
    expect(text).not.toContain("127.0.0.1");
  });
});

describe("the server log", () => {
  it("names a diagnostic by code, UID and line, never with the feed's text", async () => {
    const diagnostics = logs.filter((record) => record.msg === "feed diagnostic" && record.calendar_id === "private");
    expect(diagnostics.map((record) => [record.code, record.severity, record.uid, record.line])).toEqual([
      ["UNREADABLE_LINE", "warning", "garbled@calq.test", 12],
    ]);
    // The load line counts them by severity: nothing was left out.
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: "calendar loaded", calendar_id: "private", diagnostic_errors: 0, diagnostic_warnings: 1 }),
    );
    expect(JSON.stringify(logs)).not.toContain("Confidential");
    // The admin API, for operators, does show what was wrong.
    const { calendars } = await admin.getCalendarStatus("private");
    expect(calendars[0].diagnostics.length).toBeGreaterThan(0);
  });
});

describe("ReloadCalendar", () => {
  it("reports loaded, unchanged and failed, with the failure class and upstream status", async () => {
    provider.answer(versioned(calendarText("remote v2"), "v2"));
    expect((await admin.reloadCalendar("remote")).outcome).toBe(ReloadOutcome.LOADED);
    expect(await summaries("remote")).toEqual(["remote v2"]);
    expect((await admin.reloadCalendar("remote")).outcome).toBe(ReloadOutcome.UNCHANGED);

    provider.answer(status(503, "maintenance page"));
    const failed = await admin.reloadCalendar("remote");
    expect(failed.outcome).toBe(ReloadOutcome.FAILED);
    expect(failed.status).toMatchObject({ stale: true, consecutiveFailures: 1 });
    expect(failed.status?.lastFailure).toMatchObject({ failure: FeedFailure.HTTP_STATUS, httpStatus: 503 });
    // Searches keep the last good data, marked stale.
    const during = await search("remote");
    expect(during.stale).toBe(true);
    expect(during.events.map((event) => event.summary)).toEqual(["remote v2"]);

    provider.answer(versioned(calendarText("remote v3"), "v3"));
    const recovered = await admin.reloadCalendar("remote");
    expect(recovered.outcome).toBe(ReloadOutcome.LOADED);
    expect(recovered.status?.lastFailure).toBeUndefined();
    expect(recovered.status?.stale).toBe(false);
  });
});

describe("ImportCalendar", () => {
  it("writes an accepted upload to disk and serves it from the moment the call returns", async () => {
    const text = calendarText("imported");
    const response = await admin.importCalendar({ calendarId: "local", ics: Buffer.from(text) });
    expect(response.status).toMatchObject({ calendarId: "local", eventCount: 1, diagnosticCount: 0 });
    expect(onDisk()).toBe(text);
    expect(await summaries("local")).toEqual(["imported"]);
  });

  it.each([
    ["HTML", "<html><body>Sign in</body></html>", { failure: "not_icalendar" }],
    ["a cut-off file", calendarText("cut").slice(0, -20), { failure: "truncated" }],
    ["more bytes than the feed limit", calendarText("big", [`DESCRIPTION:${"x".repeat(MAX_BYTES)}`]), { failure: "too_large" }],
    ["a file with diagnostics", withDiagnostic, { diagnostics: "1", first_code: "END_BEFORE_START" }],
  ])("refuses %s with FEED_REJECTED and changes nothing", async (_case, text, metadata) => {
    const before = { disk: onDisk(), snapshot: (await search("local")).snapshotId };
    const failure = await failureOf(admin.importCalendar({ calendarId: "local", ics: Buffer.from(text) }));
    expect(failure.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(failure.errorInfo).toMatchObject({ reason: "FEED_REJECTED", metadata });
    expect(failure.badRequest?.fieldViolations[0].field).toBe("ics");
    expect(onDisk()).toBe(before.disk);
    expect((await search("local")).snapshotId).toBe(before.snapshot);
  });

  it("imports bytes that are not UTF-8 with their warning, as a reload would read them: a warning loses nothing", async () => {
    const text = calendarText("café");
    const bytes = Buffer.from(text.replace("café", "caf\u00e9"), "latin1");
    const response = await admin.importCalendar({ calendarId: "local", ics: bytes });
    expect(response.status?.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["INVALID_UTF8"]);
    expect(await summaries("local")).toEqual(["caf\ufffd"]);
  });

  it("refuses an upload with an error diagnostic (an event left out) unless allow_diagnostics", async () => {
    const failure = await failureOf(admin.importCalendar({ calendarId: "local", ics: Buffer.from(withDiagnostic) }));
    expect(failure.errorInfo).toMatchObject({ reason: "FEED_REJECTED", metadata: { diagnostics: "1", first_code: "END_BEFORE_START" } });
  });

  it("imports a file with diagnostics when allow_diagnostics is set, and reports them", async () => {
    const response = await admin.importCalendar({ calendarId: "local", ics: Buffer.from(withDiagnostic), allowDiagnostics: true });
    expect(response.status?.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.uid])).toEqual([
      ["END_BEFORE_START", "broken@calq.test"],
    ]);
    expect(onDisk()).toBe(withDiagnostic);
    expect(await summaries("local")).toEqual(["imported"]);
  });

  it("writes through a symbolic link to the file it points to, leaving the link a link", async () => {
    await admin.importCalendar({ calendarId: "linked", ics: Buffer.from(calendarText("through the link")) });
    expect(lstatSync(join(served.dir, "linked.ics")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(served.dir, "real.ics"), "utf8")).toBe(calendarText("through the link"));
  });

  it("writes through a dangling symbolic link to the file it names, leaving the link a link", async () => {
    await admin.importCalendar({ calendarId: "dangling", ics: Buffer.from(calendarText("first write")) });
    expect(lstatSync(join(served.dir, "dangling.ics")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(served.dir, "store", "dangling-target.ics"), "utf8")).toBe(calendarText("first write"));
    expect(await summaries("dangling")).toEqual(["first write"]);
  });

  it("says FEED_NOT_WRITABLE, not INTERNAL, when the calendar's folder is missing", async () => {
    const failure = await failureOf(admin.importCalendar({ calendarId: "unwritable", ics: Buffer.from(calendarText("x")) }));
    expect(failure.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(failure.errorInfo).toMatchObject({ reason: "FEED_NOT_WRITABLE", metadata: { code: "ENOENT" } });
  });

  it("reads a feed-sized body only from a caller who brings credentials", async () => {
    const big = Buffer.from(calendarText("big", [`DESCRIPTION:${"x".repeat(80 * 1024)}`]));
    expect((await failureOf(admin.importCalendar({ calendarId: "local", ics: big }, null))).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect((await failureOf(admin.importCalendar({ calendarId: "local", ics: big }))).errorInfo?.reason).toBe("FEED_REJECTED");
  });

  it("refuses a URL-backed calendar: NOT_FILE_BACKED", async () => {
    const failure = await failureOf(admin.importCalendar({ calendarId: "remote", ics: Buffer.from(calendarText("x")) }));
    expect(failure.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(failure.errorInfo?.reason).toBe("NOT_FILE_BACKED");
  });

  it("keeps the read-only service's small request limit: a feed-sized search request is refused", async () => {
    const failure = await failureOf(
      admin.searchEvents({
        calendarId: "x".repeat(70 * 1024),
        start: "2026-10-02",
        endExclusive: "2026-10-03",
        timezone: "UTC",
        matchMode: MatchMode.OVERLAP,
      }),
    );
    expect(failure.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });
});

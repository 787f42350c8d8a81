/**
 * The calendar registry through CalendarAdminService, over a real port with
 * @grpc/grpc-js, against both engines: a created calendar is searched
 * without a restart; a change is validated whole and refused naming every
 * field as the contract does; creates are idempotent and updates guarded by
 * etags; readers and sources change while serving; a deleted calendar is
 * let go and its cursors are told so; people's settings apply to their
 * calls; every change is audit-logged with the admin's principal; and the
 * admin listing filters and pages. Changes reach the replica through its
 * follower, so each test waits for the condition, never for a time.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  CreateCalendarRequestSchema,
  LoadHealth,
  RegistryEngine as RegistryEngineMessage,
  RegistrySource,
  Weekday,
} from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { feed } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, grpc } from "../support/grpc-client.js";
import { REGISTRY_ENGINES } from "../support/registry-engines.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const WAIT = { timeout: 20_000, interval: 20 };

/** A feed with one event on 2026-10-02 (UTC times), summary as given. */
const dayFeed = (...summaries: string[]) =>
  feed(
    [],
    ...summaries.map((summary, i) => [
      `UID:${summary.replaceAll(" ", "-")}@calq.test`,
      `DTSTART:20261002T0${i + 1}0000Z`,
      `DTEND:20261002T0${i + 1}3000Z`,
      `SUMMARY:${summary}`,
    ]),
  );

const DAY = { start: "2026-10-02", endExclusive: "2026-10-03", timezone: "UTC", matchMode: MatchMode.OVERLAP };

describe.each(REGISTRY_ENGINES)("the registry's admin API, $name engine", (engine) => {
  const test = engine.gate === "skip" ? it.skip : it;
  let served: TestServer;
  let admin: CalqGrpcClient;
  let an: CalqGrpcClient;
  let binh: CalqGrpcClient;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    if (engine.gate === "skip") return;
    await engine.setUp();
    served = await startTestServer({
      calendars: {
        work: dayFeed("Work standup"),
        team: dayFeed("Team sync"),
        moved: dayFeed("Moved sync"),
        paged: dayFeed("One", "Two", "Three"),
      },
      config: {
        calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
        principals: [
          { id: "admin", tokens: ["token-admin"], capabilities: ["calendar.admin"] },
          { id: "an", primary: "work", timezone: "Asia/Ho_Chi_Minh", tokens: ["token-an"] },
          { id: "binh", tokens: ["token-binh"] },
        ],
      },
      log: (line) => logs.push(line),
      serve: { registry: await engine.fresh(), admin: { host: "127.0.0.1", port: 0 } },
    });
    admin = new CalqGrpcClient(served.address, "token-admin");
    an = new CalqGrpcClient(served.address, "token-an");
    binh = new CalqGrpcClient(served.address, "token-binh");
  }, 120_000);

  afterAll(async () => {
    for (const client of [admin, an, binh]) client?.close();
    await served?.close();
    await engine.tearDown();
  });

  const fileCalendar = (id: string, file: string, readers: string[], extra: Record<string, unknown> = {}) => ({
    id,
    source: { kind: { case: "file" as const, value: { path: join(served.dir, file) } } },
    readers,
    ...extra,
  });

  /** The summaries a caller finds on the calendar that day, or the reason it is refused with. */
  async function summaries(client: CalqGrpcClient, calendarId: string): Promise<string[] | string> {
    try {
      const response = await client.searchEvents({ ...DAY, calendarId });
      return response.events.map((event) => event.summary);
    } catch (error) {
      return (await failureOf(Promise.reject(error))).errorInfo?.reason ?? "no reason";
    }
  }

  test("a created calendar is searched without a restart, and the same create sent again makes no second calendar", async () => {
    const first = await admin.createCalendar({ calendar: fileCalendar("team", "team.ics", ["an"], { displayName: "Team" }) });
    expect(first.created).toBe(true);
    expect(first.calendar).toMatchObject({ spec: { id: "team", displayName: "Team", readers: ["an"] }, createdBy: "admin" });
    await vi.waitFor(async () => expect(await summaries(an, "team")).toEqual(["Team sync"]), WAIT);

    const again = await admin.createCalendar({ calendar: fileCalendar("team", "team.ics", ["an"], { displayName: "Team" }) });
    expect(again.created).toBe(false);
    expect(again.calendar?.etag).toBe(first.calendar?.etag);
    const listed = await admin.listRegisteredCalendars({ idPrefix: "team" });
    expect(listed.calendars.map((calendar) => calendar.spec?.id)).toEqual(["team"]);
    expect(listed.calendars[0].loadHealth).toBe(LoadHealth.HEALTHY);
  });

  test("a spec with several faults is refused whole, naming each field as the contract names it", async () => {
    const failure = await failureOf(
      admin.createCalendar({
        calendar: {
          id: "bad id",
          timezone: "Mars/Olympus",
          source: {
            kind: { case: "http", value: { url: "ftp://calendar.example.com/x.ics", headers: [{ name: "Authorization", env: "1BAD" }] } },
          },
          readers: ["an", "an"],
        },
      }),
    );
    expect(failure.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(failure.errorInfo?.reason).toBe("INVALID_SPEC");
    expect(failure.badRequest?.fieldViolations.map((violation) => violation.field).sort()).toEqual([
      "calendar.id",
      "calendar.readers[1]",
      "calendar.source.http.headers[0].env",
      "calendar.source.http.url",
      "calendar.timezone",
    ]);
    expect((await admin.listRegisteredCalendars({ idPrefix: "bad" })).calendars).toEqual([]);
  });

  test("a field the contract does not define is refused with the spec's own faults, and nothing is created", async () => {
    const request = create(CreateCalendarRequestSchema, { calendar: fileCalendar("extra", "team.ics", ["an"]) });
    // Field 99, a varint of 1, as a newer client would send it: this server's contract does not know it.
    request.calendar!.$unknown = [{ no: 99, wireType: WireType.Varint, data: new Uint8Array([1]) }];
    const failure = await failureOf(admin.createCalendar(request));
    expect(failure.errorInfo?.reason).toBe("INVALID_SPEC");
    expect(failure.badRequest?.fieldViolations.map((violation) => violation.field)).toEqual(["request.calendar.#99"]);
    expect((await admin.listRegisteredCalendars({ idPrefix: "extra" })).calendars).toEqual([]);
  });

  test("an id calq.yaml declares is refused: an id names one calendar", async () => {
    const failure = await failureOf(admin.createCalendar({ calendar: fileCalendar("work", "team.ics", ["an"]) }));
    expect(failure.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(failure.errorInfo?.reason).toBe("CALENDAR_ALREADY_EXISTS");
    const deleted = await failureOf(admin.deleteCalendar({ calendarId: "work" }));
    expect(deleted.errorInfo).toMatchObject({ reason: "CALENDAR_NOT_FOUND", metadata: { declared_in: "calq.yaml" } });
  });

  test("an update based on an old etag is refused, and the other admin's change stands", async () => {
    const { calendar } = await admin.createCalendar({ calendar: fileCalendar("shared", "team.ics", ["an"]) });
    const theirs = await admin.updateCalendar({
      calendar: fileCalendar("shared", "team.ics", ["an"], { displayName: "Theirs" }),
      etag: calendar!.etag,
    });
    const failure = await failureOf(
      admin.updateCalendar({ calendar: fileCalendar("shared", "team.ics", ["an"], { displayName: "Mine" }), etag: calendar!.etag }),
    );
    expect(failure.code).toBe(grpc.status.ABORTED);
    expect(failure.errorInfo).toMatchObject({ reason: "ETAG_MISMATCH", metadata: { etag_sent: calendar!.etag } });
    const [stored] = (await admin.listRegisteredCalendars({ idPrefix: "shared" })).calendars;
    expect(stored.spec?.displayName).toBe("Theirs");
    expect(stored.etag).toBe(theirs.calendar?.etag);
    const missing = await failureOf(admin.updateCalendar({ calendar: fileCalendar("shared", "team.ics", ["an"]) }));
    expect(missing.badRequest?.fieldViolations.map((violation) => violation.field)).toEqual(["etag"]);
  });

  test("changed readers change who may read at once, and a changed source is read afresh", async () => {
    const { calendar } = await admin.createCalendar({ calendar: fileCalendar("rotating", "team.ics", ["an"]) });
    await vi.waitFor(async () => expect(await summaries(an, "rotating")).toEqual(["Team sync"]), WAIT);
    expect(await summaries(binh, "rotating")).toBe("CALENDAR_NOT_ACCESSIBLE");

    const { calendar: handed } = await admin.updateCalendar({
      calendar: fileCalendar("rotating", "team.ics", ["binh"]),
      etag: calendar!.etag,
    });
    await vi.waitFor(async () => expect(await summaries(binh, "rotating")).toEqual(["Team sync"]), WAIT);
    expect(await summaries(an, "rotating")).toBe("CALENDAR_NOT_ACCESSIBLE");

    await admin.updateCalendar({ calendar: fileCalendar("rotating", "moved.ics", ["binh"]), etag: handed!.etag });
    await vi.waitFor(async () => expect(await summaries(binh, "rotating")).toEqual(["Moved sync"]), WAIT);
  });

  test("a deleted calendar is no longer served, and its cursor is refused CALENDAR_REMOVED, to its caller only", async () => {
    await admin.createCalendar({ calendar: fileCalendar("paged", "paged.ics", ["an"]) });
    await vi.waitFor(async () => expect(await summaries(an, "paged")).toEqual(["One", "Two", "Three"]), WAIT);
    const first = await an.searchEvents({ ...DAY, calendarId: "paged", limit: 1 });
    expect(first.nextCursor).not.toBe("");
    const before = served.server.store.view("paged")?.snapshot;
    expect(before).toBeDefined();

    const deleted = await admin.deleteCalendar({ calendarId: "paged" });
    expect(deleted.calendarId).toBe("paged");
    await vi.waitFor(() => expect(served.server.store.view("paged")).toBeUndefined(), WAIT);
    // Its snapshots are let go: the store holds none of them, current or kept for cursors.
    expect(served.server.store.snapshot("paged", before!.id)).toBeUndefined();
    expect(await summaries(an, "paged")).toBe("CALENDAR_NOT_ACCESSIBLE");

    const removed = await failureOf(an.searchEvents({ ...DAY, calendarId: "paged", limit: 1, cursor: first.nextCursor }));
    expect(removed.code).toBe(grpc.status.NOT_FOUND);
    expect(removed.errorInfo).toMatchObject({ reason: "CALENDAR_REMOVED", metadata: { calendar_id: "paged" } });
    const stranger = await failureOf(binh.searchEvents({ ...DAY, calendarId: "paged", limit: 1, cursor: first.nextCursor }));
    expect(stranger.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
    const unknown = await failureOf(binh.searchEvents({ ...DAY, calendarId: "never-was" }));
    expect(stranger.detailsBin).toEqual(unknown.detailsBin);
  });

  test("a person's registry settings apply to their calls over calq.yaml's", async () => {
    await admin.createCalendar({ calendar: fileCalendar("an-team", "team.ics", ["an"]) });
    const { person } = await admin.setPerson({
      person: {
        principalId: "an",
        primaryCalendarId: "an-team",
        timezone: "Europe/Berlin",
        workingHours: { days: [Weekday.MONDAY, Weekday.FRIDAY], start: "09:00", endExclusive: "17:00" },
        emails: ["An@Example.com"],
      },
    });
    expect(person).toMatchObject({
      spec: { principalId: "an", emails: ["an@example.com"], weekStart: Weekday.MONDAY },
      updatedBy: "admin",
    });
    await vi.waitFor(
      async () => expect(await an.getCallerContext()).toMatchObject({ primaryCalendarId: "an-team", timezone: "Europe/Berlin" }),
      WAIT,
    );
    await vi.waitFor(async () => expect(await summaries(an, "primary")).toEqual(["Team sync"]), WAIT);

    const stale = await failureOf(admin.setPerson({ person: { principalId: "an" }, etag: "0000000000000000" }));
    expect(stale.errorInfo?.reason).toBe("ETAG_MISMATCH");
    const none = await failureOf(admin.setPerson({ person: { principalId: "nobody" }, etag: "0000000000000000" }));
    expect(none.errorInfo?.reason).toBe("PERSON_NOT_FOUND");
    const invalid = await failureOf(
      admin.setPerson({ person: { principalId: "an", workingHours: { days: [], start: "18:00", endExclusive: "09:00" } } }),
    );
    expect(invalid.badRequest?.fieldViolations.map((violation) => violation.field).sort()).toEqual([
      "person.working_hours.days",
      "person.working_hours.end_exclusive",
    ]);
  });

  test("registry changes need calendar.admin, and each is audit-logged with the admin's principal", async () => {
    const refused = await failureOf(an.createCalendar({ calendar: fileCalendar("mine", "team.ics", ["an"]) }));
    expect(refused.errorInfo?.reason).toBe("ADMIN_CAPABILITY_REQUIRED");
    const { calendar } = await admin.createCalendar({ calendar: fileCalendar("audited", "team.ics", ["an"]) });
    await admin.deleteCalendar({ calendarId: "audited", etag: calendar!.etag });
    const audits = logs.filter((line) => line.msg === "registry change" && line.subject === "audited");
    expect(audits).toEqual([
      expect.objectContaining({
        kind: "audit",
        action: "calendar.create",
        principal: "admin",
        change_number: Number(calendar!.changeNumber),
      }),
      expect.objectContaining({ kind: "audit", action: "calendar.delete", principal: "admin" }),
    ]);
  });

  test("status and metrics say where the replica's registry calendars come from and how far it has applied changes", async () => {
    const { calendar } = await admin.createCalendar({ calendar: fileCalendar("counted", "team.ics", ["an"]) });
    await vi.waitFor(async () => {
      const { registry } = await admin.getCalendarStatus();
      expect(registry).toMatchObject({
        engine: engine.name === "embedded" ? RegistryEngineMessage.EMBEDDED : RegistryEngineMessage.POSTGRESQL,
        source: RegistrySource.REGISTRY,
        connected: true,
        problem: "",
      });
      expect(registry!.changeNumber).toBeGreaterThanOrEqual(calendar!.changeNumber);
    }, WAIT);
    const metrics = await (await fetch(`http://127.0.0.1:${served.server.adminPort}/metrics`)).text();
    expect(metrics).toMatch(/^calq_registry_local_copy 0$/m);
    expect(metrics).toMatch(/^calq_registry_connected 1$/m);
    expect(Number(/^calq_registry_change_number (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(Number(calendar!.changeNumber));
  });

  test("the listing filters by id prefix, reader and load health, and pages with tokens bound to its filters", async () => {
    writeFileSync(join(served.dir, "list-b.ics"), dayFeed("B"));
    for (const [id, file, readers] of [
      ["list-a", "team.ics", ["an"]],
      ["list-b", "list-b.ics", ["binh"]],
      ["list-c", "no-such-file.ics", ["an"]],
    ] as const) {
      await admin.createCalendar({ calendar: fileCalendar(id, file, [...readers]) });
    }
    await vi.waitFor(async () => expect(await summaries(an, "list-a")).toEqual(["Team sync"]), WAIT);
    await vi.waitFor(async () => expect(await summaries(binh, "list-b")).toEqual(["B"]), WAIT);
    await vi.waitFor(() => expect(served.server.store.view("list-c")?.status.lastFailure).toBeDefined(), WAIT);

    const byReader = await admin.listRegisteredCalendars({ idPrefix: "list-", reader: "an" });
    expect(byReader.calendars.map((calendar) => calendar.spec?.id)).toEqual(["list-a", "list-c"]);
    const unloaded = await admin.listRegisteredCalendars({ idPrefix: "list-", loadHealth: LoadHealth.UNLOADED });
    expect(unloaded.calendars.map((calendar) => calendar.spec?.id)).toEqual(["list-c"]);

    const first = await admin.listRegisteredCalendars({ idPrefix: "list-", pageSize: 2 });
    expect(first.calendars.map((calendar) => calendar.spec?.id)).toEqual(["list-a", "list-b"]);
    const second = await admin.listRegisteredCalendars({ idPrefix: "list-", pageSize: 2, pageToken: first.nextPageToken });
    expect(second.calendars.map((calendar) => calendar.spec?.id)).toEqual(["list-c"]);
    expect(second.nextPageToken).toBe("");
    const otherFilters = await failureOf(
      admin.listRegisteredCalendars({ idPrefix: "list-", reader: "an", pageToken: first.nextPageToken }),
    );
    expect(otherFilters.errorInfo?.reason).toBe("INVALID_PAGE");
    const tooLarge = await failureOf(admin.listRegisteredCalendars({ pageSize: 1001 }));
    expect(tooLarge.errorInfo).toMatchObject({ reason: "INVALID_PAGE", metadata: { max_page_size: "1000" } });
  });
});

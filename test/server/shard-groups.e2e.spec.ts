/**
 * One calq.yaml split into two shard groups, g1 and g2, each served by its
 * own server: a replica answers only for its group's calendars, refuses the
 * others with the group and the headers that route there, refuses a request
 * whose calendars span both groups on every replica, and still says nothing
 * about a calendar the caller may not read. ListCalendars, answered from the
 * whole calq.yaml, gives each calendar's group and shard key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TentativePolicy } from "../../gen/calq/v1/calendar_service_pb.js";
import { rendezvousGroup } from "../../src/config/shard-map.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, grpc } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const servers: TestServer[] = [];
let g1: CalqGrpcClient;
let g2: CalqGrpcClient;
let g1Admin: CalqGrpcClient;

const meeting = (uid: string) => ics(...vevent(`UID:${uid}`, "DTSTART:20261002T020000Z", "DURATION:PT1H", `SUMMARY:${uid}`));

beforeAll(async () => {
  // The ids and keys are chosen so the hash places them: work and team in g1, binh's calendars in g2.
  expect(["work", "team", "user-binh"].map((key) => rendezvousGroup(key, ["g1", "g2"]))).toEqual(["g1", "g1", "g2"]);
  const options = {
    calendars: { work: meeting("work"), team: meeting("team"), home: meeting("home"), secret: meeting("secret") },
    config: {
      shards: { groups: ["g1", "g2"] },
      calendars: [
        { id: "work", source: "work.ics", readers: ["an"] },
        { id: "team", source: "team.ics", readers: ["an"] },
        { id: "home", source: "home.ics", readers: ["an", "binh"], shard_key: "user-binh" },
        { id: "secret", source: "secret.ics", readers: ["binh"], shard_key: "user-binh" },
      ],
      principals: [
        { id: "an", primary: "work", tokens: ["token-an"] },
        { id: "binh", primary: "home", tokens: ["token-binh"] },
        { id: "ops", tokens: ["token-ops"], capabilities: ["calendar.admin"] },
      ],
    },
  };
  for (const shardGroup of ["g1", "g2"]) servers.push(await startTestServer({ ...options, serve: { shardGroup } }));
  g1 = new CalqGrpcClient(servers[0].address, "token-an");
  g2 = new CalqGrpcClient(servers[1].address, "token-an");
  g1Admin = new CalqGrpcClient(servers[0].address, "token-ops");
});

afterAll(async () => {
  for (const client of [g1, g2, g1Admin]) client?.close();
  await Promise.all(servers.map((server) => server.close()));
});

const search = (calendarId: string) => ({
  calendarId,
  start: "2026-10-02T00:00:00Z",
  endExclusive: "2026-10-03T00:00:00Z",
  timezone: "UTC",
  matchMode: 1,
});
const window = (calendarIds: string[]) => ({ calendarIds, start: "2026-10-02", endExclusive: "2026-10-03", timezone: "UTC" });

describe("a replica of one shard group", () => {
  it("loads only its group's calendars", async () => {
    const status = await g1Admin.getCalendarStatus();
    expect(status.calendars.map((calendar) => calendar.calendarId)).toEqual(["team", "work"]);
  });

  it("answers for a calendar of its group, and refuses one of the other group naming that group and the headers to send", async () => {
    expect((await g1.searchEvents(search("work"))).events.map((event) => event.summary)).toEqual(["work"]);
    expect((await g2.searchEvents(search("home"))).events.map((event) => event.summary)).toEqual(["home"]);

    const failure = await failureOf(g1.searchEvents(search("home")));
    expect(failure.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(failure.errorInfo?.reason).toBe("CALENDAR_IN_OTHER_SHARD_GROUP");
    expect(failure.errorInfo?.metadata).toEqual({
      shard_group: "g2",
      shard_key: "user-binh",
      group_header: "x-calq-shard-group",
      key_header: "x-calq-shard-key",
    });
    // grpc-js leaves the percent-encoding of grpc-message as connect wrote it.
    expect(decodeURIComponent(failure.message)).toContain("send the call again with the header x-calq-shard-group: g2");
  });

  it('resolves "primary" before it routes: binh\'s primary lives in g2', async () => {
    const failure = await failureOf(g1.searchEvents(search("primary"), "token-binh"));
    expect(failure.errorInfo?.metadata.shard_group).toBe("g2");
  });

  it("gives a calendar the caller may not read in another group the very refusal of an unknown calendar", async () => {
    const secret = await failureOf(g1.searchEvents(search("secret")));
    const unknown = await failureOf(g1.searchEvents(search("no-such-calendar")));
    expect(secret.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
    expect(secret.message).toBe(unknown.message);
    expect(secret.detailsBin).toEqual(unknown.detailsBin);
    // Also inside a free/busy request that would span groups: access is checked first.
    const mixed = await failureOf(g1.queryFreeBusy(window(["work", "secret"])));
    expect(mixed.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
  });

  it("refuses free/busy and free slots over calendars of both groups on every replica, listing each calendar's group", async () => {
    for (const client of [g1, g2]) {
      const failure = await failureOf(client.queryFreeBusy(window(["work", "home"])));
      expect(failure.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(failure.errorInfo?.reason).toBe("CALENDARS_SPAN_SHARD_GROUPS");
      expect(failure.errorInfo?.metadata).toEqual({ shard_groups: "g1,g2", calendar_groups: "work=g1,home=g2" });
    }
    const slots = await failureOf(g2.findFreeSlots({ ...window(["team", "home"]), durationMinutes: 30, tentative: TentativePolicy.BUSY }));
    expect(slots.errorInfo?.reason).toBe("CALENDARS_SPAN_SHARD_GROUPS");
  });

  it("answers free/busy over several calendars of its own group, and sends one of the other group there", async () => {
    expect((await g1.queryFreeBusy(window(["work", "team"]))).calendars).toHaveLength(2);
    const failure = await failureOf(g2.queryFreeBusy(window(["work", "team"])));
    expect(failure.errorInfo?.reason).toBe("CALENDAR_IN_OTHER_SHARD_GROUP");
    expect(failure.errorInfo?.metadata.shard_group).toBe("g1");
  });

  it("searches across calendars of its own group, and refuses a search across both groups or one held elsewhere, as free/busy does", async () => {
    const across = (calendarIds: string[]) => ({ ...search(""), calendarIds });
    const both = await g1.searchEventsAcrossCalendars(across(["work", "team"]));
    expect(both.events.map((event) => `${event.calendarId} ${event.summary}`)).toEqual(["team team", "work work"]);
    for (const client of [g1, g2]) {
      const failure = await failureOf(client.searchEventsAcrossCalendars(across(["work", "home"])));
      expect(failure.errorInfo?.reason).toBe("CALENDARS_SPAN_SHARD_GROUPS");
    }
    const elsewhere = await failureOf(g2.searchEventsAcrossCalendars(across(["work", "team"])));
    expect(elsewhere.errorInfo?.metadata.shard_group).toBe("g1");
  });

  it("finds one event only on its group's replicas, and sends the others there", async () => {
    const [work] = (await g1.searchEvents(search("work"))).events;
    expect((await g1.getEvent({ calendarId: "work", eventId: work.eventId })).event?.summary).toBe("work");
    const elsewhere = await failureOf(g2.getEvent({ calendarId: "work", eventId: work.eventId }));
    expect(elsewhere.errorInfo?.reason).toBe("CALENDAR_IN_OTHER_SHARD_GROUP");
  });

  it("lists every calendar the caller may read with its group and key; the data's age only where it is loaded", async () => {
    const listed = await g2.listCalendars();
    expect(listed.calendars.map(({ id, shardGroup, shardKey }) => ({ id, shardGroup, shardKey }))).toEqual([
      { id: "home", shardGroup: "g2", shardKey: "user-binh" },
      { id: "team", shardGroup: "g1", shardKey: "team" },
      { id: "work", shardGroup: "g1", shardKey: "work" },
    ]);
    expect(listed.calendars.map((calendar) => calendar.dataAsOf !== undefined)).toEqual([true, false, false]);
  });

  it("sends an admin to the other group for its calendars, and keeps CALENDAR_NOT_FOUND for unknown ids", async () => {
    const elsewhere = await failureOf(g1Admin.reloadCalendar("home"));
    expect(elsewhere.errorInfo?.reason).toBe("CALENDAR_IN_OTHER_SHARD_GROUP");
    expect(elsewhere.errorInfo?.metadata.shard_group).toBe("g2");
    expect((await failureOf(g1Admin.reloadCalendar("no-such-calendar"))).errorInfo?.reason).toBe("CALENDAR_NOT_FOUND");
  });
});

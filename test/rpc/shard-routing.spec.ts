/**
 * The client's shard routing, against an in-memory CalendarService whose
 * "balancer" answers only calls that carry the right group header: the
 * first call for a calendar of another group is sent once more with the
 * headers its refusal names, later calls go straight there, ListCalendars
 * teaches every calendar's route, routes are learnt per caller, and a
 * refusal that repeats is returned rather than looped on.
 */
import { create } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  CalendarInfoSchema,
  CalendarService,
  ListCalendarsResponseSchema,
  QueryFreeBusyResponseSchema,
  SearchEventsResponseSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqError } from "../../src/calq-error.js";
import { shardRouting } from "../../src/rpc/shard-routing.js";
import { toConnectError } from "../../src/server/errors.js";

/** Where each calendar lives; "primary" is an's "home" for token-an and binh's "work" for token-binh. */
const GROUPS: Record<string, { group: string; key: string }> = {
  home: { group: "g2", key: "user-an" },
  work: { group: "g1", key: "work" },
};

interface Seen {
  readonly calendarIds: string[];
  readonly group: string | null;
  readonly key: string | null;
}

/** A client whose calls reach a replica of the group their header names (g1 without one). */
function setup(balancerIgnoresHeaders = false): { client: Client<typeof CalendarService>; seen: Seen[] } {
  const seen: Seen[] = [];
  const answer = (calendarIds: string[], header: Headers) => {
    const group = header.get("x-calq-shard-group");
    seen.push({ calendarIds, group, key: header.get("x-calq-shard-key") });
    const ids = calendarIds.map((id) => (id === "primary" ? (header.get("authorization") === "Bearer token-an" ? "home" : "work") : id));
    const wanted = GROUPS[ids[0]];
    const servedBy = balancerIgnoresHeaders ? "g1" : (group ?? "g1");
    if (wanted.group !== servedBy) {
      throw toConnectError(
        new CalqError("CALENDAR_IN_OTHER_SHARD_GROUP", "another group", undefined, {
          shard_group: wanted.group,
          shard_key: wanted.key,
          group_header: "x-calq-shard-group",
          key_header: "x-calq-shard-key",
        }),
      );
    }
  };
  const transport = createRouterTransport(
    (router) =>
      router.service(CalendarService, {
        searchEvents(request, context) {
          answer([request.calendarId], context.requestHeader);
          return create(SearchEventsResponseSchema, { snapshotId: request.calendarId });
        },
        queryFreeBusy(request, context) {
          answer(request.calendarIds, context.requestHeader);
          return create(QueryFreeBusyResponseSchema, { timezone: "UTC" });
        },
        listCalendars(_request, context) {
          seen.push({ calendarIds: [], group: context.requestHeader.get("x-calq-shard-group"), key: null });
          return create(ListCalendarsResponseSchema, {
            calendars: [
              create(CalendarInfoSchema, { id: "home", primary: true, shardGroup: "g2", shardKey: "user-an" }),
              create(CalendarInfoSchema, { id: "work", shardGroup: "g1", shardKey: "work" }),
            ],
          });
        },
        getCallerContext() {
          throw new ConnectError("unused", Code.Unimplemented);
        },
        findFreeSlots() {
          throw new ConnectError("unused", Code.Unimplemented);
        },
      }),
    { transport: { interceptors: [shardRouting()] } },
  );
  return { client: createClient(CalendarService, transport), seen };
}

const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe("shard routing in the client", () => {
  it("sends a refused call once more with the headers the refusal names, and later calls straight there", async () => {
    const { client, seen } = setup();
    expect((await client.searchEvents({ calendarId: "home" }, as("token-an"))).snapshotId).toBe("home");
    await client.searchEvents({ calendarId: "home", cursor: "page-2" }, as("token-an"));
    expect(seen).toEqual([
      { calendarIds: ["home"], group: null, key: null },
      { calendarIds: ["home"], group: "g2", key: "user-an" },
      { calendarIds: ["home"], group: "g2", key: "user-an" },
    ]);
  });

  it("learns every calendar's route from ListCalendars, the caller's primary included", async () => {
    const { client, seen } = setup();
    await client.listCalendars({}, as("token-an"));
    await client.searchEvents({ calendarId: "home" }, as("token-an"));
    await client.searchEvents({ calendarId: "primary" }, as("token-an"));
    await client.queryFreeBusy({ calendarIds: ["work"] }, as("token-an"));
    expect(seen.slice(1).map(({ group }) => group)).toEqual(["g2", "g2", "g1"]);
  });

  it("remembers \"primary\" per caller: one caller's primary does not route another's", async () => {
    const { client, seen } = setup();
    await client.searchEvents({ calendarId: "primary" }, as("token-an"));
    await client.searchEvents({ calendarId: "primary" }, as("token-binh"));
    expect(seen.map(({ group }) => group)).toEqual([null, "g2", null]);
  });

  it("never routes one caller's call by what another caller's answers taught it", async () => {
    const { client, seen } = setup();
    await client.searchEvents({ calendarId: "home" }, as("token-an"));
    await client.searchEvents({ calendarId: "home" }, as("token-binh"));
    // binh's call goes where any unknown calendar would: its group is learnt only from binh's own answers.
    expect(seen.map(({ group }) => group)).toEqual([null, "g2", null, "g2"]);
  });

  it("routes a call over several calendars of one group, and leaves calendars of several groups to the server's refusal", async () => {
    const { client, seen } = setup();
    await client.listCalendars({}, as("token-an"));
    await client.queryFreeBusy({ calendarIds: ["home", "primary"] }, as("token-an"));
    await client.queryFreeBusy({ calendarIds: ["work", "home"] }, as("token-an")).catch(() => undefined);
    expect(seen.slice(1, 3)).toEqual([
      { calendarIds: ["home", "primary"], group: "g2", key: "user-an" },
      { calendarIds: ["work", "home"], group: null, key: null },
    ]);
  });

  it("returns a second refusal as it is: a balancer that ignores the header is an error, not a loop", async () => {
    const { client, seen } = setup(true);
    const failure = await client.searchEvents({ calendarId: "home" }, as("token-an")).catch((error: unknown) => ConnectError.from(error));
    expect(failure).toBeInstanceOf(ConnectError);
    expect((failure as ConnectError).code).toBe(Code.FailedPrecondition);
    expect(seen).toHaveLength(2);
  });

  it("sets no header where the service has no groups, and leaves other refusals alone", async () => {
    const { client, seen } = setup();
    await client.searchEvents({ calendarId: "work" }, as("token-an"));
    await client.searchEvents({ calendarId: "work" }, as("token-an"));
    expect(seen.map(({ group }) => group)).toEqual([null, null]);
    const failure = await client.getCallerContext({}, as("token-an")).catch((error: unknown) => ConnectError.from(error));
    expect((failure as ConnectError).code).toBe(Code.Unimplemented);
  });
});

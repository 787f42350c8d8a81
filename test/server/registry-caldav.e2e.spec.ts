/**
 * A CalDAV calendar created in the registry while serving, read from a real
 * Radicale: the admin names the collection, the variable holding the
 * credential on the replicas and how it is sent (never the secret), and
 * the calendar is searchable without a restart. A spec that does not say
 * how the credential is sent is refused whole, naming the field.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { CalDavCredentialScheme } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { eventResource, type RunningRadicale, startRadicale } from "../support/radicale.js";
import { temporaryFolder } from "../support/registry-engines.js";
import { describeWith } from "../support/system-program.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

const WEEK = { start: "2026-11-30", endExclusive: "2026-12-07", timezone: "UTC", matchMode: MatchMode.OVERLAP, limit: 20 };

describeWith(["radicale"], "a registry calendar read from a CalDAV collection", () => {
  let radicale: RunningRadicale;
  let served: TestServer;
  let admin: CalqGrpcClient;
  let an: CalqGrpcClient;

  beforeAll(async () => {
    radicale = await startRadicale();
    await radicale.makeCalendar("work");
    await radicale.put("work", "standup.ics", eventResource("standup", "Stand-up", "20261201T020000Z"));
    served = await startTestServer({
      calendars: {},
      config: {
        calendars: [],
        principals: [
          { id: "admin", tokens: ["token-admin"], capabilities: ["calendar.admin"] },
          { id: "an", tokens: ["token-an"] },
        ],
      },
      serve: {
        registry: (() => {
          const folder = temporaryFolder();
          return { settings: { engine: "embedded", folder }, folder };
        })(),
        env: { AN_CALDAV: `${radicale.user}:${radicale.password}` },
      },
    });
    admin = new CalqGrpcClient(served.address, "token-admin");
    an = new CalqGrpcClient(served.address, "token-an");
  }, 120_000);

  afterAll(async () => {
    for (const client of [admin, an]) client?.close();
    await served?.close();
    await radicale?.stop();
  });

  const caldav = (credentialScheme: CalDavCredentialScheme) => ({
    kind: {
      case: "caldav" as const,
      value: { collectionUrl: radicale.calendarUrl("work").href, credentialEnv: "AN_CALDAV", credentialScheme },
    },
  });

  it("is refused whole when it does not say how the credential is sent", async () => {
    const refusal = await failureOf(
      admin.createCalendar({ calendar: { id: "an-work", source: caldav(CalDavCredentialScheme.UNSPECIFIED), readers: ["an"] } }),
    );
    expect(refusal.errorInfo?.reason).toBe("INVALID_SPEC");
    expect(refusal.badRequest?.fieldViolations.map((violation) => violation.field)).toEqual(["calendar.source.caldav.credential_scheme"]);
  });

  it("is served from the collection once created, with Basic credentials from the replica's variable", async () => {
    await admin.createCalendar({ calendar: { id: "an-work", source: caldav(CalDavCredentialScheme.BASIC), readers: ["an"] } });
    const summaries = await waitFor("the CalDAV calendar's first load", async () => {
      const page = await an.searchEvents({ calendarId: "an-work", ...WEEK }).catch(() => undefined);
      return page?.events.map((event) => event.summary);
    });
    expect(summaries).toEqual(["Stand-up"]);
  });
});

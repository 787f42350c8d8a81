/**
 * The filters of SearchEvents and SearchEventsAcrossCalendars over gRPC:
 * status, transparency, the caller's own answer to the invitation (the
 * PARTSTAT of the ATTENDEE with one of the caller's addresses, from
 * calq.yaml's `emails` or a JWT's `email` claim) and categories; each bound
 * into the cursor, echoed in the resolved query, and refused with a reason
 * when it cannot be applied.
 */

import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventStatus, MatchMode, ParticipationFilter, Transparency } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const SECRET = "an HS256 secret that is long enough for RFC 7518";
const ISSUER = "https://id.calq.test";

let served: TestServer;
let client: CalqGrpcClient;

const at = (time: string, ...rest: string[]) => [`DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T${time}`, "DURATION:PT30M", ...rest];

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      work: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent(
          "UID:a",
          ...at("090000", "SUMMARY:Standup", "STATUS:CONFIRMED", "CATEGORIES:Team,Daily"),
          "ATTENDEE;PARTSTAT=ACCEPTED:mailto:an@example.com",
        ),
        ...vevent(
          "UID:b",
          ...at("100000", "SUMMARY:Vendor pitch", "STATUS:TENTATIVE"),
          "ATTENDEE;PARTSTAT=DECLINED;CN=An:mailto:AN@Example.com",
          "ATTENDEE;PARTSTAT=DECLINED:mailto:eve@example.com",
        ),
        ...vevent("UID:c", ...at("110000", "SUMMARY:Lunch", "TRANSP:TRANSPARENT", "CATEGORIES:personal")),
        ...vevent("UID:d", ...at("130000", "SUMMARY:Planning", "CATEGORIES:TEAM"), "ATTENDEE:mailto:an@example.com"),
        ...vevent(
          "UID:e",
          ...at("140000", "SUMMARY:One on one"),
          "ATTENDEE;PARTSTAT=TENTATIVE:mailto:an@example.com",
          "ATTENDEE;PARTSTAT=DECLINED:mailto:binh@example.com",
        ),
        ...vevent("UID:f", ...at("150000", "SUMMARY:All hands")),
      ),
      team: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent("UID:g", ...at("093000", "SUMMARY:Team sync", "CATEGORIES:Team"), "ATTENDEE;PARTSTAT=DECLINED:mailto:an@example.com"),
      ),
    },
    config: {
      calendars: [
        { id: "work", source: "work.ics", readers: ["an", "dung", "eve"] },
        { id: "team", source: "team.ics", readers: ["an"] },
      ],
      principals: [
        { id: "an", primary: "work", tokens: ["token-an"], emails: ["An@Example.com"] },
        { id: "dung", tokens: ["token-dung"] },
        { id: "eve" },
      ],
    },
    serve: {
      jwt: { issuer: ISSUER, audience: "calq", hs256SecretEnv: "CALQ_TEST_JWT_SECRET", clockSkewSeconds: 30 },
      env: { CALQ_TEST_JWT_SECRET: SECRET },
    },
  });
  client = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  client.close();
  await served.close();
});

const friday = {
  calendarId: "work",
  start: "2026-10-02",
  endExclusive: "2026-10-03",
  timezone: "Asia/Ho_Chi_Minh",
  matchMode: MatchMode.OVERLAP,
};

async function titles(filters: Record<string, unknown>, token?: string): Promise<string[]> {
  const response = await client.searchEvents({ ...friday, ...filters }, token);
  return response.events.map((event) => event.summary);
}

describe("search filters", () => {
  it("keep a status, counting events without STATUS as confirmed", async () => {
    expect(await titles({ status: EventStatus.CONFIRMED })).toEqual(["Standup", "Lunch", "Planning", "One on one", "All hands"]);
    expect(await titles({ status: EventStatus.TENTATIVE })).toEqual(["Vendor pitch"]);
  });

  it("keep what blocks time or what does not, TRANSP absent being opaque", async () => {
    expect(await titles({ transparency: Transparency.TRANSPARENT })).toEqual(["Lunch"]);
    expect(await titles({ transparency: Transparency.OPAQUE })).toEqual(["Standup", "Vendor pitch", "Planning", "One on one", "All hands"]);
  });

  it("read the caller's own answer: hide what I declined, what I accepted, what I have not answered", async () => {
    expect(await titles({ myParticipation: ParticipationFilter.NOT_DECLINED })).toEqual([
      "Standup",
      "Lunch",
      "Planning",
      "One on one",
      "All hands",
    ]);
    expect(await titles({ myParticipation: ParticipationFilter.ACCEPTED })).toEqual(["Standup"]);
    expect(await titles({ myParticipation: ParticipationFilter.DECLINED })).toEqual(["Vendor pitch"]);
    // An ATTENDEE without PARTSTAT has not answered; Binh's "declined" on the one-on-one is not An's.
    expect(await titles({ myParticipation: ParticipationFilter.NEEDS_ACTION })).toEqual(["Planning"]);
    expect(await titles({ myParticipation: ParticipationFilter.TENTATIVE })).toEqual(["One on one"]);
  });

  it("keep occurrences with one of the categories, case ignored, and combine with every other filter", async () => {
    expect(await titles({ categories: ["team"] })).toEqual(["Standup", "Planning"]);
    expect(await titles({ categories: ["TEAM", "Personal"] })).toEqual(["Standup", "Lunch", "Planning"]);
    expect(await titles({ categories: ["team"], myParticipation: ParticipationFilter.ACCEPTED })).toEqual(["Standup"]);
    const response = await client.searchEvents({ ...friday, categories: ["Team", "team "], status: EventStatus.CONFIRMED });
    expect(response.query?.categories).toEqual(["team"]);
    expect(response.query?.status).toBe(EventStatus.CONFIRMED);
    expect(response.query?.myParticipation).toBe(ParticipationFilter.UNSPECIFIED);
  });

  it("apply across calendars as on one", async () => {
    const { calendarId: _one, ...window } = friday;
    const response = await client.searchEventsAcrossCalendars({
      ...window,
      calendarIds: ["team", "primary"],
      myParticipation: ParticipationFilter.NOT_DECLINED,
      categories: ["team"],
    });
    expect(response.events.map((event) => `${event.calendarId} ${event.summary}`)).toEqual(["work Standup", "work Planning"]);
    expect(response.query?.myParticipation).toBe(ParticipationFilter.NOT_DECLINED);
  });

  it("are bound into the cursor: pages of a filtered search concatenate, and another filter makes it invalid", async () => {
    const filters = { myParticipation: ParticipationFilter.NOT_DECLINED };
    const first = await client.searchEvents({ ...friday, ...filters, limit: 2 });
    expect(first.events.map((event) => event.summary)).toEqual(["Standup", "Lunch"]);
    const second = await client.searchEvents({ ...friday, ...filters, limit: 2, cursor: first.nextCursor });
    expect(second.events.map((event) => event.summary)).toEqual(["Planning", "One on one"]);
    for (const other of [{ myParticipation: ParticipationFilter.ACCEPTED }, {}, { ...filters, categories: ["team"] }]) {
      const refused = await failureOf(client.searchEvents({ ...friday, ...other, limit: 2, cursor: first.nextCursor }));
      expect(refused.errorInfo?.reason).toBe("INVALID_CURSOR");
    }
    const unfiltered = await client.searchEvents({ ...friday, limit: 2 });
    const refused = await failureOf(client.searchEvents({ ...friday, ...filters, limit: 2, cursor: unfiltered.nextCursor }));
    expect(refused.errorInfo?.reason).toBe("INVALID_CURSOR");
  });

  it("refuse a participation filter for a caller with no known address, and categories out of bounds", async () => {
    const unknown = await failureOf(client.searchEvents({ ...friday, myParticipation: ParticipationFilter.NOT_DECLINED }, "token-dung"));
    expect([unknown.errorInfo?.reason, unknown.badRequest?.fieldViolations[0]?.field]).toEqual([
      "CALLER_ADDRESSES_UNKNOWN",
      "my_participation",
    ]);
    const blank = await failureOf(client.searchEvents({ ...friday, categories: ["  "] }));
    expect([blank.errorInfo?.reason, blank.badRequest?.fieldViolations[0]?.field]).toEqual(["INVALID_FILTER", "categories"]);
    const many = await failureOf(client.searchEvents({ ...friday, categories: Array.from({ length: 11 }, (_, i) => `c${i}`) }));
    expect(many.errorInfo?.reason).toBe("INVALID_FILTER");
  });

  it("take the caller's address from a JWT's email claim, unless it is marked unverified", async () => {
    const jwt = (claims: Record<string, unknown>) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ scope: "calendar.read", ...claims })
        .setSubject("eve")
        .setIssuer(ISSUER)
        .setAudience("calq")
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .setProtectedHeader({ alg: "HS256" })
        .sign(new TextEncoder().encode(SECRET));
    };
    const verified = await jwt({ email: "Eve@Example.com" });
    expect(await titles({ myParticipation: ParticipationFilter.DECLINED }, verified)).toEqual(["Vendor pitch"]);
    const unverified = await jwt({ email: "eve@example.com", email_verified: false });
    const refused = await failureOf(client.searchEvents({ ...friday, myParticipation: ParticipationFilter.DECLINED }, unverified));
    expect(refused.errorInfo?.reason).toBe("CALLER_ADDRESSES_UNKNOWN");
  });
});

/**
 * A cut feed (docs/imperfect-feeds.md, the cut-feed row), as a caller sees it: a calendar whose feed is cut before
 * END:VCALENDAR and has never loaded whole answers with its complete events,
 * marked stale, instead of PROVIDER_UNAVAILABLE; GetCalendarStatus names the
 * cut as a FEED_TRUNCATED error.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiagnosticSeverity, FeedFailure } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;

beforeAll(async () => {
  served = await startTestServer({
    calendars: { work: readFileSync(join(import.meta.dirname, "../fixtures/imperfect/cut-feed.ics"), "utf8") },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [{ id: "an", primary: "work", tokens: ["token-an"], capabilities: ["calendar.admin"] }],
    },
  });
});

afterAll(() => served.close());

describe("a feed cut before its end that never loaded", () => {
  it("serves its complete events, marked stale", async () => {
    const client = new CalqGrpcClient(served.address, "token-an");
    try {
      const response = await client.searchEvents({
        calendarId: "work",
        start: "2026-10-05",
        endExclusive: "2026-10-12",
        timezone: "Europe/Berlin",
        matchMode: MatchMode.OVERLAP,
      });
      expect(response.events.map((event) => [event.summary, event.startLocal])).toEqual([
        ["Complete before the cut", "2026-10-05T09:00:00+02:00"],
        ["Also complete", "2026-10-06T09:00:00+02:00"],
      ]);
      expect(response.stale).toBe(true);
    } finally {
      client.close();
    }
  });

  it("shows in GetCalendarStatus as stale, last failure truncated, with a FEED_TRUNCATED error", async () => {
    const admin = new CalqGrpcClient(served.address, "token-an");
    try {
      const [status] = (await admin.getCalendarStatus("work")).calendars;
      expect(status).toMatchObject({ stale: true, lastFailure: { failure: FeedFailure.TRUNCATED }, eventCount: 2 });
      expect(status.diagnostics.filter((d) => d.severity === DiagnosticSeverity.ERROR).map((d) => d.code)).toEqual([
        "FEED_TRUNCATED",
        "FEED_TRUNCATED",
      ]);
    } finally {
      admin.close();
    }
  });
});

/**
 * Nothing one feed does can hold the service, end to end over
 * gRPC on a real socket: a calendar of 10,000 hourly series answers a week
 * without holding other calendars, an expensive search stops at its
 * caller's deadline with a partial page (or, before its first match, a
 * refusal to retry rather than its own cursor), a 25,000-event reload
 * holds no one, and a feed whose rule rrule would walk for a minute loads
 * with the rule refused.
 *
 * Nothing here is timed: "not held" means other calendars' searches were
 * answered while the hostile work ran, and deadlines are stated to the
 * server but not enforced by the client, so what is asserted is what the
 * server answered, however late a busy machine delivers it.
 * `npm run bench:hostile` (bench/hostile.ts) measures the latencies.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFeed, generateHourlySeries } from "../../bench/generate-feed.js";
import {
  CalendarService,
  MatchMode,
  PartialReason,
  type SearchEventsRequestSchema,
  type SearchEventsResponse,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { feed } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const readAt = Date.UTC(2026, 10, 29, 12);
const work = feed(["X-WR-TIMEZONE:UTC"], ["UID:standup@calq.test", "DTSTART:20261130T090000Z", "DURATION:PT15M", "SUMMARY:standup"]);
const setpos = feed(["X-WR-TIMEZONE:UTC"], ["UID:setpos@calq.test", "DTSTART:20261130T090000Z", "RRULE:FREQ=MINUTELY;BYSETPOS=53"]);

const week = {
  start: "2026-11-30T00:00:00Z",
  endExclusive: "2026-12-07T00:00:00Z",
  timezone: "UTC",
  matchMode: MatchMode.OVERLAP,
  limit: 20,
};

let served: TestServer;
let client: CalqGrpcClient;

beforeAll(async () => {
  served = await startTestServer({
    // big.ics starts as the small work feed: the 100,000-event version is written, and built once, by its reload test.
    calendars: { hourly: generateHourlySeries(readAt), work, setpos: work, big: work },
    config: {
      calendars: [
        { id: "big", source: "big.ics", readers: ["an"] },
        { id: "hourly", source: "hourly.ics", readers: ["an"] },
        { id: "work", source: "work.ics", readers: ["an"] },
        { id: "setpos", source: "setpos.ics", readers: ["an"] },
      ],
      principals: [{ id: "an", tokens: ["token-an"] }],
      // 100,000 occurrences indexed, not the million 10,000 hourly series would fill: a build of a few seconds
      // rather than ten (a busy machine could stretch that past the 60 s safety net), and the rest of every
      // series expanded per search, which makes the searches here costlier still.
      feeds: { max_occurrences_per_feed: 100_000 },
    },
    now: () => readAt,
  });
  client = new CalqGrpcClient(served.address, "token-an");
}, 180_000);

afterAll(async () => {
  client?.close();
  await served?.close();
});

/**
 * SearchEvents over gRPC with a deadline the server is told of (grpc-timeout)
 * but the client does not enforce: the server's answer to the deadline is
 * awaited, however late a busy machine delivers it.
 */
function searchWithStatedDeadline(
  request: MessageInitShape<typeof SearchEventsRequestSchema>,
  deadlineMs: number,
): Promise<SearchEventsResponse> {
  const calendars = createClient(CalendarService, createGrpcTransport({ baseUrl: served.baseUrl }));
  return calendars.searchEvents(request, { headers: { authorization: "Bearer token-an", "grpc-timeout": `${deadlineMs}m` } });
}

/**
 * Searches the work calendar back to back, checking every answer, until
 * `busy` settles or `enough` searches were answered while it ran (then the
 * searches stop taking CPU from it), and at least three times; resolves with
 * how many were answered while `busy` was still running.
 */
async function searchesAnsweredWhile(busy: Promise<unknown>, enough = Number.POSITIVE_INFINITY): Promise<number> {
  let done = false;
  void busy.finally(() => {
    done = true;
  });
  let searches = 0;
  let answeredWhileBusy = 0;
  while ((!done && answeredWhileBusy < enough) || searches < 3) {
    const answer = await client.searchEvents({ ...week, calendarId: "work" });
    if (!done) answeredWhileBusy++;
    searches++;
    expect(answer.events.map((event) => event.summary)).toEqual(["standup"]);
  }
  return answeredWhileBusy;
}

describe("a calendar of 10,000 hourly series", () => {
  it("answers a 7-day page exactly: twenty occurrences in start order, and a cursor for the rest", async () => {
    // How soon (within a 2 s deadline) is measured by bench/hostile.ts; here the deadline is ample.
    const page = await client.searchEvents({ ...week, calendarId: "hourly" });
    expect(page.partial).toBe(false);
    expect(page.events).toHaveLength(20);
    expect(page.nextCursor).not.toBe("");
    const starts = page.events.map((event) => Number(event.startTime!.seconds));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it("does not hold searches of another calendar while it is searched", async () => {
    const hostile = Promise.all(Array.from({ length: 3 }, () => client.searchEvents({ ...week, calendarId: "hourly" }, undefined, 60_000)));
    const answered = await searchesAnsweredWhile(hostile);
    await hostile;
    // Before searches took turns, each of these waited 8-14 s behind the hostile searches: none was answered before them.
    expect(answered).toBeGreaterThanOrEqual(1);
  });

  it("honours a short deadline: the call stops with a partial page, or before a first match with WORK_BUDGET_EXHAUSTED, never its own cursor", async () => {
    // 10,000 series, and a 100 ms deadline: the server keeps 100 ms for
    // sending, so it stops at its first look at the clock, long before it has
    // opened every series, on any machine. A page that stopped before its first
    // match would hand back the request's own cursor, and a client following
    // it would loop: it is refused instead, and says what to change.
    const answer = searchWithStatedDeadline({ ...week, calendarId: "hourly", limit: 100 }, 100);
    const page = await answer.catch((error: unknown) => ConnectError.from(error));
    if (page instanceof ConnectError) {
      expect(page.findDetails(ErrorInfoSchema)[0]?.reason).toBe("WORK_BUDGET_EXHAUSTED");
      expect(page.rawMessage).toContain("retry once with a longer deadline");
    } else {
      expect(page.partial).toBe(true);
      expect(page.partialReason).toBe(PartialReason.DEADLINE);
      expect(page.events.length).toBeGreaterThan(0);
      expect(page.nextCursor).not.toBe("");
    }
    // Given the time, the same search answers.
    const given = await client.searchEvents({ ...week, calendarId: "hourly", limit: 100 }, undefined, 60_000);
    expect(given.events.length).toBeGreaterThan(0);
  });
});

describe("a reload of a 25,000-event feed", () => {
  it("does not hold searches of another calendar", async () => {
    // 25,000 single events (about 5 MB): a 100,000-event feed held every caller for 1.5-6 s before ingestion
    // moved to workers; bench/hostile.ts reloads that one. A quarter of it holds a build on the loop as surely.
    served.writeCalendar("big", generateFeed(readAt, { singles: 25_000, series: 0 }, 5));
    const reload = served.server.store.reload("big");
    const answered = await searchesAnsweredWhile(reload, 10);
    expect((await reload).outcome).toBe("loaded");
    expect(served.server.store.view("big")!.snapshot!.eventCount).toBe(25_000);
    // A build on the event loop would let the few searches sent while the file is read through, then none until it ends.
    expect(answered).toBeGreaterThanOrEqual(10);
  }, 180_000);
});

describe("a feed whose rule rrule would walk for a minute (FREQ=MINUTELY;BYSETPOS=53)", () => {
  it("loads with its rule refused from its shape, while other calendars answer", async () => {
    served.writeCalendar("setpos", setpos);
    const reload = served.server.store.reload("setpos");
    await searchesAnsweredWhile(reload);
    expect((await reload).outcome).toBe("loaded");
    const refused = served.server.store
      .view("setpos")!
      .snapshot!.diagnostics.find((diagnostic) => diagnostic.code === "RRULE_NEVER_MATCHES");
    expect(refused?.message).toContain("holds at most 1 date");
  });
});

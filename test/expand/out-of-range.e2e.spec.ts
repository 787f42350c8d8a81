/**
 * "Never one event against the whole calendar" (docs/imperfect-feeds.md): instants a
 * Timestamp cannot hold (DURATION:P99999999D, a DTEND in 9999 in New York,
 * a DTSTART in year 1 in Tokyo) and a rule value that is no number
 * (BYSETPOS=20260229T120000Z) are clamped or left out at load, so a search
 * overlapping them answers over every protocol, never INTERNAL.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CalendarService, MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const FIXTURE = readFileSync(join(import.meta.dirname, "../fixtures/imperfect/out-of-range.ics"), "utf8");

let served: TestServer;

beforeAll(async () => {
  served = await startTestServer({
    calendars: { work: FIXTURE },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [{ id: "an", primary: "work", tokens: ["token-an"] }],
    },
  });
});

afterAll(() => served.close());

const request = {
  calendarId: "work",
  start: "2026-10-02",
  endExclusive: "2026-10-03",
  timezone: "America/New_York",
  matchMode: MatchMode.OVERLAP,
};

/** What every protocol must answer: [uid, start, end] of each result. */
const EXPECTED = [
  ["forever-days@example.org", "2026-10-02T13:00:00.000Z", "9999-12-30T00:00:00.000Z"],
  ["forever-weeks@example.org", "2026-10-02T14:00:00.000Z", "9999-12-30T00:00:00.000Z"],
  ["end-of-time@example.org", "2026-10-02T15:00:00.000Z", "9999-12-30T00:00:00.000Z"],
  ["weekly@example.org", "2026-10-02T16:00:00.000Z", "2026-10-02T17:00:00.000Z"],
  ["ordinary@example.org", "2026-10-02T18:00:00.000Z", "2026-10-02T19:00:00.000Z"],
];

type Found = { uid: string; startTime?: { seconds: bigint; nanos: number }; endTime?: { seconds: bigint; nanos: number } };

const iso = (time: Found["startTime"]) => new Date(Number(time?.seconds ?? 0n) * 1000).toISOString();
const rows = (events: readonly Found[]) => events.map((event) => [event.uid, iso(event.startTime), iso(event.endTime)]);

describe("an event with an instant out of a Timestamp's range", () => {
  const headers = { authorization: "Bearer token-an" };
  const transports: [string, () => Transport][] = [
    ["Connect JSON", () => createConnectTransport({ baseUrl: served.baseUrl, httpVersion: "1.1", useBinaryFormat: false })],
    ["gRPC-Web", () => createGrpcWebTransport({ baseUrl: served.baseUrl, httpVersion: "1.1" })],
  ];

  it.each(transports)("is clamped or left out at load, so a search over %s answers", async (_name, transport) => {
    const response = await createClient(CalendarService, transport()).searchEvents(request, { headers });
    expect(rows(response.events)).toEqual(EXPECTED);
  });

  it("is clamped or left out at load, so a search over gRPC answers", async () => {
    const client = new CalqGrpcClient(served.address, "token-an");
    try {
      expect(rows((await client.searchEvents(request)).events)).toEqual(EXPECTED);
    } finally {
      client.close();
    }
  });
});

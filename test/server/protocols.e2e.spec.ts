import { Code, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CalendarService, MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { startDesignReviewServer, type TestServer } from "../support/test-server.js";

let served: TestServer;

beforeAll(async () => {
  served = await startDesignReviewServer();
});

afterAll(() => served.close());

const request = {
  calendarId: "primary",
  start: "2026-10-02T09:00:00+07:00",
  endExclusive: "2026-10-02T12:00:00+07:00",
  timezone: "Asia/Ho_Chi_Minh",
  matchMode: MatchMode.OVERLAP,
};
const headers = { authorization: "Bearer token-an" };

describe("one port serves every protocol", () => {
  const transports: [string, () => Transport][] = [
    ["Connect over HTTP/1.1", () => createConnectTransport({ baseUrl: served.baseUrl, httpVersion: "1.1" })],
    ["Connect JSON over HTTP/1.1", () => createConnectTransport({ baseUrl: served.baseUrl, httpVersion: "1.1", useBinaryFormat: false })],
    ["Connect over HTTP/2", () => createConnectTransport({ baseUrl: served.baseUrl, httpVersion: "2" })],
    ["gRPC-Web over HTTP/1.1", () => createGrpcWebTransport({ baseUrl: served.baseUrl, httpVersion: "1.1" })],
    ["gRPC-Web over HTTP/2", () => createGrpcWebTransport({ baseUrl: served.baseUrl, httpVersion: "2" })],
  ];

  it.each(transports)("%s finds the 08:30 meeting", async (_name, transport) => {
    const client = createClient(CalendarService, transport());
    const response = await client.searchEvents(request, { headers });
    expect(response.events.map((event) => event.summary)).toEqual(["Design review"]);
  });

  it("plain curl-style JSON POST gets JSON back, errors included", async () => {
    const url = `${served.baseUrl}/calq.v1.CalendarService/SearchEvents`;
    const ok = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ ...request, matchMode: "MATCH_MODE_OVERLAP" }),
    });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { events: { summary: string; windowRelation: string }[] };
    expect(body.events[0]).toMatchObject({ summary: "Design review", windowRelation: "WINDOW_RELATION_CROSSES_START" });

    const refused = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ ...request, matchMode: "MATCH_MODE_OVERLAP", timezone: "Mars/Base" }),
    });
    expect(refused.status).toBe(400);
    const error = (await refused.json()) as { code: string; details: { type: string; debug: { reason: string } }[] };
    expect(error.code).toBe("invalid_argument");
    expect(error.details[0]).toMatchObject({ type: "google.rpc.ErrorInfo", debug: { reason: "UNKNOWN_TIMEZONE" } });
  });

  it("refuses an oversized request body without reading it all", async () => {
    const client = createClient(CalendarService, createConnectTransport({ baseUrl: served.baseUrl, httpVersion: "1.1" }));
    await expect(client.searchEvents({ ...request, calendarId: "x".repeat(100_000) }, { headers })).rejects.toMatchObject({
      code: Code.ResourceExhausted,
    });
  });
});

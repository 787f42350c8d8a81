/**
 * /metrics on the admin port, scraped after real calls over a real port:
 * RPC counts and latencies by method and code, cursor rejections by reason,
 * reload outcomes, and the per-calendar gauges.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const feed = () =>
  ics(
    ...vevent("UID:a", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", "SUMMARY:A"),
    ...vevent("UID:b", "DTSTART:20261002T040000Z", "DTEND:20261002T050000Z", "SUMMARY:B", "RRULE:FREQ=DAILY;COUNT=3"),
  );

let served: TestServer;
let client: CalqGrpcClient;

beforeAll(async () => {
  served = await startTestServer({
    calendars: { work: feed() },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [{ id: "an", primary: "work", tokens: ["token-an"] }],
    },
    serve: { admin: { host: "127.0.0.1", port: 0 } },
  });
  client = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  client.close();
  await served.close();
});

const scrape = async () => {
  const response = await fetch(`http://127.0.0.1:${served.server.adminPort}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
};

/** The value of one sample line, e.g. sample(text, 'calq_rpc_total{method="...",code="OK"}'). */
const sample = (text: string, series: string) => {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe("metrics on the admin port", () => {
  it("counts calls by method and code, and times them", async () => {
    const request = {
      calendarId: "work",
      start: "2026-10-01",
      endExclusive: "2026-10-08",
      timezone: "UTC",
      matchMode: MatchMode.OVERLAP,
      limit: 1,
    };
    const first = await client.searchEvents(request);
    await client.searchEvents(request);
    await failureOf(client.searchEvents({ ...request, limit: 1000 }));
    await failureOf(client.searchEvents({ ...request, cursor: `${first.nextCursor}x` }));
    await client.listCalendars();

    const text = await scrape();
    const search = 'method="calq.v1.CalendarService/SearchEvents"';
    expect(sample(text, `calq_rpc_total{${search},code="OK"}`)).toBe(2);
    expect(sample(text, `calq_rpc_total{${search},code="INVALID_ARGUMENT"}`)).toBe(2);
    expect(sample(text, 'calq_rpc_total{method="calq.v1.CalendarService/ListCalendars",code="OK"}')).toBe(1);
    expect(sample(text, `calq_rpc_duration_seconds_count{${search},code="OK"}`)).toBe(2);
    expect(sample(text, `calq_rpc_duration_seconds_bucket{le="+Inf",${search},code="OK"}`)).toBe(2);
    expect(sample(text, 'calq_cursor_rejections_total{reason="INVALID_CURSOR"}')).toBe(1);
  });

  it("shows each calendar's snapshot and the outcome of every load", async () => {
    let text = await scrape();
    expect(sample(text, 'calq_calendar_reloads_total{calendar_id="work",outcome="loaded"}')).toBe(1);
    expect(sample(text, 'calq_calendar_occurrences{calendar_id="work"}')).toBe(4);
    expect(sample(text, 'calq_calendar_events{calendar_id="work"}')).toBe(2);
    expect(sample(text, 'calq_calendar_stale{calendar_id="work"}')).toBe(0);
    expect(sample(text, 'calq_calendar_snapshot_age_seconds{calendar_id="work"}')).toBeGreaterThanOrEqual(0);
    // The feed names no zone (a warning: it is read in UTC) and leaves nothing out.
    expect(sample(text, 'calq_calendar_diagnostics{calendar_id="work",severity="warning"}')).toBe(1);
    expect(sample(text, 'calq_calendar_diagnostics{calendar_id="work",severity="error"}')).toBe(0);

    served.writeCalendar("work", "<html>upstream error</html>");
    await served.server.store.reload("work");
    text = await scrape();
    expect(sample(text, 'calq_calendar_reloads_total{calendar_id="work",outcome="not_icalendar"}')).toBe(1);
    expect(sample(text, 'calq_calendar_stale{calendar_id="work"}')).toBe(1);
    // The good file again: the same bytes as the snapshot still served.
    served.writeCalendar("work", feed());
    await served.server.store.reload("work");
    text = await scrape();
    expect(sample(text, 'calq_calendar_reloads_total{calendar_id="work",outcome="unchanged"}')).toBe(1);
    expect(sample(text, 'calq_calendar_stale{calendar_id="work"}')).toBe(0);
  });

  it("serves nothing but /metrics there", async () => {
    expect((await fetch(`http://127.0.0.1:${served.server.adminPort}/`)).status).toBe(404);
  });
});

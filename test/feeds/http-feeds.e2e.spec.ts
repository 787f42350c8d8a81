/**
 * HTTP feeds against a real local provider (node:http on 127.0.0.1): every
 * way a fetch can go wrong ends in the documented state, the last good
 * snapshot is never lost, and nothing the upstream said or was sent reaches
 * anything but the operator's log.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/calq-config.js";
import { type CalendarConfig, DEFAULT_FEED_LIMITS, DEFAULT_REFRESH_MS } from "../../src/config/config-model.js";
import { CalendarStore, type LoadFailure } from "../../src/store/calendar-store.js";
import {
  cutChunked,
  cutShort,
  endless,
  type FeedServer,
  silent,
  stall,
  startFeedServer,
  status,
  versioned,
} from "../support/feed-server.js";
import { feed } from "../support/feeds.js";
import { waitFor } from "../support/wait-for.js";

const MINUTE = 60_000;
/** Generous, so a busy machine never turns a slow answer into a timeout; the timeout cases set their own. */
const limits = { ...DEFAULT_FEED_LIMITS, maxBytes: 256 * 1024, fetchTimeoutMs: 60_000 };
/** The fetch timeout of the cases about timeouts: short, so their providers' silence ends soon. */
const SHORT_TIMEOUT_MS = 1_000;

const calendarText = (summary: string) =>
  feed(
    ["X-WR-TIMEZONE:Asia/Ho_Chi_Minh"],
    ["UID:standup@calq.test", "DTSTART:20261002T020000Z", "DTEND:20261002T023000Z", `SUMMARY:${summary}`],
  );

let provider: FeedServer;
let failures: [string, LoadFailure, string][];

function storeFor(config: CalendarConfig, fetchTimeoutMs = limits.fetchTimeoutMs): CalendarStore {
  return new CalendarStore([config], {
    retentionMs: 15 * MINUTE,
    feedLimits: { ...limits, fetchTimeoutMs },
    onLoadFailure: (...failure) => failures.push(failure),
  });
}

function urlCalendar(url: string, headers?: ReadonlyMap<string, never>): CalendarConfig {
  return {
    id: "team",
    source: { kind: "http", url: new URL(url), headers: headers ?? new Map() },
    refreshMs: DEFAULT_REFRESH_MS,
    name: "team",
    readers: [],
  };
}

const summaries = (store: CalendarStore) => store.view("team")!.snapshot!.index.items.map((occurrence) => occurrence.details.summary);

beforeEach(async () => {
  failures = [];
  provider = await startFeedServer(versioned(calendarText("v1"), "v1"));
});
afterEach(() => provider.close());

describe("an http feed", () => {
  it("loads on 200, then asks conditionally and keeps its snapshot on 304", async () => {
    const store = storeFor(urlCalendar(provider.url));
    expect(await store.reload("team")).toMatchObject({ outcome: "loaded" });
    const first = store.view("team")!.snapshot!;
    expect(summaries(store)).toEqual(["v1"]);

    expect(await store.reload("team")).toEqual({ outcome: "unchanged" });
    expect(provider.requests[1]["if-none-match"]).toBe('"v1"');
    expect(provider.requests[1]["if-modified-since"]).toBe("Tue, 01 Sep 2026 00:00:00 GMT");
    expect(store.view("team")).toMatchObject({ stale: false, snapshot: first });
  });

  it("picks up a change between two polls", async () => {
    const store = storeFor(urlCalendar(provider.url));
    await store.reload("team");
    provider.answer(versioned(calendarText("v2"), "v2"));
    expect(await store.reload("team")).toMatchObject({ outcome: "loaded" });
    expect(summaries(store)).toEqual(["v2"]);
  });

  it("treats a 200 with the same bytes as unchanged (a provider without validators)", async () => {
    provider.answer((_request, response) => response.writeHead(200).end(calendarText("same")));
    const store = storeFor(urlCalendar(provider.url));
    await store.reload("team");
    const first = store.view("team")!.snapshot;
    expect(await store.reload("team")).toEqual({ outcome: "unchanged" });
    expect(store.view("team")!.snapshot).toBe(first);
  });

  it.each<[string, () => void, LoadFailure, number?]>([
    ["a 500", () => provider.answer(status(500, "stack trace from upstream")), "http_status", 500],
    ["a 404", () => provider.answer(status(404)), "http_status", 404],
    ["an HTML page instead of ICS", () => provider.answer(status(200, "<!doctype html><title>Sign in</title>")), "not_icalendar"],
    ["a body cut in transit (Content-Length not reached)", () => provider.answer(cutShort(calendarText("v2"))), "truncated"],
    ["a chunked body cut mid-way", () => provider.answer(cutChunked(calendarText("v2"))), "truncated"],
    [
      "a complete response without END:VCALENDAR",
      () => provider.answer(status(200, calendarText("v2").replace(/END:VCALENDAR\s*$/, ""))),
      "truncated",
    ],
    ["a declared size over the limit", () => provider.answer(status(200, "X".repeat(limits.maxBytes + 1))), "too_large"],
    ["a streamed body over the limit", () => provider.answer(endless(limits.maxBytes * 4)), "too_large"],
    ["no answer within the timeout", () => provider.answer(silent), "timeout"],
    ["a body that stalls past the timeout", () => provider.answer(stall), "timeout"],
  ])("keeps the last good snapshot, marked stale, after %s", async (_case, breakIt, failure, httpStatus) => {
    const store = storeFor(urlCalendar(provider.url), failure === "timeout" ? SHORT_TIMEOUT_MS : undefined);
    await store.reload("team");
    const good = store.view("team")!.snapshot!;
    breakIt();
    expect(await store.reload("team")).toEqual({ outcome: "failed", failure });
    const view = store.view("team")!;
    expect(view).toMatchObject({ stale: true, lastFailure: failure, snapshot: good });
    expect(view.status.lastFailure).toMatchObject({ failure, httpStatus });
    expect(view.status.consecutiveFailures).toBe(1);
    expect(failures.map(([, logged]) => logged)).toEqual([failure]);
    // The upstream's own words are never kept, not even for the log.
    expect(failures[0][2]).not.toContain("stack trace");

    provider.answer(versioned(calendarText("v3"), "v3"));
    expect(await store.reload("team")).toMatchObject({ outcome: "loaded" });
    expect(store.view("team")!.stale).toBe(false);
    expect(store.view("team")!.lastFailure).toBeUndefined();
    expect(store.view("team")!.status.consecutiveFailures).toBe(0);
  });

  it("leaves a calendar unloaded (not stale) when its first fetch fails, and counts failures in a row", async () => {
    provider.answer(status(503));
    const store = storeFor(urlCalendar(provider.url));
    await store.reload("team");
    await store.reload("team");
    expect(store.view("team")).toMatchObject({ stale: false, snapshot: undefined, lastFailure: "http_status" });
    expect(store.view("team")!.status.consecutiveFailures).toBe(2);
  });

  it("calls a refused connection unreachable", async () => {
    const url = provider.url;
    await provider.close();
    const store = storeFor(urlCalendar(url));
    expect(await store.reload("team")).toEqual({ outcome: "failed", failure: "unreachable" });
    provider = await startFeedServer(silent);
  });

  it("sends header secrets from the environment, and never prints them", async () => {
    const config = parseConfig(
      {
        calendars: [{ id: "team", source: provider.url, headers: { Authorization: { env: "TEAM_FEED_AUTH" } }, readers: [] }],
      },
      "/srv/calq",
      "calq.yaml",
      { TEAM_FEED_AUTH: "Bearer feed-secret-42" },
    );
    provider.answer(status(401, "bad token"));
    const store = storeFor(config.calendars[0]);
    await store.reload("team");
    expect(provider.requests[0].authorization).toBe("Bearer feed-secret-42");
    const printed = [
      JSON.stringify(config),
      String(config.calendars[0].source.kind === "http" && [...config.calendars[0].source.headers.values()]),
      ...failures.flat(),
    ].join(" ");
    expect(printed).not.toContain("feed-secret-42");
    expect(printed).toContain("[redacted]");
  });
});

describe("redirects and what failures say", () => {
  it("follows a redirect on the same origin with the secret headers, and drops them on another origin", async () => {
    const secret = new Map([
      ["x-feed-key", { reveal: () => "key-SECRET", toString: () => "[redacted]", toJSON: () => "[redacted]" }],
    ]) as never;
    const elsewhere = await startFeedServer(versioned(calendarText("moved"), "m"));
    try {
      provider.answer((request, response) => {
        if (request.url === "/calendar.ics") response.writeHead(302, { location: "/moved.ics" }).end();
        else response.writeHead(301, { location: elsewhere.url.replace("127.0.0.1", "localhost") }).end();
      });
      const store = storeFor(urlCalendar(provider.url, secret));
      expect(await store.reload("team")).toMatchObject({ outcome: "loaded" });
      expect(summaries(store)).toEqual(["moved"]);
      expect(provider.requests.map((headers) => headers["x-feed-key"])).toEqual(["key-SECRET", "key-SECRET"]);
      expect(elsewhere.requests[0]["x-feed-key"]).toBeUndefined();
    } finally {
      await elsewhere.close();
    }
  });

  it("gives up after five redirects", async () => {
    provider.answer((_request, response) => response.writeHead(302, { location: "/calendar.ics" }).end());
    const store = storeFor(urlCalendar(provider.url));
    expect(await store.reload("team")).toEqual({ outcome: "failed", failure: "unreachable" });
    expect(provider.requests).toHaveLength(6);
  });

  it("keeps new validators when a 200 brings the same bytes, so the next poll is conditional on them", async () => {
    provider.answer((_request, response) => response.writeHead(200).end(calendarText("same")));
    const store = storeFor(urlCalendar(provider.url));
    await store.reload("team");
    provider.answer(versioned(calendarText("same"), "late-etag"));
    expect(await store.reload("team")).toEqual({ outcome: "unchanged" });
    expect(await store.reload("team")).toEqual({ outcome: "unchanged" });
    expect(provider.requests[2]["if-none-match"]).toBe('"late-etag"');
  });

  it("names only the host in a failure's detail, never the path or query that may hold a private link's secret", async () => {
    const url = `${provider.url}?private-key=link-SECRET`;
    await provider.close();
    const store = storeFor(urlCalendar(url));
    await store.reload("team");
    expect(failures[0][2]).toMatch(/^ECONNREFUSED from http:\/\/127\.0\.0\.1:\d+$/);
    provider = await startFeedServer(silent);
  });
});

describe("reloads of one calendar", () => {
  /** Answers the first request only when `release` is called, and every later one at once with `later`. */
  function holdingFirst(first: string, later: (request: number) => string) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let requests = 0;
    provider.answer((_request, response) => {
      const n = ++requests;
      const answer = () => response.writeHead(200, { etag: `"${n}"` }).end(n === 1 ? first : later(n));
      if (n === 1) void released.then(answer);
      else answer();
    });
    return { release, requests: () => requests };
  }

  it("run one at a time, so a slow older read never replaces a newer one", async () => {
    const upstream = holdingFirst(calendarText("older"), () => calendarText("newer"));
    const store = storeFor(urlCalendar(provider.url));
    const slow = store.reload("team");
    await waitFor("the first read to reach the provider", () => upstream.requests() === 1);
    const fast = store.reload("team");
    upstream.release();
    expect(await slow).toMatchObject({ outcome: "loaded" });
    expect(await fast).toMatchObject({ outcome: "loaded" });
    expect(summaries(store)).toEqual(["newer"]);
  });

  it("share one queued reload between calls made while another runs", async () => {
    const upstream = holdingFirst(calendarText("v"), (n) => calendarText(`v${n}`));
    const store = storeFor(urlCalendar(provider.url));
    const running = store.reload("team");
    await waitFor("the first read to reach the provider", () => upstream.requests() === 1);
    const queued = [store.reload("team"), store.reload("team")];
    upstream.release();
    await Promise.all([running, ...queued]);
    // The first read, then one queued read for the two calls that came during it.
    expect(provider.requests).toHaveLength(2);
  });
});

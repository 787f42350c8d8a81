/**
 * Reloads racing searches, end to end over gRPC: a URL feed that changes,
 * fails and recovers between polls, and a file rewritten in place (the
 * watcher sees it empty and half-written). Every search must succeed and
 * answer from exactly one snapshot: all of one version's events, never a
 * mix, never a partial file.
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { type FeedServer, startFeedServer, status, versioned } from "../support/feed-server.js";
import { feed } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

const EVENTS = 40;

/** Version `v` of a calendar: EVENTS events on 2026-10-02, every summary naming the version. */
function version(v: number): string {
  const events = Array.from({ length: EVENTS }, (_, i) => [
    `UID:e${i}@calq.test`,
    `DTSTART:20261002T${String(i % 24).padStart(2, "0")}0000Z`,
    `DTEND:20261002T${String(i % 24).padStart(2, "0")}3000Z`,
    `SUMMARY:v${v} event ${i}`,
    // Padding so a file write takes several pieces.
    `DESCRIPTION:${"padding ".repeat(40)}`,
  ]);
  return feed(["X-WR-TIMEZONE:UTC"], ...events);
}

let provider: FeedServer;
let served: TestServer;
let client: CalqGrpcClient;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  provider = await startFeedServer(versioned(version(0), "0"));
  served = await startTestServer({
    calendars: { local: version(0) },
    config: {
      calendars: [
        { id: "remote", source: provider.url, readers: ["an"] },
        { id: "local", source: "local.ics", readers: ["an"] },
      ],
      principals: [{ id: "an", tokens: ["token-an"] }],
    },
    log: (record) => logs.push(record),
    serve: { refreshFeeds: true },
  });
  client = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  client.close();
  await served.close();
  await provider.close();
});

const day = {
  start: "2026-10-02T00:00:00Z",
  endExclusive: "2026-10-03T00:00:00Z",
  timezone: "UTC",
  matchMode: MatchMode.OVERLAP,
  limit: 100,
};

/** How many searches have been answered so far: the changes wait for one between steps, so searches meet every state. */
let answered = 0;

/** Resolves once a search has been answered after this call. */
function nextAnswer(): Promise<boolean> {
  const before = answered;
  return waitFor("a search answered", () => answered > before, { pauseMs: 1 });
}

/**
 * Searches `calendarId` back to back until `changing` settles, checking each
 * answer holds one whole version and that a snapshot id always means the same
 * version. Returns the versions seen.
 */
async function searchWhile(calendarId: string, changing: Promise<void>): Promise<Set<number>> {
  let done = false;
  void changing.finally(() => (done = true));
  const versionOfSnapshot = new Map<string, number>();
  const seen = new Set<number>();
  let searches = 0;
  while (!done || searches < 5) {
    const response = await client.searchEvents({ ...day, calendarId });
    const versions = new Set(response.events.map((event) => Number(/^v(\d+) /.exec(event.summary)![1])));
    expect(response.events).toHaveLength(EVENTS);
    expect(versions.size).toBe(1);
    const [v] = versions;
    expect(versionOfSnapshot.get(response.snapshotId) ?? v).toBe(v);
    versionOfSnapshot.set(response.snapshotId, v);
    seen.add(v);
    searches++;
    answered++;
  }
  await changing;
  return seen;
}

describe("reloads while searches run", () => {
  it("never fail a search or mix two versions of a URL feed, through changes and failures", async () => {
    const changing = (async () => {
      for (let v = 1; v <= 12; v++) {
        provider.answer(v % 4 === 0 ? status(502) : versioned(version(v), String(v)));
        await served.server.store.reload("remote");
        await nextAnswer();
      }
      provider.answer(versioned(version(13), "13"));
      await served.server.store.reload("remote");
    })();
    const seen = await searchWhile("remote", changing);
    expect(seen.size).toBeGreaterThan(1);
    const last = await client.searchEvents({ ...day, calendarId: "remote" });
    expect(last.events[0].summary).toMatch(/^v13 /);
    expect(last.stale).toBe(false);
  });

  it("never serve a file caught empty or half-written while it is rewritten in place", async () => {
    const path = join(served.dir, "local.ics");
    const failures = () => logs.filter((record) => record.calendar_id === "local" && record.msg === "calendar load failed").length;
    const servedSummary = () => served.server.store.view("local")?.snapshot?.index.items[0]?.details.summary;
    const changing = (async () => {
      for (let v = 1; v <= 4; v++) {
        // Truncate, then write in pieces; after each piece but the last, wait until
        // the watcher has read the file half-written (and refused it), so it does.
        const bytes = Buffer.from(version(v));
        const handle = await open(path, "w");
        for (let at = 0; at < bytes.length; at += 8192) {
          const last = at + 8192 >= bytes.length;
          const before = failures();
          await handle.write(bytes.subarray(at, at + 8192));
          if (last) await waitFor(`the watcher to load v${v}`, () => servedSummary()?.startsWith(`v${v} `));
          else await waitFor("the watcher to read the half-written file", () => failures() > before);
          await nextAnswer();
        }
        await handle.close();
      }
    })();
    const seen = await searchWhile("local", changing);
    expect(seen.size).toBeGreaterThan(1);
    // The race was real: the watcher did read the file empty or half-written, and refused it.
    const refused = logs.filter((record) => record.calendar_id === "local" && record.msg === "calendar load failed");
    expect(refused.map((record) => record.failure)).toEqual(expect.arrayContaining(["truncated"]));
    expect(refused.every((record) => record.failure === "truncated")).toBe(true);
    // The watcher (not an explicit reload) brought the final version in.
    const last = await client.searchEvents({ ...day, calendarId: "local" });
    expect(last.events[0].summary).toMatch(/^v4 /);
    expect(last.stale).toBe(false);
  });
});

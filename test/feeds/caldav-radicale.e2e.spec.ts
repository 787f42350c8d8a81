/**
 * The CalDAV reader against a real server, Radicale, through a counting
 * proxy: the first read fetches every event, each poll after it asks
 * sync-collection and transfers only what changed, a deletion costs no
 * transfer, a refused sync token costs one listing, and wrong credentials
 * fail the calendar without a word of the secret. The proxy's counts, not
 * the reader's, say what crossed the wire.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Secret } from "../../src/config/secret.js";
import {
  CalDavCollection,
  type CalDavLogEvent,
  type CalDavOptions,
  type CalDavState,
  readCalDavState,
} from "../../src/feeds/caldav-collection.js";
import { CalDavFeed } from "../../src/feeds/caldav-feed.js";
import { FeedFailure } from "../../src/feeds/feed-read.js";
import { parseCalendar } from "../../src/ics/parse-calendar.js";
import {
  type CountingProxy,
  eventResource,
  type RunningRadicale,
  skipWithoutRadicale,
  startCountingProxy,
  startRadicale,
} from "../support/radicale.js";

let radicale: RunningRadicale;
let proxy: CountingProxy;
let calendar: string;
let calendars = 0;
let logged: CalDavLogEvent[];

beforeAll(async () => {
  if (skipWithoutRadicale()) return;
  radicale = await startRadicale();
  proxy = await startCountingProxy(radicale.origin);
});
afterAll(async () => {
  await proxy?.close();
  await radicale?.stop();
});

beforeEach(async () => {
  if (skipWithoutRadicale()) return;
  calendar = `team-${++calendars}`;
  logged = [];
  await radicale.makeCalendar(calendar);
  for (const name of ["a", "b", "c", "d", "e"]) {
    expect(await radicale.put(calendar, `${name}.ics`, eventResource(`${name}@calq.test`, `event ${name}`))).toBe(201);
  }
});
afterEach(() => {
  if (proxy !== undefined) proxy.requests.length = 0;
});

/** The options of a reader of this test's calendar, through the proxy. */
function options(overrides: Partial<CalDavOptions> = {}): CalDavOptions {
  return {
    collection: new URL(radicale.calendarUrl(calendar).pathname, proxy.origin),
    credentials: { scheme: "basic", secret: new Secret(`${radicale.user}:${radicale.password}`) },
    maxBytes: 1024 * 1024,
    timeoutMs: 10_000,
    onLog: (event) => logged.push(event),
    ...overrides,
  };
}

const href = (name: string) => `/${radicale.user}/${calendar}/${name}.ics`;

/** What the proxy saw since the last call: each request as "METHOD kind", and the resources the answers carried. */
function traffic(): { requests: string[]; resources: number } {
  const seen = proxy.requests.splice(0);
  const kind = (body: string) =>
    /sync-collection/.test(body)
      ? "sync-collection"
      : /calendar-multiget/.test(body)
        ? `calendar-multiget(${body.match(/<d:href>/g)?.length})`
        : "listing";
  return {
    requests: seen.map((request) => `${request.method} ${kind(request.body)}`),
    resources: seen.reduce((sum, request) => sum + request.resources, 0),
  };
}

describe.skipIf(skipWithoutRadicale())("a CalDAV collection on Radicale", () => {
  it("fetches every event on the first read: one listing and one calendar-multiget", async () => {
    const collection = new CalDavCollection(options());
    const poll = await collection.poll();
    expect(poll).toMatchObject({ kind: "first_read", changed: true, removed: [], diagnostics: [] });
    expect([...poll.resources.keys()]).toEqual(["a", "b", "c", "d", "e"].map(href));
    expect([...poll.added.keys()]).toEqual([...poll.resources.keys()]);
    expect(poll.resources.get(href("c"))).toContain("SUMMARY:event c");
    expect(traffic()).toEqual({ requests: ["PROPFIND listing", "REPORT calendar-multiget(5)"], resources: 5 });
    expect(poll.traffic).toMatchObject({ requests: 2, resources: 5 });
  });

  it("fetches in batches of multigetBatch hrefs", async () => {
    await new CalDavCollection(options({ multigetBatch: 2 })).poll();
    expect(traffic().requests).toEqual([
      "PROPFIND listing",
      "REPORT calendar-multiget(2)",
      "REPORT calendar-multiget(2)",
      "REPORT calendar-multiget(1)",
    ]);
  });

  it("polls an unchanged calendar with one sync-collection and transfers no resource", async () => {
    const collection = new CalDavCollection(options());
    const first = await collection.poll();
    traffic();
    const poll = await collection.poll();
    expect(poll).toMatchObject({ kind: "sync_collection", changed: false, removed: [], diagnostics: [] });
    expect(poll.resources).toEqual(first.resources);
    expect(traffic()).toEqual({ requests: ["REPORT sync-collection"], resources: 0 });
  });

  it("fetches only the one event that changed: a sync-collection and a calendar-multiget of one href", async () => {
    const collection = new CalDavCollection(options());
    await collection.poll();
    traffic();
    await radicale.put(calendar, "c.ics", eventResource("c@calq.test", "event c moved", "20260106T090000Z"));
    const poll = await collection.poll();
    expect(poll).toMatchObject({ kind: "sync_collection", changed: true, removed: [] });
    expect([...poll.modified.keys()]).toEqual([href("c")]);
    expect(poll.added.size).toBe(0);
    expect(poll.resources.get(href("c"))).toContain("SUMMARY:event c moved");
    expect(poll.resources.size).toBe(5);
    expect(traffic()).toEqual({ requests: ["REPORT sync-collection", "REPORT calendar-multiget(1)"], resources: 1 });
  });

  it("reports a new event as added", async () => {
    const collection = new CalDavCollection(options());
    await collection.poll();
    await radicale.put(calendar, "f.ics", eventResource("f@calq.test", "event f"));
    const poll = await collection.poll();
    expect([...poll.added.keys()]).toEqual([href("f")]);
    expect(poll.resources.size).toBe(6);
  });

  it("reports a deleted event as removed without fetching anything", async () => {
    const collection = new CalDavCollection(options());
    await collection.poll();
    traffic();
    await radicale.remove(calendar, "b.ics");
    const poll = await collection.poll();
    expect(poll).toMatchObject({ kind: "sync_collection", changed: true, removed: [href("b")] });
    expect([...poll.resources.keys()]).toEqual(["a", "c", "d", "e"].map(href));
    expect(traffic()).toEqual({ requests: ["REPORT sync-collection"], resources: 0 });
  });

  it("lists the collection once when the server refuses the sync token, logs it, and fetches only what differs", async () => {
    const first = new CalDavCollection(options());
    await first.poll();
    const expired: CalDavState = { ...first.state(), syncToken: "http://radicale.org/ns/sync/0000expired" };
    await radicale.put(calendar, "d.ics", eventResource("d@calq.test", "event d renamed"));
    traffic();

    const collection = new CalDavCollection(options(), expired);
    const poll = await collection.poll();
    expect(poll).toMatchObject({ kind: "resync", changed: true });
    expect([...poll.modified.keys()]).toEqual([href("d")]);
    expect(logged).toEqual([{ event: "sync_token_rejected", host: proxy.origin }]);
    expect(traffic()).toEqual({ requests: ["REPORT sync-collection", "PROPFIND listing", "REPORT calendar-multiget(1)"], resources: 1 });

    expect(await collection.poll()).toMatchObject({ kind: "sync_collection", changed: false });
    expect(logged).toHaveLength(1);
  });

  it("carries on incrementally after a restart from the saved state", async () => {
    const before = new CalDavCollection(options());
    await before.poll();
    const saved = readCalDavState(JSON.parse(JSON.stringify(before.state())));
    expect(saved).toBeDefined();
    traffic();
    const after = new CalDavCollection(options(), saved);
    const poll = await after.poll();
    expect(poll).toMatchObject({ kind: "sync_collection", changed: false });
    expect(poll.resources.size).toBe(5);
    expect(traffic()).toEqual({ requests: ["REPORT sync-collection"], resources: 0 });
  });

  it("makes a resource over the resource size limit a diagnostic naming its href, and loads the others", async () => {
    await radicale.put(calendar, "big.ics", eventResource("big@calq.test", "big", undefined, "x".repeat(4000)));
    const poll = await new CalDavCollection(options({ maxResourceBytes: 2000 })).poll();
    expect(poll.resources.size).toBe(5);
    expect(poll.diagnostics).toEqual([
      { href: href("big"), problem: "too_large", detail: expect.stringContaining("2000-byte"), keptLastGood: false },
    ]);
  });

  it("fails the poll when Radicale cannot read a resource in its own storage (it answers 500), and carries on once it can", async () => {
    const collection = new CalDavCollection(options());
    await collection.poll();
    // Radicale refuses such a text on PUT; written into its storage, it breaks every listing of the collection.
    const broken = join(radicale.calendarFolder(calendar), "broken.ics");
    writeFileSync(broken, "this is not a calendar\n");
    await radicale.put(calendar, "e.ics", eventResource("e@calq.test", "event e moved"));
    const failure = await collection.poll().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ failure: "http_status", httpStatus: 500 });

    rmSync(broken);
    const poll = await collection.poll();
    expect([...poll.modified.keys()]).toEqual([href("e")]);
    expect(poll.diagnostics).toEqual([]);
  });

  it("fails the calendar on wrong credentials with a FeedFailure that holds neither the secret nor the path", async () => {
    const wrong = new CalDavCollection(
      options({ credentials: { scheme: "basic", secret: new Secret(`${radicale.user}:not-${radicale.password}`) } }),
    );
    const failure = await wrong.poll().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(FeedFailure);
    expect(failure).toMatchObject({ failure: "http_status", httpStatus: 401 });
    const text = `${(failure as Error).message} ${JSON.stringify(failure)}`;
    expect(text).toContain(proxy.origin);
    expect(text).not.toContain(radicale.password);
    expect(text).not.toContain(calendar);
  });

  it("serves the collection as one feed text that reads into every event, each line traced to its href", async () => {
    const feed = new CalDavFeed(options());
    const read = await feed.read(undefined);
    expect(read.changed).toBe(true);
    if (!read.changed) return;
    const text = Buffer.from(read.bytes).toString("utf8");
    const parsed = parseCalendar(text);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.events.map((event) => [event.summary, feed.hrefAt(event.line)])).toEqual(
      ["a", "b", "c", "d", "e"].map((name) => [`event ${name}`, href(name)]),
    );

    expect(await feed.read(read.version)).toEqual({ changed: false });
    await radicale.put(calendar, "a.ics", eventResource("a@calq.test", "event a later", "20260107T090000Z"));
    const next = await feed.read(read.version);
    expect(next.changed).toBe(true);
    expect(next.version?.digest).not.toBe(read.version.digest);
    expect(feed.lastPoll()).toMatchObject({ kind: "sync_collection", traffic: { resources: 1 } });
  });
});

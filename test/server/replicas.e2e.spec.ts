/**
 * Several calq replicas behind a balancer that sends each page anywhere:
 * a snapshot is named by its content, so any replica that read the same
 * feed continues any cursor, also after a restart; shared cursor keys
 * rotate across replicas; and a replica whose feed is behind re-reads its
 * source once before it answers CURSOR_EXPIRED. Each replica is `calq
 * serve` on a folder of its own and a real port, run in this process (a
 * replica shares nothing with another but the feed and the keys; starting
 * a process each cost most of this file's time), with a grpc-js client.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CursorSnapshot, MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { sha256Hex } from "../../src/config/secret.js";
import { type FeedServer, startFeedServer, versioned } from "../support/feed-server.js";
import { feed } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { type ServedInProcess, serveInProcess } from "../support/in-process.js";

const KEY_OLD = "an old cursor key, 32 characters";
const KEY_NEW = "a new cursor key, 32 characters!";
const replicas: ServedInProcess[] = [];
const clients: CalqGrpcClient[] = [];
const folders: string[] = [];
const servers: FeedServer[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(replicas.splice(0).map((served) => served.stop()));
  for (const server of servers.splice(0)) await server.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Twenty-four one-hour meetings on 2026-10-02, named by `version`. */
function calendar(version: string): string {
  const events = Array.from({ length: 24 }, (_, hour) => [
    `UID:meeting-${hour}@calq.test`,
    `DTSTART:20261002T${String(hour).padStart(2, "0")}0000Z`,
    "DURATION:PT1H",
    `SUMMARY:${version} meeting ${hour}`,
  ]);
  return feed(["X-WR-TIMEZONE:UTC"], ...events);
}

/** A data folder of its own (as a replica's volume would be) holding `source`, with the cursor keys named. */
function folder(source: { file: string } | { url: string }, keyVariables: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "calq-replica-"));
  folders.push(dir);
  const sourceLine = "file" in source ? "work.ics" : source.url;
  if ("file" in source) writeFileSync(join(dir, "work.ics"), source.file);
  writeFileSync(
    join(dir, "calq.yaml"),
    [
      "calendars:",
      `  - {id: work, source: "${sourceLine}", refresh: 480h, readers: [an]}`,
      "principals:",
      `  - {id: an, primary: work, tokens: ["sha256:${sha256Hex("token-an")}"]}`,
      "search:",
      `  cursor_key_env: [${keyVariables.join(", ")}]`,
    ].join("\n"),
  );
  return dir;
}

/** A replica: `calq serve` on its own folder, in this process (what is tested is the serving, not the process). */
async function replica(dir: string, env: Record<string, string>): Promise<{ served: ServedInProcess; client: CalqGrpcClient }> {
  const served = await serveInProcess(["--data", dir, "--port", "0"], env);
  replicas.push(served);
  const client = new CalqGrpcClient(served.address, "token-an");
  clients.push(client);
  return { served, client };
}

const DAY = {
  calendarId: "work",
  start: "2026-10-02T00:00:00Z",
  endExclusive: "2026-10-03T00:00:00Z",
  timezone: "UTC",
  matchMode: MatchMode.OVERLAP,
} as const;

const OLD_KEY_ONLY = { CALQ_KEY_OLD: KEY_OLD };

describe("replicas that read the same feed", () => {
  it("continue each other's cursors: round-robin paging equals one replica's answer", async () => {
    const text = calendar("v1");
    const replicas = await Promise.all([0, 1, 2].map(() => replica(folder({ file: text }, ["CALQ_KEY_OLD"]), OLD_KEY_ONLY)));
    const whole = await replicas[0].client.searchEvents({ ...DAY, limit: 100 });
    expect(whole.events).toHaveLength(24);

    const paged: string[] = [];
    const snapshots = new Set<string>();
    let cursor = "";
    for (let page = 0; ; page++) {
      const response = await replicas[page % 3].client.searchEvents({ ...DAY, limit: 5, cursor });
      paged.push(...response.events.map((event) => event.eventId));
      snapshots.add(response.snapshotId);
      expect(response.cursorSnapshot).toBe(page === 0 ? CursorSnapshot.UNSPECIFIED : CursorSnapshot.HELD);
      cursor = response.nextCursor;
      if (cursor === "") break;
    }
    expect(paged).toEqual(whole.events.map((event) => event.eventId));
    expect(snapshots).toEqual(new Set([whole.snapshotId]));
  });

  it("continue a cursor after a restart mid-paging, on the unchanged feed", async () => {
    const dir = folder({ file: calendar("v1") }, ["CALQ_KEY_OLD"]);
    const first = await replica(dir, OLD_KEY_ONLY);
    const page1 = await first.client.searchEvents({ ...DAY, limit: 10 });
    await first.served.stop();
    const restarted = await replica(dir, OLD_KEY_ONLY);
    const page2 = await restarted.client.searchEvents({ ...DAY, limit: 10, cursor: page1.nextCursor });
    expect(page2.snapshotId).toBe(page1.snapshotId);
    expect(page2.events.map((event) => event.summary)).toEqual(Array.from({ length: 10 }, (_, i) => `v1 meeting ${i + 10}`));
  });

  it("rotate a shared cursor key: a replica holding both keys reads the old key's cursors, and signs with the new one", async () => {
    const text = calendar("v1");
    const both = { CALQ_KEY_NEW: KEY_NEW, CALQ_KEY_OLD: KEY_OLD };
    const beforeRotation = await replica(folder({ file: text }, ["CALQ_KEY_OLD"]), OLD_KEY_ONLY);
    const duringRotation = await replica(folder({ file: text }, ["CALQ_KEY_NEW", "CALQ_KEY_OLD"]), both);
    const afterRotation = await replica(folder({ file: text }, ["CALQ_KEY_NEW"]), { CALQ_KEY_NEW: KEY_NEW });

    const page1 = await beforeRotation.client.searchEvents({ ...DAY, limit: 8 });
    // Signed with the old key, read by a replica that has both, which signs page 2's cursor with the new key.
    const page2 = await duringRotation.client.searchEvents({ ...DAY, limit: 8, cursor: page1.nextCursor });
    const page3 = await afterRotation.client.searchEvents({ ...DAY, limit: 8, cursor: page2.nextCursor });
    expect([...page1.events, ...page2.events, ...page3.events].map((event) => event.summary)).toEqual(
      Array.from({ length: 24 }, (_, i) => `v1 meeting ${i}`),
    );
    // Once the old key is gone, its cursors expire instead of being read as forged.
    const failure = await failureOf(afterRotation.client.searchEvents({ ...DAY, limit: 8, cursor: page1.nextCursor }));
    expect(failure.errorInfo?.reason).toBe("CURSOR_EXPIRED");
  });

  it("re-read the source once when a cursor names a version they have not read yet, and say so", async () => {
    const provider = await startFeedServer(versioned(calendar("v1"), "1"));
    servers.push(provider);
    const behind = await replica(folder({ url: provider.url }, ["CALQ_KEY_OLD"]), OLD_KEY_ONLY);
    provider.answer(versioned(calendar("v2"), "2"));
    const ahead = await replica(folder({ url: provider.url }, ["CALQ_KEY_OLD"]), OLD_KEY_ONLY);

    const page1 = await ahead.client.searchEvents({ ...DAY, limit: 12 });
    expect(page1.events[0].summary).toBe("v2 meeting 0");
    const page2 = await behind.client.searchEvents({ ...DAY, limit: 12, cursor: page1.nextCursor });
    expect(page2.cursorSnapshot).toBe(CursorSnapshot.RECHECKED);
    expect(page2.snapshotId).toBe(page1.snapshotId);
    expect(page2.events.map((event) => event.summary)).toEqual(Array.from({ length: 12 }, (_, i) => `v2 meeting ${i + 12}`));

    // A version the source no longer serves is gone for good: CURSOR_EXPIRED after that one look.
    provider.answer(versioned(calendar("v3"), "3"));
    const third = await replica(folder({ url: provider.url }, ["CALQ_KEY_OLD"]), OLD_KEY_ONLY);
    const failure = await failureOf(third.client.searchEvents({ ...DAY, limit: 12, cursor: page1.nextCursor }));
    expect(failure.errorInfo?.reason).toBe("CURSOR_EXPIRED");
  });
});

/**
 * The sharded set behind a real load balancer: two shard groups of two
 * `calq serve` processes each, behind nginx routing gRPC on the
 * x-calq-shard-group header and hashing x-calq-shard-key consistently
 * within the group. A call reaches its group; a search pages on one
 * replica, and when that replica is killed mid-paging the next pages come
 * from the other replica of its group, continuing the cursor; `calq search`
 * and the gateway's client find the group by themselves; a question over
 * both groups is refused. Real processes, real ports, a grpc-js client.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CursorSnapshot, MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { sha256Hex } from "../../src/config/secret.js";
import { rendezvousGroup } from "../../src/config/shard-map.js";
import { asCaller, createCalqClient } from "../../src/gateway/calq-client.js";
import { CALQ, killed, spawnNode, startCalqServe } from "../support/calq-process.js";
import { feed } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, grpc } from "../support/grpc-client.js";
import { type RunningNginx, startNginx } from "../support/nginx.js";
import { describeWith } from "../support/system-program.js";
import { waitFor } from "../support/wait-for.js";

interface Replica {
  readonly group: string;
  readonly address: string;
  readonly child: ChildProcess;
  /** The SearchEvents calls this replica answered, from its RPC log. */
  searches(): number;
}

const replicas: Replica[] = [];
const clients: CalqGrpcClient[] = [];
let balancer: RunningNginx | undefined;
let dir: string;

/** Twenty-four one-hour meetings on 2026-10-02 in `calendarId`. */
function calendar(calendarId: string): string {
  const events = Array.from({ length: 24 }, (_, hour) => [
    `UID:${calendarId}-${hour}@calq.test`,
    `DTSTART:20261002T${String(hour).padStart(2, "0")}0000Z`,
    "DURATION:PT1H",
    `SUMMARY:${calendarId} meeting ${hour}`,
  ]);
  return feed(["X-WR-TIMEZONE:UTC"], ...events);
}

async function startReplica(group: string): Promise<Replica> {
  const { child, address } = await startCalqServe(["--data", dir, "--port", "0", "--shard-group", group], {
    CALQ_CURSOR_KEY: "one cursor key that every replica shares",
  });
  let log = "";
  child.stderr!.on("data", (chunk) => (log += chunk));
  const searches = () =>
    log.split("\n").filter((line) => line.includes('"msg":"rpc"') && line.includes('"method":"calq.v1.CalendarService/SearchEvents"'))
      .length;
  return { group, address, child, searches };
}

const client = (headers: Record<string, string> = {}) => {
  const made = new CalqGrpcClient(balancer!.address, "token-an", headers);
  clients.push(made);
  return made;
};

const DAY = {
  start: "2026-10-02T00:00:00Z",
  endExclusive: "2026-10-03T00:00:00Z",
  timezone: "UTC",
  matchMode: MatchMode.OVERLAP,
} as const;

/** binh-home lives in g2, an-work in g1: the balancer sends calls without a group header to g1. */
const TO_BINH_HOME = { "x-calq-shard-group": "g2", "x-calq-shard-key": "binh" };

describeWith(["nginx"], "two shard groups of two replicas behind nginx", ({ nginx }) => {
  beforeAll(async () => {
    expect([rendezvousGroup("an", ["g1", "g2"]), rendezvousGroup("binh", ["g1", "g2"])]).toEqual(["g1", "g2"]);
    dir = mkdtempSync(join(tmpdir(), "calq-shards-"));
    writeFileSync(join(dir, "an-work.ics"), calendar("an-work"));
    writeFileSync(join(dir, "binh-home.ics"), calendar("binh-home"));
    writeFileSync(
      join(dir, "calq.yaml"),
      [
        "shards: {groups: [g1, g2]}",
        "calendars:",
        "  - {id: an-work, source: an-work.ics, shard_key: an, readers: [an], refresh: 480h}",
        "  - {id: binh-home, source: binh-home.ics, shard_key: binh, readers: [an, binh], refresh: 480h}",
        "principals:",
        `  - {id: an, primary: an-work, tokens: ["sha256:${sha256Hex("token-an")}"]}`,
        `  - {id: binh, primary: binh-home, tokens: ["sha256:${sha256Hex("token-binh")}"]}`,
        "search: {cursor_key_env: [CALQ_CURSOR_KEY]}",
      ].join("\n"),
    );
    // One at a time: four Node processes starting at once on two cores take longer than one after another.
    for (const group of ["g1", "g1", "g2", "g2"]) replicas.push(await startReplica(group));
    const groups = new Map(["g1", "g2"].map((group) => [group, replicas.filter((r) => r.group === group).map((r) => r.address)]));
    balancer = await startNginx(nginx, groups, "g1");
  }, 180_000);

  afterAll(async () => {
    for (const made of clients.splice(0)) made.close();
    await balancer?.stop();
    await Promise.all(replicas.map((replica) => killed(replica.child)));
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("lists every calendar with its group from any replica, and answers each calendar in its own group", async () => {
    const listed = await client().listCalendars();
    expect(listed.calendars.map(({ id, shardGroup, shardKey }) => `${id} ${shardGroup} ${shardKey}`)).toEqual([
      "an-work g1 an",
      "binh-home g2 binh",
    ]);
    const inG1 = await client({ "x-calq-shard-group": "g1", "x-calq-shard-key": "an" }).searchEvents({ ...DAY, calendarId: "an-work" });
    const inG2 = await client(TO_BINH_HOME).searchEvents({ ...DAY, calendarId: "binh-home" });
    expect([inG1.events[0].summary, inG2.events[0].summary]).toEqual(["an-work meeting 0", "binh-home meeting 0"]);
  });

  it("sends a call without the group header to the default group, whose replica names the group to send", async () => {
    const failure = await failureOf(client().searchEvents({ ...DAY, calendarId: "binh-home" }));
    expect(failure.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(failure.errorInfo?.reason).toBe("CALENDAR_IN_OTHER_SHARD_GROUP");
    expect(failure.errorInfo?.metadata).toMatchObject({ shard_group: "g2", shard_key: "binh", group_header: "x-calq-shard-group" });
  });

  it("refuses free/busy over calendars of both groups, whichever group the balancer picks", async () => {
    for (const headers of [{}, TO_BINH_HOME]) {
      const failure = await failureOf(
        client(headers).queryFreeBusy({
          calendarIds: ["an-work", "binh-home"],
          start: "2026-10-02",
          endExclusive: "2026-10-03",
          timezone: "UTC",
        }),
      );
      expect(failure.errorInfo?.reason).toBe("CALENDARS_SPAN_SHARD_GROUPS");
    }
  });

  it("keeps a search's pages on one replica of the group, and continues the cursor on the other when that one is killed", async () => {
    const routed = client(TO_BINH_HOME);
    const whole = await routed.searchEvents({ ...DAY, calendarId: "binh-home", limit: 100 });
    expect(whole.events).toHaveLength(24);
    const g2 = replicas.filter((replica) => replica.group === "g2");
    const before = g2.map((replica) => replica.searches());
    const g1Searches = () => replicas.filter((replica) => replica.group === "g1").reduce((sum, replica) => sum + replica.searches(), 0);
    const g1Before = g1Searches();

    const page1 = await routed.searchEvents({ ...DAY, calendarId: "binh-home", limit: 5 });
    const page2 = await routed.searchEvents({ ...DAY, calendarId: "binh-home", limit: 5, cursor: page1.nextCursor });
    await until(() => g2.reduce((sum, replica, i) => sum + replica.searches() - before[i], 0) === 2);
    // The consistent hash on the shard key sent both pages to the same replica.
    const serving = g2.find((replica, i) => replica.searches() - before[i] === 2);
    expect(serving).toBeDefined();
    const other = g2.find((replica) => replica !== serving)!;
    const otherBefore = other.searches();

    await killed(serving!.child);
    const rest = [page1, page2];
    let cursor = page2.nextCursor;
    while (cursor !== "") {
      const page = await routed.searchEvents({ ...DAY, calendarId: "binh-home", limit: 5, cursor });
      expect(page.cursorSnapshot).toBe(CursorSnapshot.HELD);
      expect(page.snapshotId).toBe(whole.snapshotId);
      rest.push(page);
      cursor = page.nextCursor;
    }
    expect(rest.flatMap((page) => page.events.map((event) => event.eventId))).toEqual(whole.events.map((event) => event.eventId));
    await until(() => other.searches() - otherBefore === rest.length - 2);
    // No page went to the other group.
    expect(g1Searches()).toBe(g1Before);
  });

  it("lets `calq search` find the calendar's group by itself and page through it", async () => {
    const child = spawnNode(
      [CALQ, "search", "--calendar", "binh-home", "--start", "2026-10-02", "--end-exclusive", "2026-10-03", "--timezone", "UTC"].concat([
        "--mode",
        "overlap",
        "--limit",
        "10",
        "--all",
        "--json",
      ]),
      { CALQ_ADDRESS: balancer!.address, CALQ_TOKEN: "token-an" },
    );
    let out = "";
    let err = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.stderr!.on("data", (chunk) => (err += chunk));
    const status = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(err).toBe("");
    expect(status).toBe(0);
    const pages = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { events?: unknown[] });
    expect(pages.flatMap((page) => page.events ?? [])).toHaveLength(24);
  });

  it("lets the gateway's client find the group of the caller's primary calendar by itself", async () => {
    const gatewayClient = createCalqClient(`http://${balancer!.address}`);
    const found = await gatewayClient.searchEvents({ ...DAY, calendarId: "primary" }, asCaller("token-binh"));
    expect(found.query?.calendarId).toBe("binh-home");
    expect(found.events).toHaveLength(20);
  });
});

/** Waits for a replica's log to catch up with what its client already saw (a log line may trail its answer). */
async function until(condition: () => boolean): Promise<void> {
  await waitFor("the replicas' logs to show the calls", condition);
}

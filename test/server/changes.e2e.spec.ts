/**
 * What changed since the caller last looked, over gRPC: ListChanges' first
 * call gives only a token; after the feed changes, the token gives each
 * added, changed and removed event once (a series once, with the span it
 * covered before and after), a page at a time, and a new token; tokens are
 * bound to the caller and the calendars, and one naming data the server no
 * longer remembers is refused with its own reason. WatchChanges sends a
 * notice per new snapshot, merges what a slow reader has not taken, is
 * capped per caller, and ends when the server drains.
 */
import type { ClientReadableStream } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeKind, type WatchChangesResponse } from "../../gen/calq/v1/calendar_service_pb.js";
import type { CursorKey } from "../../src/search/cursor.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const standup = vevent("UID:standup", "DTSTART:20261130T020000Z", "DURATION:PT15M", "RRULE:FREQ=WEEKLY;BYDAY=MO", "SUMMARY:Stand-up");
const review = vevent("UID:review", "DTSTART:20261201T030000Z", "DTEND:20261201T040000Z", "SUMMARY:Review");
const lunch = vevent("UID:lunch", "DTSTART:20261202T050000Z", "DTEND:20261202T060000Z", "SUMMARY:Lunch");
const feedOf = (...events: string[][]) => ics("X-WR-TIMEZONE:Asia/Ho_Chi_Minh", ...events.flat());
/** The same keys for every server of the file, so a restarted server reads the tokens of the one before. */
const cursorKeys: CursorKey[] = [{ id: "test", secret: new Uint8Array(32).fill(9) }];

function start(work: string): Promise<TestServer> {
  return startTestServer({
    calendars: { work, home: feedOf(lunch) },
    config: {
      calendars: [
        { id: "work", source: "work.ics", readers: ["an", "binh"] },
        { id: "home", source: "home.ics", readers: ["an"] },
      ],
      principals: [
        { id: "an", primary: "work", tokens: ["token-an"] },
        { id: "binh", tokens: ["token-binh"] },
      ],
    },
    serve: { cursorKeys },
  });
}

let served: TestServer;
let an: CalqGrpcClient;

beforeAll(async () => {
  served = await start(feedOf(standup, review));
  an = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  an.close();
  await served.close();
});

/** Rewrites the work calendar and reloads it. */
async function change(...events: string[][]): Promise<void> {
  served.writeCalendar("work", feedOf(...events));
  await served.server.store.reload("work");
}

describe("ListChanges", () => {
  it("answers a first call with a token only, then what changed since it: each event once, a series once", async () => {
    const first = await an.listChanges({ calendarIds: ["work", "home"] });
    expect(first.changes).toEqual([]);
    expect(first.changeToken).not.toBe("");
    expect(first.nextPageToken).toBe("");

    const moved = vevent("UID:review", "DTSTART:20261201T070000Z", "DTEND:20261201T080000Z", "SUMMARY:Review (moved)");
    const override = vevent(
      "UID:standup",
      "RECURRENCE-ID:20261207T020000Z",
      "DTSTART:20261207T030000Z",
      "DURATION:PT15M",
      "SUMMARY:Stand-up",
    );
    const added = vevent("UID:retro", "DTSTART:20261203T020000Z", "DTEND:20261203T030000Z", "SUMMARY:Retro");
    await change(standup, override, moved, added);

    const answer = await an.listChanges({ calendarIds: ["home", "work"], changeToken: first.changeToken, timezone: "Asia/Ho_Chi_Minh" });
    const byKind = answer.changes.map((each) => [each.summary, ChangeKind[each.kind], each.recurring]);
    expect(byKind.sort()).toEqual([
      ["Retro", "ADDED", false],
      ["Review (moved)", "CHANGED", false],
      ["Stand-up", "CHANGED", true],
    ]);
    const review = answer.changes.find((each) => each.summary === "Review (moved)")!;
    expect([review.before?.startLocal, review.after?.startLocal]).toEqual(["2026-12-01T10:00:00+07:00", "2026-12-01T14:00:00+07:00"]);
    const series = answer.changes.find((each) => each.recurring)!;
    // A series without end: its span has no end.
    expect(series.after?.endTime).toBeUndefined();
    expect(series.after?.endLocal).toBe("");
    expect(answer.changeToken).not.toBe("");

    // Each calendar says which snapshot the changes lead to, and when its source was last checked and last changed.
    const work = answer.calendars.find((calendar) => calendar.calendarId === "work")!;
    expect(work.snapshotId).toBe(served.server.store.view("work")?.snapshot?.id);
    expect(work.freshness?.checkedTime).toBeDefined();
    expect(work.freshness?.changedTime).toBeDefined();

    // Nothing since the new token.
    const again = await an.listChanges({ calendarIds: ["work", "home"], changeToken: answer.changeToken });
    expect(again.changes).toEqual([]);
  });

  it("pages the changes, the last page giving the new token, and reports a removed event", async () => {
    const { changeToken } = await an.listChanges({ calendarIds: ["work"] });
    await change(lunch);
    const summaries: string[] = [];
    let pageToken = "";
    let token = "";
    for (let pages = 0; pages < 10 && token === ""; pages++) {
      const page = await an.listChanges({ calendarIds: ["work"], changeToken, pageSize: 1, pageToken });
      expect(page.changes.length).toBeLessThanOrEqual(1);
      summaries.push(...page.changes.map((each) => `${each.summary} ${ChangeKind[each.kind]}`));
      pageToken = page.nextPageToken;
      token = page.changeToken;
      expect(pageToken === "" || token === "").toBe(true);
    }
    expect(summaries.sort()).toEqual(["Lunch ADDED", "Retro REMOVED", "Review (moved) REMOVED", "Stand-up REMOVED"]);
    expect(token).not.toBe("");
  });

  it("refuses a token sent by another caller or for other calendars", async () => {
    const { changeToken } = await an.listChanges({ calendarIds: ["work"] });
    const binh = new CalqGrpcClient(served.address, "token-binh");
    const byBinh = await failureOf(binh.listChanges({ calendarIds: ["work"], changeToken }));
    binh.close();
    expect(byBinh.errorInfo?.reason).toBe("INVALID_CHANGE_TOKEN");
    const otherSet = await failureOf(an.listChanges({ calendarIds: ["work", "home"], changeToken }));
    expect(otherSet.errorInfo?.reason).toBe("INVALID_CHANGE_TOKEN");
  });

  it("refuses a token naming data a restarted server never saw, with its own reason", async () => {
    const { changeToken } = await an.listChanges({ calendarIds: ["work"] });
    await change(standup);
    const restarted = await start(feedOf(review));
    const client = new CalqGrpcClient(restarted.address, "token-an");
    try {
      const refused = await failureOf(client.listChanges({ calendarIds: ["work"], changeToken }));
      expect(refused.errorInfo?.reason).toBe("CHANGE_TOKEN_EXPIRED");
      expect(refused.message).toContain("take a new one");
    } finally {
      client.close();
      await restarted.close();
    }
  });
});

/** The notices of a stream as they come, and a way to wait for the next one. */
function notices(stream: ClientReadableStream<WatchChangesResponse>) {
  const arrived: WatchChangesResponse[] = [];
  let waiting: (() => void) | undefined;
  let ended = false;
  stream.on("data", (notice: WatchChangesResponse) => {
    arrived.push(notice);
    waiting?.();
  });
  const end = () => {
    ended = true;
    waiting?.();
  };
  stream.on("end", end);
  stream.on("error", end);
  return {
    arrived,
    get ended() {
      return ended;
    },
    /** Resolves once `count` notices have arrived, or the stream ended. */
    async until(count: number): Promise<void> {
      while (arrived.length < count && !ended) await new Promise<void>((resolve) => (waiting = resolve));
    },
  };
}

describe("WatchChanges", () => {
  it("gives the snapshot each calendar is at, then a notice per new snapshot with what it changed", async () => {
    await change(review);
    const stream = an.watchChanges({ calendarIds: ["work"] });
    const seen = notices(stream);
    await seen.until(1);
    expect(seen.arrived[0]).toMatchObject({ calendarId: "work", added: 0, changed: 0, removed: 0 });
    await change(lunch, review);
    await seen.until(2);
    expect(seen.arrived[1]).toMatchObject({ calendarId: "work", added: 1, changed: 0, removed: 0 });
    expect(seen.arrived[1].snapshotId).toBe(served.server.store.view("work")?.snapshot?.id);
    stream.cancel();
  });

  it("gives a reader that paused the calendar's latest snapshot once it reads again", async () => {
    await change(review);
    const stream = an.watchChanges({ calendarIds: ["work"] });
    const seen = notices(stream);
    await seen.until(1);
    stream.pause();
    await change(lunch);
    await change(lunch, standup);
    await change(lunch, standup, review);
    const latest = served.server.store.view("work")?.snapshot?.id;
    stream.resume();
    while (seen.arrived.at(-1)?.snapshotId !== latest) await seen.until(seen.arrived.length + 1);
    expect(seen.arrived.length).toBeGreaterThanOrEqual(2);
    stream.cancel();
  });

  it("refuses a fifth stream of one caller, and ends every stream when the server drains", async () => {
    const server = await start(feedOf(review));
    const client = new CalqGrpcClient(server.address, "token-an");
    const streams = Array.from({ length: 4 }, () => notices(client.watchChanges({ calendarIds: ["work"] })));
    await Promise.all(streams.map((each) => each.until(1)));
    const fifth = client.watchChanges({ calendarIds: ["work"] });
    const refused = await new Promise<Error>((resolve) => fifth.on("error", resolve));
    expect(refused.message).toContain("as many as one caller may");
    await server.close();
    await Promise.all(streams.map((each) => each.until(Number.POSITIVE_INFINITY)));
    expect(streams.every((each) => each.ended)).toBe(true);
    client.close();
  });
});

/**
 * A CalDAV calendar served by `calq serve` (in this process, stopped and
 * started again as a replica is), against a real Radicale: the
 * collection and the variable holding its credentials in calq.yaml (never
 * the secret itself), the first read fetching every event, a change made on
 * the server found by the next reload and reported by ListChanges, the sync
 * state kept in the data folder so a restarted calq reads on incrementally,
 * and a wrong password failing the load without the secret in any answer.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeKind, MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { sha256Hex } from "../../src/config/secret.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { serveInProcess } from "../support/in-process.js";
import { eventResource, type RunningRadicale, skipWithoutRadicale, startRadicale } from "../support/radicale.js";

const skip = skipWithoutRadicale();
let radicale: RunningRadicale;
let dir: string;

beforeAll(async () => {
  if (skip) return;
  radicale = await startRadicale();
  await radicale.makeCalendar("work");
  await radicale.put("work", "standup.ics", eventResource("standup", "Stand-up", "20261201T020000Z"));
  await radicale.put("work", "review.ics", eventResource("review", "Design review", "20261202T030000Z"));
  dir = mkdtempSync(join(tmpdir(), "calq-caldav-serve-"));
  writeFileSync(
    join(dir, "calq.yaml"),
    [
      "calendars:",
      `  - {id: work, source: {caldav: "${radicale.calendarUrl("work").href}", credentials: {basic_env: WORK_CALDAV}}, refresh: 480h, readers: [an]}`,
      "principals:",
      `  - {id: an, primary: work, tokens: ["sha256:${sha256Hex("token-an")}"]}`,
      `  - {id: ops, tokens: ["sha256:${sha256Hex("token-ops")}"], capabilities: [calendar.admin]}`,
    ].join("\n"),
  );
});

afterAll(async () => {
  if (skip) return;
  await radicale.stop();
  rmSync(dir, { recursive: true, force: true });
});

const week = { start: "2026-11-30", endExclusive: "2026-12-07", timezone: "UTC", matchMode: MatchMode.OVERLAP, limit: 20 };

describe.skipIf(skip)("a CalDAV calendar", () => {
  it("is served from Radicale, follows its changes, and reads on from its saved state after a restart", async () => {
    const env = { WORK_CALDAV: `${radicale.user}:${radicale.password}` };
    const first = await serveInProcess(["--data", dir, "--port", "0"], env);
    const an = new CalqGrpcClient(first.address, "token-an");
    try {
      const page = await an.searchEvents({ calendarId: "work", ...week });
      expect(page.events.map((event) => event.summary).sort()).toEqual(["Design review", "Stand-up"]);
      const { changeToken } = await an.listChanges({ calendarIds: ["work"] });

      await radicale.put("work", "review.ics", eventResource("review", "Design review", "20261202T070000Z"));
      await radicale.remove("work", "standup.ics");
      await an.reloadCalendar("work", "token-ops");
      const changes = await an.listChanges({ calendarIds: ["work"], changeToken });
      expect(changes.changes.map((change) => [change.summary, ChangeKind[change.kind]]).sort()).toEqual([
        ["Design review", "CHANGED"],
        ["Stand-up", "REMOVED"],
      ]);
      // The sync state is kept beside the calendars, with no secret in it.
      const saved = readdirSync(join(dir, ".calq-state"));
      expect(saved).toEqual(["work.caldav.json"]);
    } finally {
      an.close();
      await first.stop();
    }

    // A restarted calq starts from the saved state: its first read asks only what changed since, without listing the collection.
    await radicale.put("work", "retro.ics", eventResource("retro", "Retro", "20261203T020000Z"));
    const logged = radicale.log().length;
    const second = await serveInProcess(["--data", dir, "--port", "0"], env);
    const again = new CalqGrpcClient(second.address, "token-an");
    try {
      const page = await again.searchEvents({ calendarId: "work", ...week });
      expect(page.events.map((event) => event.summary).sort()).toEqual(["Design review", "Retro"]);
      const requests = radicale
        .log()
        .slice(logged)
        .split("\n")
        .filter((line) => line.includes("request for '/alice/work/'"));
      expect(requests.some((line) => line.includes("REPORT request"))).toBe(true);
      expect(requests.some((line) => line.includes("PROPFIND request"))).toBe(false);
      const status = await again.getCalendarStatus("work", "token-ops");
      expect(status.calendars[0]).toMatchObject({ calendarId: "work", consecutiveFailures: 0 });
    } finally {
      again.close();
      await second.stop();
    }
  });

  it("fails its load on a wrong password, naming neither the password nor the path in any answer", async () => {
    const env = { WORK_CALDAV: `${radicale.user}:wrong-${radicale.password}` };
    rmSync(join(dir, ".calq-state"), { recursive: true, force: true });
    const served = await serveInProcess(["--data", dir, "--port", "0"], env);
    const ops = new CalqGrpcClient(served.address, "token-ops");
    try {
      const status = await ops.getCalendarStatus("work");
      const text = JSON.stringify(status, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value));
      expect(status.calendars[0].lastFailure?.httpStatus).toBe(401);
      expect(text).not.toContain(radicale.password);
      expect(text).not.toContain("/alice/work");
    } finally {
      ops.close();
      await served.stop();
    }
  });
});

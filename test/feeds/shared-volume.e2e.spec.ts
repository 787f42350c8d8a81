/**
 * Two replicas on one shared folder (a volume both mount): an import through
 * one replica is served by the other once its folder watch sees the rename,
 * and a reader never sees a torn file, only one whole version or the next.
 * Each replica is `calq serve` on real ports, run in this process: they
 * share nothing but the folder, as two processes would.
 */
import { rmSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { adminDataFolder, feed } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { type ServedInProcess, serveInProcess } from "../support/in-process.js";
import { waitFor } from "../support/wait-for.js";

const EVENTS_PER_VERSION = 40;
const replicas: ServedInProcess[] = [];
const clients: CalqGrpcClient[] = [];
let dir: string;

/** A calendar whose every event is named after its version: a torn file would show two names, or too few events. */
function version(name: string): string {
  const events = Array.from({ length: EVENTS_PER_VERSION }, (_, i) => [
    `UID:event-${i}@calq.test`,
    `DTSTART:20261002T${String(i % 24).padStart(2, "0")}0000Z`,
    "DURATION:PT30M",
    `SUMMARY:${name}`,
    `DESCRIPTION:${"z".repeat(2048)}`,
  ]);
  return feed(["X-WR-TIMEZONE:UTC"], ...events);
}

beforeEach(() => {
  dir = adminDataFolder("calq-shared-", version("v0"));
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(replicas.splice(0).map((served) => served.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function replica(): Promise<CalqGrpcClient> {
  const served = await serveInProcess(["--data", dir, "--port", "0"], {});
  replicas.push(served);
  const client = new CalqGrpcClient(served.address, "token-an");
  clients.push(client);
  return client;
}

/** The version names B serves now, one per event. */
async function servedVersions(client: CalqGrpcClient): Promise<string[]> {
  const response = await client.searchEvents({
    calendarId: "work",
    start: "2026-10-02T00:00:00Z",
    endExclusive: "2026-10-03T00:00:00Z",
    timezone: "UTC",
    matchMode: MatchMode.OVERLAP,
    limit: 100,
  });
  return response.events.map((event) => event.summary);
}

describe("two replicas on one folder", () => {
  it("serve an import made through the other, picked up by the folder watch, and never a torn version", async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    expect(new Set(await servedVersions(b))).toEqual(new Set(["v0"]));

    const seen: string[][] = [];
    let polling = true;
    // Searches B back to back, each one awaited, for as long as the imports go on.
    const poller = (async () => {
      while (polling) seen.push(await servedVersions(b));
    })();
    try {
      for (let n = 1; n <= 5; n++) {
        await a.importCalendar({ calendarId: "work", ics: new TextEncoder().encode(version(`v${n}`)) });
        // B picks the new file up from its folder watch, not from A (how soon: bench/bounds.ts).
        await waitFor(`B to serve v${n}`, async () => (await servedVersions(b)).includes(`v${n}`));
      }
    } finally {
      polling = false;
      await poller;
    }
    // Every answer B gave was one whole version: all its events, one name.
    expect(seen.length).toBeGreaterThan(5);
    for (const answer of seen) {
      expect(answer).toHaveLength(EVENTS_PER_VERSION);
      expect(new Set(answer).size).toBe(1);
    }
    expect(new Set(await servedVersions(b))).toEqual(new Set(["v5"]));
  });
});

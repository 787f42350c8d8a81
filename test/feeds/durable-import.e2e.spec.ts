/**
 * An import killed mid-write leaves the old file or the new one, never a torn
 * mix, and calq starts on whatever is there. Real processes, real SIGKILL.
 */
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { killed, spawnNode, startCalqServe, waitForOutput } from "../support/calq-process.js";
import { adminDataFolder, feed } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";

const children: ChildProcess[] = [];
let dir: string;

/** A calendar whose every event is named after its version, padded to `kib` KiB. */
function version(name: string, kib = 1): string {
  return feed(
    ["X-WR-TIMEZONE:UTC"],
    ["UID:one@calq.test", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", `SUMMARY:${name}`, `DESCRIPTION:${"z".repeat(kib * 1024)}`],
  );
}

beforeEach(() => {
  dir = adminDataFolder("calq-import-", version("old"));
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[]): ChildProcess {
  const child = spawnNode(args);
  children.push(child);
  return child;
}

async function serve(): Promise<{ server: ChildProcess; client: CalqGrpcClient }> {
  const { child, address } = await startCalqServe(["--data", dir, "--port", "0"]);
  children.push(child);
  return { server: child, client: new CalqGrpcClient(address, "token-an") };
}

/** Starts `calq serve` on the folder and returns the served summary of the work calendar. */
async function servedSummary(): Promise<string> {
  const { server, client } = await serve();
  try {
    const response = await client.searchEvents({
      calendarId: "work",
      start: "2026-10-02T00:00:00Z",
      endExclusive: "2026-10-03T00:00:00Z",
      timezone: "UTC",
      matchMode: MatchMode.OVERLAP,
    });
    return response.events.map((event) => event.summary).join();
  } finally {
    client.close();
    await killed(server);
  }
}

describe("a durable import", () => {
  it("killed between write and rename leaves the old file, and calq starts on it", async () => {
    writeFileSync(join(dir, "upload.ics"), version("new"));
    const writer = start(["bin/run-ts.mjs", "test/support/write-and-hang.ts", join(dir, "work.ics"), join(dir, "upload.ics")]);
    await waitForOutput(writer, /synced, about to rename/);
    await killed(writer);

    expect(readFileSync(join(dir, "work.ics"), "utf8")).toBe(version("old"));
    // The synced temporary file is there, whole, and is not a calendar calq reads.
    const leftovers = readdirSync(dir).filter((name) => name.endsWith(".tmp"));
    expect(leftovers).toHaveLength(1);
    expect(readFileSync(join(dir, leftovers[0]), "utf8")).toBe(version("new"));
    expect(await servedSummary()).toBe("old");
    // calq serve cleared the interrupted write's leftover when it started.
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("killed at random moments of a real ImportCalendar leaves the old file or the new one, never a torn one", async () => {
    const old = version("old");
    const fresh = version("new", 4 * 1024);
    // The last round waits for the answer before the kill: then it must be the new file.
    for (const delayMs of [0, 10, 50, 150, "answered"] as const) {
      writeFileSync(join(dir, "work.ics"), old);
      const { server, client } = await serve();
      const call = client.importCalendar({ calendarId: "work", ics: Buffer.from(fresh) });
      const settled = call.then(
        () => "answered",
        () => "cut off",
      );
      if (delayMs === "answered") expect(await settled).toBe("answered");
      else await new Promise((resolve) => setTimeout(resolve, delayMs));
      await killed(server);
      await settled;
      client.close();

      const onDisk = readFileSync(join(dir, "work.ics"), "utf8");
      expect([old, fresh]).toContain(onDisk);
      if (delayMs === "answered") expect(onDisk).toBe(fresh);
    }
    expect(await servedSummary()).toBe("new");
  }, 60_000);
});

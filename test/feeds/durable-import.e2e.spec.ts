/**
 * An import killed mid-write leaves the old file or the new one, never a torn
 * mix, and calq starts on whatever is there. Real processes, real SIGKILL.
 */
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { assertNever } from "../../src/exhaustive.js";
import { killed, spawnNode, startCalqServe, waitForOutput } from "../support/calq-process.js";
import { adminDataFolder, feed } from "../support/feeds.js";
import { CalqGrpcClient } from "../support/grpc-client.js";
import { serveInProcess } from "../support/in-process.js";

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

/** Starts `calq serve` on the folder (in this process: what matters is what it reads from disk) and returns the served summary of the work calendar. */
async function servedSummary(): Promise<string> {
  const served = await serveInProcess(["--data", dir, "--port", "0"], {});
  const client = new CalqGrpcClient(served.address, "token-an");
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
    await served.stop();
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

  it("killed at moments of a real ImportCalendar leaves the old file or the new one, never a torn one", async () => {
    const old = version("old");
    const fresh = version("new", 4 * 1024);
    // The moments come from what the folder shows, not from the clock: as soon as the call is sent,
    // when the temporary file appears (the write under way), when the calendar's own name changes
    // (the rename), and after the answer, when it must be the new file. A moment the import outran
    // is a kill after it: the file must then be whole too.
    for (const moment of ["sent", "temporary file", "rename", "answered"] as const) {
      writeFileSync(join(dir, "work.ics"), old);
      const { server, client } = await serve();
      const folder = watch(dir);
      const named = (wanted: (name: string) => boolean) =>
        new Promise<void>((resolve) => folder.on("change", (_event, name) => wanted(String(name)) && resolve()));
      const call = client.importCalendar({ calendarId: "work", ics: Buffer.from(fresh) });
      const settled = call.then(
        () => "answered",
        () => "cut off",
      );
      switch (moment) {
        case "sent":
          break;
        case "temporary file":
          await Promise.race([named((name) => name.endsWith(".tmp")), settled]);
          break;
        case "rename":
          await Promise.race([named((name) => name === "work.ics"), settled]);
          break;
        case "answered":
          expect(await settled).toBe("answered");
          break;
        default:
          assertNever(moment, "kill moment");
      }
      await killed(server);
      folder.close();
      await settled;
      client.close();

      const onDisk = readFileSync(join(dir, "work.ics"), "utf8");
      expect([old, fresh]).toContain(onDisk);
      if (moment === "answered") expect(onDisk).toBe(fresh);
    }
    expect(await servedSummary()).toBe("new");
  }, 180_000);
});

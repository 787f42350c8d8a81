/**
 * The embedded registry keeps what it acknowledged and reads nothing
 * half-written: a writer killed with SIGKILL mid-write (during appends and
 * during compactions) loses no acknowledged change; a torn or damaged tail
 * is cut off at open; a compacted journal holds the same rows, change
 * numbers and audit log; and one process at a time opens a folder.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CalendarRegistry, openRegistry } from "../../src/registry/index.js";

const ROOT = join(import.meta.dirname, "..", "..");
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function registryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "calq-embedded-"));
  folders.push(folder);
  return join(folder, "registry");
}

const open = (folder: string, extra: { compactAfterBytes?: number } = {}) =>
  openRegistry({ engine: "embedded", folder, groups: ["g1", "g2"], ...extra });

const ADMIN = { by: "admin-an" };
const calendar = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  source: { kind: "http", url: `https://calendar.example.com/${id}.ics` },
  readers: ["an"],
  ...extra,
});

/** Runs the writer child until it has acknowledged `count` more calendars, then kills it with SIGKILL; answers the ids it acknowledged. */
async function killWriterAfter(folder: string, count: number, compactAfterBytes?: number): Promise<string[]> {
  const args = [join(ROOT, "bin", "run-ts.mjs"), join(ROOT, "test", "registry", "fixtures", "embedded-writer.ts"), folder];
  if (compactAfterBytes !== undefined) args.push(String(compactAfterBytes));
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const acknowledged: string[] = [];
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    let buffered = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      acknowledged.push(...lines);
      if (acknowledged.length >= count && child.exitCode === null) child.kill("SIGKILL");
    });
    child.once("exit", (code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`the writer exited ${code}: ${errors}`))));
  });
  return acknowledged;
}

async function everyId(registry: CalendarRegistry): Promise<Set<string>> {
  const ids = new Set<string>();
  let pageToken: string | undefined;
  do {
    const page = await registry.listCalendars({ pageSize: 1_000, pageToken });
    for (const record of page.calendars) ids.add(record.id);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  return ids;
}

describe("the embedded registry", () => {
  it("loses no acknowledged create when its writer is killed with SIGKILL, during appends and during compactions", async () => {
    const folder = registryFolder();
    const acknowledged = [
      ...(await killWriterAfter(folder, 150)),
      ...(await killWriterAfter(folder, 150, 16_384)),
      ...(await killWriterAfter(folder, 150, 16_384)),
    ];
    const registry = await open(folder);
    try {
      const ids = await everyId(registry);
      for (const id of acknowledged) expect(ids.has(id), `${id} was acknowledged`).toBe(true);
      // Nothing half-written: every calendar read back is whole, and the change numbers have no hole.
      const audit = await registry.readAudit(0, 100_000);
      expect(audit.map((entry) => entry.changeNumber)).toEqual(audit.map((_, i) => i + 1));
      for (const id of ids)
        expect((await registry.getCalendar(id))?.source).toEqual({
          kind: "http",
          url: `https://calendar.example.com/${id}.ics`,
          headers: [],
        });
    } finally {
      await registry.close();
    }
  }, 120_000);

  it("cuts off a torn or damaged tail at open, and appends after it stay readable", async () => {
    const folder = registryFolder();
    const before = await open(folder);
    for (const id of ["a", "b", "c"]) await before.createCalendar(calendar(id), ADMIN);
    await before.close();
    const journal = join(folder, "registry.journal");
    appendFileSync(journal, '00000000 {"t":"change","n":4}\n5b1e');
    const size = statSync(journal).size;
    const after = await open(folder);
    try {
      expect([...(await everyId(after))]).toEqual(["a", "b", "c"]);
      expect(statSync(journal).size).toBeLessThan(size);
      expect((await after.createCalendar(calendar("d"), ADMIN)).calendar.changeNumber).toBe(4);
    } finally {
      await after.close();
    }
    const again = await open(folder);
    try {
      expect([...(await everyId(again))]).toEqual(["a", "b", "c", "d"]);
    } finally {
      await again.close();
    }
  });

  it("compacts its journal into the same rows, numbers, changes and audit log", async () => {
    const folder = registryFolder();
    const registry = await open(folder, { compactAfterBytes: 4_096 });
    let changes = 0;
    for (let i = 0; i < 30; i++) {
      const { calendar: record } = await registry.createCalendar(calendar(`cal-${i}`), ADMIN);
      changes++;
      if (i % 2 === 0) {
        await registry.updateCalendar(calendar(`cal-${i}`, { name: `Calendar ${i}` }), record.etag, ADMIN);
        changes++;
      }
      if (i % 5 === 0) {
        await registry.deleteCalendar(`cal-${i}`, undefined, ADMIN);
        changes++;
      }
      if (i % 7 === 0) {
        await registry.setPerson({ principalId: `person-${i}` }, undefined, ADMIN);
        changes++;
      }
    }
    const state = async (r: CalendarRegistry) => ({
      list: await r.listCalendars({ pageSize: 1_000 }),
      g1: await r.changesSince(0, "g1"),
      g2: await r.changesSince(0, "g2"),
      people: await r.loadGroup("g1"),
      audit: await r.readAudit(0),
    });
    const before = await state(registry);
    await registry.close();
    expect(existsSync(join(folder, "registry-audit.journal"))).toBe(true);
    const reopened = await open(folder, { compactAfterBytes: 4_096 });
    try {
      const after = await state(reopened);
      expect(after).toEqual(before);
      expect(after.audit.map((entry) => entry.changeNumber)).toEqual(Array.from({ length: changes }, (_, i) => i + 1));
      // Deletions survive compaction as tombstones, so a replica far behind still hears them.
      expect([...after.g1.changes, ...after.g2.changes].filter((change) => change.kind === "calendar-removal")).toHaveLength(6);
    } finally {
      await reopened.close();
    }
  });

  it("refuses a second open of its folder while the first holds it, and takes over the lock of a process that is gone", async () => {
    const folder = registryFolder();
    const first = await open(folder);
    expect(await open(folder).catch((error: unknown) => error)).toMatchObject({ failure: "LOCKED" });
    await first.close();
    writeFileSync(join(folder, "registry.lock"), JSON.stringify({ pid: 2 ** 30, host: "gone" }));
    const second = await open(folder);
    await second.close();
    writeFileSync(join(folder, "registry.lock"), JSON.stringify({ pid: process.ppid, host: "here" }));
    const error = await open(folder).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ failure: "LOCKED" });
    expect(String(error)).toMatch(new RegExp(`process ${process.ppid}`));
  });
});

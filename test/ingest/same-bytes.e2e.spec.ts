/**
 * Same bytes, same snapshot, on a busy machine (docs/decisions.md, "Budgets
 * count work"): the demo data and every feed fixture, built through the
 * ingest workers while two processes burn the very core this process and its
 * workers are pinned to, answer exactly as they do on a quiet core. Before
 * reading counted work, a busy core could make the rule probe refuse a plain
 * weekly rule, or the feed's time budget cut a COUNT short.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_FEED_LIMITS } from "../../src/config/config-model.js";
import { ingestFeed } from "../../src/ingest/ingest.js";
import { defaultLimits } from "../../src/store/calendar-store.js";
import { answersOf, digestOf, readingFixtures } from "../support/reading.js";

const readAt = Date.UTC(2026, 10, 29);
const burners: ChildProcess[] = [];
/** Whether `taskset` can pin processes here (util-linux); without it the burners run unpinned. */
const pinning = (() => {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
let affinity: string | undefined;

/** What each fixture's snapshot answers, built through the workers, or how its build was refused. */
async function readAll(): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  for (const { path, text } of readingFixtures()) {
    try {
      const snapshot = await ingestFeed(Buffer.from(text), { id: "t" }, DEFAULT_FEED_LIMITS, defaultLimits(readAt), readAt);
      answers.set(path, `${snapshot.id} ${digestOf(answersOf(snapshot, readAt))}`);
    } catch (error) {
      answers.set(path, `refused ${(error as { failure?: string }).failure ?? String(error)}`);
    }
  }
  return answers;
}

let quiet: Map<string, string>;

beforeAll(async () => {
  quiet = await readAll();
  if (pinning) {
    affinity = /: ([0-9a-f]+)\s*$/.exec(execFileSync("taskset", ["-p", String(process.pid)], { encoding: "utf8" }))?.[1];
    // This process and every thread it starts (the ingest workers) on core 0, with two processes burning it.
    execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
  }
  for (let i = 0; i < 2; i++) {
    const burn = ["-e", "for (;;) {}"];
    burners.push(pinning ? spawn("taskset", ["-c", "0", process.execPath, ...burn]) : spawn(process.execPath, burn));
  }
});

afterAll(() => {
  for (const burner of burners) burner.kill("SIGKILL");
  if (pinning && affinity !== undefined) execFileSync("taskset", ["-a", "-p", affinity, String(process.pid)], { stdio: "ignore" });
});

describe("reading on a busy core", () => {
  it("gives every fixture the same snapshot id and the same answers, three times over", async () => {
    expect(quiet.size).toBeGreaterThan(20);
    for (let round = 0; round < 3; round++) expect(await readAll()).toEqual(quiet);
  });
});

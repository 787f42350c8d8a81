/**
 * Issue 10 asks that ingest be "no slower than today": today is calq as it
 * was when the issue was filed. This script times one feed's ingest, either
 * by that calq (`then`: its own code, in a checkout of that commit; it read
 * and built on the event loop) or by this one (`now`: through the ingest
 * worker, as the store reads a feed). bench/run.ts runs both, each in a
 * fresh process, turn by turn, so neither gains from the other's warm heap.
 *
 *   node bin/run-ts.mjs bench/ingest-then.ts then CHECKOUT FEED NOW_MS
 *   node bin/run-ts.mjs bench/ingest-then.ts now FEED NOW_MS
 *
 * It prints the timings (ms) as a JSON array: one warm-up, then RUNS.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The last commit before issue 10's work began: calq as the issue measured it. */
export const ISSUE_10_FILED_AT = "8e5b488a4bd8e230be3e481b77c441081f093aa1";
const RUNS = 9;
const ROOT = join(import.meta.dirname, "..");

/** Times `ingest` RUNS times after two warm-ups. */
async function timed(ingest: () => Promise<unknown>): Promise<number[]> {
  await ingest();
  await ingest();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await ingest();
    times.push(performance.now() - t0);
  }
  return times;
}

/** That calq's own path for a feed's bytes (file-feed.ts and calendar-store.ts at ISSUE_10_FILED_AT): digest, decode, build. */
async function ingestThen(checkout: string, bytes: Buffer, now: number): Promise<number[]> {
  const load = (path: string) => import(pathToFileURL(join(checkout, path)).href);
  const { decodeFeed } = await load("src/ics/decode.ts");
  const { contentDigest } = await load("src/feeds/feed-read.ts");
  const { snapshotFromText, defaultLimits } = await load("src/store/calendar-store.ts");
  const { DEFAULT_FEED_LIMITS } = await load("src/config/calq-config.ts");
  return timed(async () => {
    contentDigest(bytes);
    return snapshotFromText(decodeFeed(bytes), { id: "bench" }, DEFAULT_FEED_LIMITS, defaultLimits(now), now);
  });
}

/** This calq's path: the store's ingestFeed, through the worker pool (started before timing). */
async function ingestNow(bytes: Buffer, now: number): Promise<number[]> {
  const { ingestFeed } = await import("../src/ingest/ingest.js");
  const { DEFAULT_FEED_LIMITS } = await import("../src/config/config-model.js");
  const { defaultLimits } = await import("../src/store/calendar-store.js");
  const ingest = () => ingestFeed(bytes, { id: "bench" }, DEFAULT_FEED_LIMITS, defaultLimits(now), now);
  await Promise.all(Array.from({ length: os.availableParallelism() }, ingest));
  return timed(ingest);
}

/** A checkout of ISSUE_10_FILED_AT sharing this one's node_modules (its dependencies are the same versions), and how to remove it. */
export function checkoutThen(): { path: string; remove: () => void } {
  const scratch = mkdtempSync(join(os.tmpdir(), "calq-then-"));
  const path = join(scratch, "calq");
  let added = false;
  const remove = () => {
    try {
      if (added) execFileSync("git", ["worktree", "remove", "--force", path], { cwd: ROOT, stdio: "ignore" });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      if (added) execFileSync("git", ["worktree", "prune"], { cwd: ROOT, stdio: "ignore" });
    }
  };
  try {
    execFileSync("git", ["worktree", "add", "--detach", path, ISSUE_10_FILED_AT], { cwd: ROOT, stdio: "ignore" });
    added = true;
    symlinkSync(join(ROOT, "node_modules"), join(path, "node_modules"), "dir");
  } catch (error) {
    remove();
    throw error;
  }
  return { path, remove };
}

if (import.meta.filename === resolve(process.argv[1] ?? "")) {
  const [mode, ...rest] = process.argv.slice(2);
  const times =
    mode === "then"
      ? await ingestThen(rest[0], readFileSync(rest[1]), Number(rest[2]))
      : await ingestNow(readFileSync(rest[0]), Number(rest[1]));
  process.stdout.write(`${JSON.stringify(times)}\n`);
  process.exit(0);
}

/**
 * The ingest worker's script: builds a snapshot from feed bytes (decode,
 * parse, expand, index, all at once: this thread serves no one else), from
 * the calendar's previous snapshot when the task carries it, and hands it
 * back packed, its arrays on shared memory.
 */
import { setPriority } from "node:os";
import { getHeapStatistics } from "node:v8";
import { parentPort } from "node:worker_threads";
import { FeedFailure } from "../feeds/feed-read.js";
import { BUILD_NICENESS, type BuildAnswer, type BuildTask } from "./ingest.js";
import { buildPacked } from "./packed-build.js";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const port = parentPort;
if (port === null) throw new Error("ingest-worker runs as a worker thread only");

try {
  // This thread only (Linux keeps a nice value per thread): builds are background
  // work, and on a busy machine the threads serving searches come first.
  setPriority(BUILD_NICENESS);
} catch {
  // Not allowed here, or no such thing on this system: builds run at the service's own priority.
}

port.on("message", (task: BuildTask) => {
  const heapBefore = getHeapStatistics().total_heap_size;
  let answer: DistributiveOmit<BuildAnswer, "heapGrowthBytes">;
  try {
    // The bytes and then the text are handed over, so neither is held once read.
    answer = { kind: "built", packed: buildPacked(task, task.request, task.previous) };
  } catch (error) {
    if (error instanceof FeedFailure) answer = { kind: "refused", failure: error.failure, detail: error.message };
    // The error's text may quote the feed; only its kind and where it was thrown go back.
    else
      answer = {
        kind: "failed",
        errorName: error instanceof Error ? error.name : "error",
        stack: error instanceof Error ? (error.stack ?? "").split("\n").slice(1).join("\n") : "",
      };
  }
  const heapGrowthBytes = getHeapStatistics().total_heap_size - heapBefore;
  // Nothing to transfer: the snapshot's arrays are on shared memory.
  port.postMessage({ ...answer, heapGrowthBytes } satisfies BuildAnswer);
});

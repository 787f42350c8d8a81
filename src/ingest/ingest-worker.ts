/**
 * The ingest worker's script: builds a snapshot from feed text (parse,
 * expand, index, all at once: this thread serves no one else) and hands it
 * back packed, its arrays transferred.
 */
import { parentPort } from "node:worker_threads";
import { buildSnapshot } from "../store/snapshot.js";
import type { BuildAnswer, BuildTask } from "./ingest.js";
import { packSnapshot } from "./packed-snapshot.js";

const port = parentPort;
if (port === null) throw new Error("ingest-worker runs as a worker thread only");

port.on("message", (task: BuildTask) => {
  let answer: BuildAnswer;
  let transfer: ArrayBuffer[] = [];
  try {
    const packing = packSnapshot(buildSnapshot(task.text, task.input));
    if (packing === undefined) answer = { kind: "unpackable" };
    else {
      answer = { kind: "built", packed: packing.packed };
      transfer = packing.transfer;
    }
  } catch (error) {
    // The error's text may quote the feed; only its kind goes back.
    answer = { kind: "failed", errorName: error instanceof Error ? error.name : "error" };
  }
  port.postMessage(answer, transfer);
});

/**
 * The worker pool that ingestion runs in: tasks run in parallel up to the
 * pool's size, and a task past its deadline has its worker terminated and
 * replaced, so the next task runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { siblingScript, WorkerCrashError, WorkerDeadlineError, WorkerPool } from "../../src/ingest/worker-pool.js";

const script = new URL("../fixtures/workers/spin-worker.mjs", import.meta.url);
type Answer = { echo: string; threadId: number };
let pool: WorkerPool<Answer>;
/** A deadline no task here comes near (a worker's start-up on a busy machine included), for tasks that must answer. */
const PLENTY_MS = 60_000;

afterEach(async () => {
  await pool.close();
});

describe("WorkerPool", () => {
  it("answers a task from a worker thread", async () => {
    pool = new WorkerPool<Answer>(script, 2);
    const answer = await pool.run({ echo: "hello" }, PLENTY_MS);
    expect(answer.echo).toBe("hello");
    expect(answer.threadId).toBeGreaterThan(0);
  });

  it("runs tasks at once on as many workers as its size", async () => {
    pool = new WorkerPool<Answer>(script, 2);
    const answers = await Promise.all([pool.run({ echo: "a", busyMs: 300 }, PLENTY_MS), pool.run({ echo: "b", busyMs: 300 }, PLENTY_MS)]);
    expect(new Set(answers.map((answer) => answer.threadId)).size).toBe(2);
  });

  it("terminates a worker past its deadline, and replaces it for the next task", async () => {
    pool = new WorkerPool<Answer>(script, 1);
    const first = await pool.run({ echo: "before" }, PLENTY_MS);
    // The task spins forever: only the deadline can end it, so its refusal is the proof the worker was stopped.
    await expect(pool.run({ spin: true }, 300)).rejects.toBeInstanceOf(WorkerDeadlineError);
    const after = await pool.run({ echo: "after" }, PLENTY_MS);
    expect(after.echo).toBe("after");
    expect(after.threadId).not.toBe(first.threadId);
  });

  it("refuses the task of a worker that fails, and runs the next on a new one", async () => {
    pool = new WorkerPool<Answer>(script, 1);
    await expect(pool.run({ crash: true }, PLENTY_MS)).rejects.toBeInstanceOf(WorkerCrashError);
    expect((await pool.run({ echo: "after" }, PLENTY_MS)).echo).toBe("after");
  });

  it("retires the worker whose answer says it is done with, and keeps the others", async () => {
    pool = new WorkerPool<Answer>(script, 1, (answer) => answer.echo === "retire");
    const kept = await pool.run({ echo: "keep" }, PLENTY_MS);
    expect((await pool.run({ echo: "retire" }, PLENTY_MS)).threadId).toBe(kept.threadId);
    const fresh = await pool.run({ echo: "after" }, PLENTY_MS);
    expect(fresh.threadId).not.toBe(kept.threadId);
  });

  it("retires the worker when its retire test fails, and still answers", async () => {
    pool = new WorkerPool<Answer>(script, 1, () => {
      throw new Error("no verdict");
    });
    const first = await pool.run({ echo: "a" }, PLENTY_MS);
    const second = await pool.run({ echo: "b" }, PLENTY_MS);
    expect([first.echo, second.echo]).toEqual(["a", "b"]);
    expect(second.threadId).not.toBe(first.threadId);
  });

  it("starts no worker for a queued task until a retired one has stopped: never more threads than its size", async () => {
    pool = new WorkerPool<Answer>(script, 1, () => true);
    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, pool.threads);
    }, 1);
    const answers = await Promise.all(["a", "b", "c"].map((echo) => pool.run({ echo, busyMs: 20 }, PLENTY_MS)));
    clearInterval(sampler);
    expect(answers.map((answer) => answer.echo)).toEqual(["a", "b", "c"]);
    expect(new Set(answers.map((answer) => answer.threadId)).size).toBe(3);
    expect(most).toBe(1);
  });

  it("queues tasks beyond its size instead of starting more workers", async () => {
    pool = new WorkerPool<Answer>(script, 1);
    const answers = await Promise.all(["a", "b", "c"].map((echo) => pool.run({ echo, busyMs: 20 }, PLENTY_MS)));
    expect(answers.map((answer) => answer.echo)).toEqual(["a", "b", "c"]);
    expect(new Set(answers.map((answer) => answer.threadId)).size).toBe(1);
  });
});

describe("siblingScript", () => {
  it("names the .ts sibling under tsx and the .js one once compiled", () => {
    expect(siblingScript("ingest-worker", "file:///app/src/ingest/ingest.ts").href).toBe("file:///app/src/ingest/ingest-worker.ts");
    expect(siblingScript("ingest-worker", "file:///app/dist/ingest/ingest.js").href).toBe("file:///app/dist/ingest/ingest-worker.js");
  });
});

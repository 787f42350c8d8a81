/**
 * A pool of worker threads, each running one script that answers one message
 * with one message. Work that could hold the event loop for seconds (reading
 * and expanding a feed) runs there instead, as many at once as there are
 * cores. A task that runs past its deadline has its worker terminated (the
 * only way to stop synchronous code) and replaced on the next task.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** A task's worker was terminated at its deadline. */
export class WorkerDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the task ran past its ${deadlineMs} ms deadline; its worker was terminated`);
    this.name = "WorkerDeadlineError";
  }
}

/** A task's worker failed or exited without answering. */
export class WorkerCrashError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WorkerCrashError";
  }
}

interface Job<Result> {
  readonly task: unknown;
  readonly transfer: readonly ArrayBuffer[];
  readonly deadlineMs: number;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Starts `script` in a worker. A TypeScript script (the sources run through
 * tsx, as `bin/calq.mjs` and vitest do) first registers tsx's loader in the
 * worker; compiled JavaScript runs as it is.
 */
function spawn(script: URL): Worker {
  if (!script.pathname.endsWith(".ts")) return new Worker(script);
  const boot = `import(${JSON.stringify(tsxLoaderUrl())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); });`;
  return new Worker(boot, { eval: true });
}

/**
 * tsx's ESM loader API, by its package's exports map (its CommonJS twin
 * cannot register from a worker's eval script).
 */
function tsxLoaderUrl(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("tsx/package.json");
  const { exports } = require(manifest) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(join(dirname(manifest), exports["./esm/api"].import.default)).href;
}

/** The sibling of the calling module named `name`, as .ts under tsx and .js once compiled. */
export function siblingScript(name: string, of: string): URL {
  return new URL(`./${name}${of.endsWith(".ts") ? ".ts" : ".js"}`, of);
}

export class WorkerPool<Result> {
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  private readonly queue: Job<Result>[] = [];
  /** Workers terminated but not yet gone: they count against the size until their thread has stopped. */
  private retiring = 0;
  private closed = false;

  constructor(
    private readonly script: URL,
    /** Workers at most (they start on demand). */
    readonly size: number,
    /** Whether the worker that answered `result` is done with: it is terminated rather than kept idle. */
    private readonly retire: (result: Result) => boolean = () => false,
  ) {}

  /** Threads the pool holds now: idle, busy, and terminated but not yet stopped. */
  get threads(): number {
    return this.idle.length + this.busy.size + this.retiring;
  }

  /** Runs `task` in a worker; `transfer` lists buffers moved rather than copied. */
  run(task: unknown, deadlineMs: number, transfer: readonly ArrayBuffer[] = []): Promise<Result> {
    if (this.closed) return Promise.reject(new WorkerCrashError("the worker pool is closed"));
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ task, transfer, deadlineMs, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminates every worker; queued tasks are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new WorkerCrashError("the worker pool is closed"));
    await Promise.all([...this.idle.splice(0), ...this.busy].map((worker) => worker.terminate()));
    this.busy.clear();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let worker = this.idle.pop();
      if (worker === undefined) {
        if (this.busy.size + this.retiring >= this.size) return;
        worker = this.spawnTracked();
      }
      this.start(worker, this.queue.shift()!);
    }
  }

  /**
   * A new worker that leaves the pool if it fails or exits while idle (its
   * task, if any, learns it through its own listeners): an 'error' event with
   * no listener would bring the whole process down.
   */
  private spawnTracked(): Worker {
    const worker = spawn(this.script);
    const forget = () => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    };
    worker.on("error", forget);
    worker.on("exit", forget);
    return worker;
  }

  private start(worker: Worker, job: Job<Result>): void {
    this.busy.add(worker);
    // A busy worker keeps the process alive (a `calq check` awaits it); an idle one does not.
    worker.ref();
    let settled = false;
    const finish = (retire: boolean) => {
      settled = true;
      clearTimeout(timer);
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      this.busy.delete(worker);
      if (retire || this.closed) {
        this.retiring++;
        void worker.terminate().finally(() => {
          this.retiring--;
          this.dispatch();
        });
      } else {
        worker.unref();
        this.idle.push(worker);
      }
      this.dispatch();
    };
    const timer = setTimeout(() => {
      if (settled) return;
      finish(true);
      job.reject(new WorkerDeadlineError(job.deadlineMs));
    }, job.deadlineMs);
    const onMessage = (result: Result) => {
      if (settled) return;
      let retire: boolean;
      try {
        retire = this.retire(result);
      } catch {
        // Not knowing whether the worker is done with, retire it: the answer itself is good.
        retire = true;
      }
      finish(retire);
      job.resolve(result);
    };
    const onError = (error: Error) => {
      if (settled) return;
      finish(true);
      job.reject(new WorkerCrashError("the worker failed", { cause: error }));
    };
    const onExit = (code: number) => {
      if (settled) return;
      finish(true);
      job.reject(new WorkerCrashError(`the worker exited (code ${code}) without answering`));
    };
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    worker.postMessage(job.task, [...job.transfer]);
  }
}

/**
 * Calls take turns on the one thread that serves them (docs/decisions.md,
 * "Calls take turns"). The work of a search, a free/busy read, a slot search
 * or a look-up is written as steps (stepwise.ts) that pause every few hundred
 * units of work; Turns runs those steps a slice of a few milliseconds at a
 * time, one slice per turn of the event loop, so requests arriving meanwhile
 * are read and cheap calls are answered between any two slices.
 *
 * Slices go to callers in turn, not to calls: a caller with ten expensive
 * calls in flight gets one slice in each round, like a caller with one. A
 * caller's own calls take turns among themselves. A caller who has no call
 * waiting is served before those who have had a turn, so a small search
 * waits for at most the slice running when it arrives.
 *
 * When a call's work runs is scheduling only: what it answers depends on its
 * work budget (counted in units, not time) and on the caller's own deadline.
 */
import type { Steps } from "../stepwise.js";

/** How long a slice may run before the next caller's turn: a few milliseconds. */
export const SLICE_MS = 2;

interface Job {
  readonly steps: Steps<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface TurnsOptions {
  /** Milliseconds on a monotonic clock; `performance.now` by default (tests drive their own). */
  readonly clock?: () => number;
  /** Length of a slice (default SLICE_MS). */
  readonly sliceMs?: number;
}

export class Turns {
  /** Each caller's calls with work left, in the order they take their turns. */
  private readonly queues = new Map<string, Job[]>();
  /** Callers with work left, in the order they get slices (a Map keeps insertion order). */
  private readonly ring = new Map<string, true>();
  private scheduled = false;
  private readonly clock: () => number;
  private readonly sliceMs: number;

  constructor(options: TurnsOptions = {}) {
    this.clock = options.clock ?? (() => performance.now());
    this.sliceMs = options.sliceMs ?? SLICE_MS;
  }

  /**
   * Runs `steps` for `caller` in slices between other callers' slices, and
   * resolves with what they return (or rejects with what they throw). With
   * nobody else waiting, the first slice runs at once.
   */
  run<T>(caller: string, steps: Steps<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job: Job = { steps, resolve: resolve as (value: unknown) => void, reject };
      if (this.ring.size === 0 && !this.scheduled) {
        // Nobody waits: a slice now costs no one a turn.
        if (this.slice(job)) return;
        this.enqueue(caller, job, true);
        this.schedule();
        return;
      }
      // A caller with nothing waiting goes before callers who have had their turn.
      this.enqueue(caller, job, !this.queues.has(caller));
      this.schedule();
    });
  }

  /** Calls with work left, for all callers. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  private enqueue(caller: string, job: Job, first: boolean): void {
    const queue = this.queues.get(caller);
    if (queue !== undefined) {
      queue.push(job);
      return;
    }
    this.queues.set(caller, [job]);
    if (!first || this.ring.size === 0) {
      this.ring.set(caller, true);
      return;
    }
    // Put the caller at the head of the ring.
    const rest = [...this.ring.keys()];
    this.ring.clear();
    this.ring.set(caller, true);
    for (const other of rest) this.ring.set(other, true);
  }

  private schedule(): void {
    if (this.scheduled || this.ring.size === 0) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  /** One turn: the caller at the head of the ring runs a slice of its first call, then both go to the back. */
  private turn(): void {
    this.scheduled = false;
    const caller = this.ring.keys().next().value;
    if (caller === undefined) return;
    this.ring.delete(caller);
    const queue = this.queues.get(caller)!;
    const job = queue.shift()!;
    const done = this.slice(job);
    if (!done) queue.push(job);
    if (queue.length === 0) this.queues.delete(caller);
    else this.ring.set(caller, true);
    this.schedule();
  }

  /** Runs the job's steps for one slice; true when they ended (settling the job). */
  private slice(job: Job): boolean {
    const until = this.clock() + this.sliceMs;
    try {
      for (;;) {
        const step = job.steps.next();
        if (step.done) {
          job.resolve(step.value);
          return true;
        }
        if (this.clock() >= until) return false;
      }
    } catch (error) {
      job.reject(error);
      return true;
    }
  }
}

/**
 * Long synchronous work (reading and expanding a whole feed) written as
 * generators that yield at safe points: one caller runs it to the end at
 * once, another gives the event loop a turn at each yield so requests are
 * not held for the whole of it.
 */

/** Work that yields between safe points and returns T at the end. */
export type Steps<T> = Generator<void, T>;

/** Runs the work to the end without yielding to anyone. */
export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs the work, letting the event loop run other callbacks at each yield. */
export async function runYielding<T>(steps: Steps<T>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Says when about `ms` of work has passed since the last pause: where a step should yield. */
export class Pacer {
  private since: number;
  constructor(
    private readonly ms = 10,
    private readonly clock: () => number = Date.now,
  ) {
    this.since = clock();
  }
  /** True once `ms` have passed on the clock since the start or the last `resumed()`. */
  due(): boolean {
    return this.clock() - this.since >= this.ms;
  }
  /** Call when the work resumes after a yield. */
  resumed(): void {
    this.since = this.clock();
  }
}

/** Maps `items` with `map`, pausing every `perStep` items: for answers of thousands of entries built in turns. */
export function* mapSteps<T, R>(items: readonly T[], map: (item: T) => R, perStep = 128): Steps<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i++) {
    out.push(map(items[i]));
    if (i % perStep === perStep - 1) yield;
  }
  return out;
}

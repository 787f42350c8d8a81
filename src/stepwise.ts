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

/**
 * Maps every item of `lists` with `map`, list by list, pausing every
 * `perStep` items counted over all of them: for answers of thousands of
 * entries built in turns. The count runs across lists, so many short lists
 * (fifty calendars' busy time) pause as often as one long one.
 */
export function* mapEachSteps<T, R>(lists: readonly (readonly T[])[], map: (item: T) => R, perStep = 128): Steps<R[][]> {
  const out: R[][] = [];
  let sincePause = 0;
  for (const items of lists) {
    const mapped: R[] = [];
    for (const item of items) {
      mapped.push(map(item));
      if (++sincePause === perStep) {
        sincePause = 0;
        yield;
      }
    }
    out.push(mapped);
  }
  return out;
}

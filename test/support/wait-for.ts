/**
 * Tests wait for conditions, never for time: a fixed sleep is too short on a
 * busy machine and wasted on an idle one, and a deadline on the wall clock
 * fails a correct program whenever the machine is slow. `waitFor` polls what
 * a test can observe until it holds; it gives up after a number of looks,
 * not a number of milliseconds, and the test's own timeout (vitest's
 * testTimeout) stays the last resort.
 */

/** How often a condition is looked at, and how many looks it gets before the wait fails. */
export interface Patience {
  /** The pause between two looks, so a poll does not take the CPU the awaited work needs. */
  readonly pauseMs?: number;
  readonly looks?: number;
}

const DEFAULT_PAUSE_MS = 20;
/** Enough looks that only a condition that never comes ends the wait (with the default pause, at least 50 s on an idle machine). */
const DEFAULT_LOOKS = 2_500;

/**
 * Resolves with the first value of `probe` that is neither undefined nor
 * false, looking again after each pause; rejects, naming `what`, once it has
 * looked `looks` times in vain. A probe that throws ends the wait with its error.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  patience: Patience = {},
): Promise<T> {
  const looks = patience.looks ?? DEFAULT_LOOKS;
  for (let look = 1; look <= looks; look++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (look < looks) await new Promise((resolve) => setTimeout(resolve, patience.pauseMs ?? DEFAULT_PAUSE_MS));
  }
  throw new Error(`waited for ${what}, and it did not come after ${looks} looks`);
}

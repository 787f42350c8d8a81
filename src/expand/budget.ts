/**
 * Work allowed to a set of expansions: a deadline on an injected clock (a
 * feed's load) and/or a number of rule dates visited (one search's series
 * expanded on demand). Every date a rule visits counts, kept or not.
 */

/** Milliseconds since the epoch, as `Date.now` gives them; tests drive their own. */
export type Clock = () => number;

export class Budget {
  private visits = 0;
  exhausted = false;
  constructor(
    private deadline = Number.POSITIVE_INFINITY,
    private readonly maxVisits = Number.POSITIVE_INFINITY,
    private readonly clock: Clock = Date.now,
  ) {}
  /** Moves the deadline later by `ms`: time the work was paused for others does not count. */
  extend(ms: number): void {
    this.deadline += ms;
  }
  /** Reads the clock now (between visits, where a caller pays for more than visits): true once past the deadline. */
  expired(): boolean {
    if (!this.exhausted && this.clock() > this.deadline) this.exhausted = true;
    return this.exhausted;
  }
  /** False once the deadline or the visit count is passed; the clock is read every 1,024 visits. */
  allows(): boolean {
    if (this.exhausted) return false;
    this.visits++;
    if (this.visits > this.maxVisits || ((this.visits & 1023) === 0 && this.clock() > this.deadline)) this.exhausted = true;
    return !this.exhausted;
  }
}

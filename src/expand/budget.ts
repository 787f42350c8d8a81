/**
 * Work allowed to a set of expansions, counted in work, never in time
 * (docs/decisions.md, "Budgets count work"): every rule date visited, kept
 * or not, spends one unit. A feed's load and a search each hold one, so the
 * same bytes and the same request give the same answer on an idle machine
 * and on a busy one.
 *
 * A search also spends its work in steps: `step(units)` lets the next piece
 * of work spend at most that many units, after which `allows()` answers
 * false as if the budget were spent. The piece stops at an exact point and
 * says where (Series.expand's `resumeAt`), and the search resumes it there
 * later, after other work had its turn.
 */

export class Budget {
  private spent = 0;
  /** Units spent at which the current step ends. */
  private stepEnd = Number.POSITIVE_INFINITY;

  constructor(
    /** Units the whole budget allows. */
    readonly total = Number.POSITIVE_INFINITY,
  ) {}

  /** Spends a unit; false once the budget, or the current step, is used up (and nothing is spent then). */
  allows(): boolean {
    if (this.spent >= this.total || this.spent >= this.stepEnd) return false;
    this.spent++;
    return true;
  }

  /** Spends `units` at once (work counted in bulk, such as index entries looked at); false once the budget is used up. */
  spend(units: number): boolean {
    this.spent = Math.min(this.total, this.spent + units);
    return this.spent < this.total;
  }

  /** True once the whole budget is used up. */
  get exhausted(): boolean {
    return this.spent >= this.total;
  }

  /** Units spent so far. */
  get used(): number {
    return this.spent;
  }

  /** Lets the next piece of work spend at most `units` more, or the rest of the budget if less. */
  step(units: number): void {
    this.stepEnd = this.spent + units;
  }

  /** Ends the current step: the rest of the budget is allowed again. */
  endStep(): void {
    this.stepEnd = Number.POSITIVE_INFINITY;
  }
}

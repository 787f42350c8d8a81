/**
 * One call as every use case sees it, whatever protocol brought it: who is
 * calling (from authentication, never from arguments), by when it must be
 * answered, and whether the caller has left. Use cases run their work
 * through `Call.run`, so every method takes turns with others (turns.ts),
 * spends a work budget counted in units, and stops at the caller's deadline
 * with an answer that says so.
 */
import type { PrincipalConfig } from "../config/config-model.js";
import type { Steps } from "../stepwise.js";
import type { Turns } from "./turns.js";

/** The authenticated caller: a principal of calq.yaml, the registry, or a verified token. */
export type Principal = PrincipalConfig;

/** What a use case needs to know about the call it serves. */
export interface Call {
  readonly principal: Principal;
  /** Names the call in logs and audit lines. */
  readonly correlationId?: string;
  /** True once the caller's deadline (less the time to send the answer) has passed or the caller has left. */
  interrupted(): boolean;
  /** Runs the call's work in turns with every other call (turns.ts), as the caller's. */
  run<T>(steps: Steps<T>): Promise<T>;
}

/** How a transport describes a call it hands to the use cases. */
export interface CallFacts {
  readonly principal: Principal;
  readonly correlationId?: string;
  /** Milliseconds the caller allows from now, when it set a deadline. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * How much of the caller's remaining deadline the work may use: the rest is
 * left for encoding and sending the answer, so the caller gets a partial
 * answer rather than DEADLINE_EXCEEDED.
 */
export function answerWithin(timeoutMs: number): number {
  return Math.max(0, Math.min(timeoutMs * 0.75, timeoutMs - 100));
}

/** A Call from a transport's facts, its work run by `turns` and its deadline read on `clock` (monotonic milliseconds). */
export function callOf(facts: CallFacts, turns: Turns, clock: () => number = () => performance.now()): Call {
  const answerBy = facts.timeoutMs === undefined ? undefined : clock() + answerWithin(facts.timeoutMs);
  return {
    principal: facts.principal,
    correlationId: facts.correlationId,
    interrupted: () => facts.signal?.aborted === true || (answerBy !== undefined && clock() >= answerBy),
    run: (steps) => turns.run(facts.principal.id, steps),
  };
}

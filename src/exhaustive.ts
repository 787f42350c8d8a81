/**
 * The default branch of a switch over a closed set (source kinds, match
 * modes, refusal reasons): `value` has type never only when every member is
 * handled, so a new member fails to compile here instead of falling into
 * another member's branch.
 */
export function assertNever(value: never, what: string): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}

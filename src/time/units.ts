/**
 * Lengths of time in milliseconds, and flooring to them: the leaves every
 * other time module builds on, so none of them imports another for a unit.
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** `value` rounded down to a multiple of `unit` (also before 1970, where `%` is negative). */
export function floorTo(value: number, unit: number): number {
  return value - (((value % unit) + unit) % unit);
}

/**
 * Where the use cases find people's settings (zone, working hours, week
 * start, e-mail addresses): the principals of calq.yaml, and, once the
 * server reads it, the live registry's people (docs/decisions.md, "The
 * calendar registry"). A calendar's person is the one whose primary
 * calendar it is.
 */
import type { PrincipalConfig } from "../config/config-model.js";

/** People's settings, found by the calendar they own. */
export interface People {
  /** The one person whose primary calendar this is; undefined when nobody, or more than one, has it as primary. */
  ownerOf(calendarId: string): PrincipalConfig | undefined;
}

/** The people of a list of principals (calq.yaml's). */
export function peopleOf(principals: readonly PrincipalConfig[]): People {
  const owners = new Map<string, PrincipalConfig | null>();
  for (const principal of principals) {
    if (principal.primary === undefined) continue;
    // A calendar several people call primary (a shared one) belongs to none of them.
    owners.set(principal.primary, owners.has(principal.primary) ? null : principal);
  }
  return { ownerOf: (calendarId) => owners.get(calendarId) ?? undefined };
}

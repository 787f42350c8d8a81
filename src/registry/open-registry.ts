/**
 * Opens the registry a deployment names: embedded by default, PostgreSQL
 * for a fleet. The engines are one closed set, dispatched here once.
 */
import { assertNever } from "../exhaustive.js";
import type { CalendarRegistry } from "./calendar-registry.js";
import { type EmbeddedRegistryOptions, openEmbeddedRegistry } from "./embedded-registry.js";
import { openPostgresRegistry, type PostgresRegistryOptions } from "./postgres-registry.js";

/** Which engine holds the registry, with its options. */
export type RegistrySettings =
  | ({ readonly engine: "embedded" } & EmbeddedRegistryOptions)
  | ({ readonly engine: "postgresql" } & PostgresRegistryOptions);

/** The engines, spelled once. */
export const REGISTRY_ENGINES = ["embedded", "postgresql"] as const satisfies readonly RegistrySettings["engine"][];

/** Opens the registry `settings` describe (see each engine for what can fail). */
export function openRegistry(settings: RegistrySettings): Promise<CalendarRegistry> {
  switch (settings.engine) {
    case "embedded":
      return openEmbeddedRegistry(settings);
    case "postgresql":
      return openPostgresRegistry(settings);
    default:
      return assertNever(settings, "registry engine");
  }
}

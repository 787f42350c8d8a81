/**
 * The two engines of the calendar registry as a server test sets them up:
 * the embedded journal in a temporary folder, and a database on a real
 * PostgreSQL server (test/support/postgres.ts), skipped where PostgreSQL is
 * missing and failing under CALQ_SYSTEM_TESTS=required. A suite runs once
 * per engine with `describe.each(REGISTRY_ENGINES)`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RegistrySettings } from "../../src/registry/index.js";
import type { ServerRegistry } from "../../src/server/server.js";
import { POSTGRES_MISSING, postgresGate, type RunningPostgres, startPostgres } from "./postgres.js";

/** Quick reconnection of PostgreSQL's change feed, so a restored link is noticed soon. */
export const FAST_LINK = { retryMs: 50, maxRetryMs: 250, pingMs: 1_000 } as const;

/** One engine, as a suite uses it. */
export interface RegistryEngine {
  readonly name: "embedded" | "postgresql";
  /** "run" here; "skip" without PostgreSQL; "fail" without it under CALQ_SYSTEM_TESTS=required. */
  readonly gate: "run" | "skip" | "fail";
  /** Starts what the engine needs (a PostgreSQL server); throws POSTGRES_MISSING for a gate of "fail". */
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** A new, empty registry for one server, with the folder of its local copy. */
  fresh(): Promise<ServerRegistry>;
  /** The PostgreSQL server, for the engine that has one. */
  readonly postgres?: RunningPostgres;
}

const folders: string[] = [];

/** A temporary folder removed by the engine's tearDown. */
export function temporaryFolder(prefix = "calq-registry-"): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
}

function removeFolders(): void {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

class EmbeddedEngine implements RegistryEngine {
  readonly name = "embedded";
  readonly gate = "run";
  async setUp(): Promise<void> {}
  async tearDown(): Promise<void> {
    removeFolders();
  }
  async fresh(): Promise<ServerRegistry> {
    const folder = temporaryFolder();
    return { settings: { engine: "embedded", folder }, folder };
  }
}

class PostgresEngine implements RegistryEngine {
  readonly name = "postgresql";
  readonly gate = postgresGate();
  postgres: RunningPostgres | undefined;
  async setUp(): Promise<void> {
    if (this.gate === "fail") throw new Error(POSTGRES_MISSING);
    this.postgres = await startPostgres();
  }
  async tearDown(): Promise<void> {
    await this.postgres?.destroy();
    removeFolders();
  }
  async fresh(): Promise<ServerRegistry> {
    const settings: RegistrySettings = { engine: "postgresql", connectionString: await this.postgres!.createDatabase(), link: FAST_LINK };
    return { settings, folder: temporaryFolder() };
  }
}

/** Both engines, for describe.each. */
export const REGISTRY_ENGINES: readonly RegistryEngine[] = [new EmbeddedEngine(), new PostgresEngine()];

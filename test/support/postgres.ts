/**
 * A real PostgreSQL server for the registry's tests and benchmark: Debian's
 * postgresql package (initdb, pg_ctl, postgres), started in a temporary
 * folder on a free loopback port with its socket in that folder, and removed
 * after. postgres refuses to run as root, so as root the folder is given to
 * the postgres user and every program runs through `runuser -u postgres`.
 *
 * Without PostgreSQL installed the tests that need it are skipped, unless
 * CALQ_SYSTEM_TESTS=required (CI sets it), which makes them fail instead:
 * a CI machine without the package must not pass by skipping.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./nginx.js";
import { systemGate } from "./system-program.js";

/** The folder of a PostgreSQL installation's programs, newest version first; undefined when none is installed. */
export function findPostgresPrograms(): string | undefined {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions
    .map((version) => join(root, version, "bin"))
    .find((bin) => existsSync(join(bin, "postgres")) && existsSync(join(bin, "initdb")));
}

/** Why the PostgreSQL tests cannot run here, and how to fix it. */
export const POSTGRES_MISSING =
  "PostgreSQL is not installed: apt-get install -y postgresql (CI's .ci/run installs it); without CALQ_SYSTEM_TESTS=required these tests are skipped";

/**
 * Whether this spec's PostgreSQL tests run, are skipped (and named in the
 * run's last line), or fail (CALQ_SYSTEM_TESTS=required without PostgreSQL):
 * system-program.ts decides, as for every program of the system.
 */
export function postgresGate(): "run" | "skip" | "fail" {
  return systemGate(["postgres"]).verdict;
}

export interface RunningPostgres {
  readonly port: number;
  /** postgres://calq@127.0.0.1:PORT/DATABASE */
  url(database: string): string;
  /** A new, empty database; answers its URL. */
  createDatabase(): Promise<string>;
  /** Runs `sql` as the superuser in `database` (default "postgres"). */
  query<Row extends pg.QueryResultRow>(sql: string, values?: unknown[], database?: string): Promise<Row[]>;
  /** Stops the server (fast shutdown: connections are cut); `start` brings it back on the same port with the same data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
}

export interface PostgresOptions {
  /** fsync and synchronous commit on, as in production (the benchmark); off by default, for speed. */
  readonly durable?: boolean;
}

const SUPERUSER = "calq";
let databases = 0;
/** Servers not yet destroyed: stopped and removed when the process exits, whatever happens to the test. */
const running = new Set<() => void>();
process.on("exit", () => {
  for (const destroy of running) destroy();
});

/** Starts a PostgreSQL server of its own; fails when PostgreSQL is not installed. */
export async function startPostgres(options: PostgresOptions = {}): Promise<RunningPostgres> {
  const bin = findPostgresPrograms();
  if (bin === undefined) throw new Error(POSTGRES_MISSING);
  const asRoot = process.getuid?.() === 0;
  const folder = mkdtempSync(join(tmpdir(), "calq-postgres-"));
  const data = join(folder, "data");
  const sockets = join(folder, "sockets");
  mkdirSync(sockets);
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
    chownSync(folder, uid, gid);
    chownSync(sockets, uid, gid);
  }
  const run = (program: string, args: string[]) =>
    execFileSync(asRoot ? "runuser" : join(bin, program), asRoot ? ["-u", "postgres", "--", join(bin, program), ...args] : args, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  try {
    run("initdb", ["-D", data, "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const settings = [`-p ${port}`, "-h 127.0.0.1", `-k ${sockets}`, "-c max_connections=200"];
  if (options.durable !== true) settings.push("-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off");
  const start = async () => {
    run("pg_ctl", ["-D", data, "-l", join(folder, "server.log"), "-w", "-t", "60", "-o", settings.join(" "), "start"]);
  };
  const stopNow = () => {
    try {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
    } catch {
      // Already stopped.
    }
  };
  const destroyNow = () => {
    running.delete(destroyNow);
    stopNow();
    rmSync(folder, { recursive: true, force: true });
  };
  running.add(destroyNow);
  try {
    await start();
  } catch (error) {
    const log = existsSync(join(folder, "server.log")) ? readFileSync(join(folder, "server.log"), "utf8") : "";
    destroyNow();
    throw new Error(`PostgreSQL did not start: ${error instanceof Error ? error.message : error}\n${log}`);
  }
  const url = (database: string) => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
  const query = async <Row extends pg.QueryResultRow>(sql: string, values: unknown[] = [], database = "postgres") => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return (await client.query<Row>(sql, values)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    port,
    url,
    createDatabase: async () => {
      databases += 1;
      const name = `calq_test_${process.pid}_${databases}`;
      await query(`CREATE DATABASE ${name}`);
      return url(name);
    },
    query,
    stop: async () => stopNow(),
    start,
    destroy: async () => destroyNow(),
  };
}

/**
 * A TCP relay a test can cut: while cut, every open connection through it
 * is closed and new ones are closed on arrival, as when a network link or
 * the database's host goes away; `restore` lets connections through again.
 */
export interface CuttableLink {
  readonly port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** A relay on a free loopback port to 127.0.0.1:`targetPort`. */
export async function startCuttableLink(targetPort: number): Promise<CuttableLink> {
  const sockets = new Set<Socket>();
  let isCut = false;
  const server: Server = createServer((incoming) => {
    if (isCut) {
      incoming.destroy();
      return;
    }
    const outgoing = createConnection({ host: "127.0.0.1", port: targetPort });
    for (const socket of [incoming, outgoing]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    incoming.on("close", () => outgoing.destroy());
    outgoing.on("close", () => incoming.destroy());
    incoming.pipe(outgoing);
    outgoing.pipe(incoming);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the relay has no port");
  return {
    port: address.port,
    cut: () => {
      isCut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      isCut = false;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

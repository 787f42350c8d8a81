/**
 * A calq serving one benchmark feed on a loopback port, in the benchmark's
 * own process, with one principal ("bench-token") that reads it as its
 * primary calendar: what bench/run.ts and bench/startup.ts search.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { parseConfig } from "../src/config/calq-config.js";
import { sha256Hex } from "../src/config/secret.js";
import { type RunningServer, startServer } from "../src/server/server.js";

/** The bearer token of the benchmark's principal. */
export const BENCH_TOKEN = "bench-token";

/** A running benchmark server; `close` also removes its folder. */
export interface BenchServer {
  readonly server: RunningServer;
  close(): Promise<void>;
}

/** Serves `feed` as calendar "bench" on 127.0.0.1 and a free port. */
export async function serveBenchFeed(feed: string): Promise<BenchServer> {
  const dir = mkdtempSync(join(os.tmpdir(), "calq-bench-"));
  writeFileSync(join(dir, "bench.ics"), feed);
  const config = parseConfig(
    {
      calendars: [{ id: "bench", source: "bench.ics", readers: ["bench"] }],
      principals: [{ id: "bench", primary: "bench", tokens: [`sha256:${sha256Hex(BENCH_TOKEN)}`] }],
    },
    dir,
    "calq.yaml",
    {},
  );
  const server = await startServer({ config, env: {}, port: 0, log: () => {} });
  return {
    server,
    close: async () => {
      await server.close(100);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

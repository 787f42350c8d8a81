/**
 * A real calq server on a real loopback port, serving calendars written to a
 * temporary folder, for end-to-end tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/calq-config.js";
import { sha256Hex } from "../../src/config/secret.js";
import type { Logger } from "../../src/log.js";
import { type RunningServer, type ServerOptions, startServer } from "../../src/server/server.js";
import { ics, vevent } from "./feeds.js";

export interface TestServer {
  readonly server: RunningServer;
  readonly address: string;
  readonly baseUrl: string;
  readonly dir: string;
  /** Rewrites a calendar file (name without .ics). */
  writeCalendar(name: string, text: string): void;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Calendar files by name (without .ics). */
  readonly calendars: Record<string, string>;
  /** The calq.yaml document, with plain `token` entries turned into digests here. */
  readonly config: {
    calendars: unknown[];
    principals: { tokens?: string[]; [key: string]: unknown }[];
    search?: unknown;
    feeds?: unknown;
    shards?: unknown;
  };
  readonly now?: () => number;
  readonly log?: Logger;
  /** Runs on the folder once the calendars are written, before the server starts. */
  readonly beforeStart?: (dir: string) => void;
  /** Further server options (JWT, TLS, limits, ...). */
  readonly serve?: Partial<Omit<ServerOptions, "config">>;
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "calq-test-"));
  const writeCalendar = (name: string, text: string) => writeFileSync(join(dir, `${name}.ics`), text);
  for (const [name, text] of Object.entries(options.calendars)) writeCalendar(name, text);
  options.beforeStart?.(dir);
  const document = {
    ...options.config,
    principals: options.config.principals.map((principal) => ({
      ...principal,
      tokens: (principal.tokens ?? []).map((token) => `sha256:${sha256Hex(token)}`),
    })),
  };
  const config = parseConfig(document, dir, "calq.yaml", options.serve?.env ?? {});
  // Tests reload by hand; a test about refreshing turns it back on through `serve`.
  const server = await startServer({
    refreshFeeds: false,
    env: {},
    ...options.serve,
    config,
    port: 0,
    now: options.now,
    log: options.log ?? (() => {}),
  });
  const address = `127.0.0.1:${server.port}`;
  return {
    server,
    address,
    baseUrl: `http://${address}`,
    dir,
    writeCalendar,
    async close() {
      await server.close(100);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The smallest server of the seed: An (token-an) and her work calendar with the 08:30-09:30 design review on 2026-10-02. */
export function startDesignReviewServer(): Promise<TestServer> {
  return startTestServer({
    calendars: {
      work: ics(
        ...vevent(
          "UID:review",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T083000",
          "DTEND;TZID=Asia/Ho_Chi_Minh:20261002T093000",
          "SUMMARY:Design review",
        ),
      ),
    },
    config: {
      calendars: [{ id: "work", source: "work.ics", timezone: "Asia/Ho_Chi_Minh", readers: ["an"] }],
      principals: [{ id: "an", primary: "work", tokens: ["token-an"] }],
    },
  });
}

/**
 * nginx from Debian as the load balancer in front of shard groups, run as
 * a real process on a loopback port with a configuration written to a
 * temporary folder: gRPC (HTTP/2 cleartext) in, `grpc_pass` to one upstream
 * per group chosen by the x-calq-shard-group header, and consistent hashing
 * (ketama) on x-calq-shard-key within the group. docs/operating.md shows
 * the same routing.
 *
 * A spec finds nginx and declares that it needs it through
 * system-program.ts: skipped (and said so) where it is not installed,
 * required in CI.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "./wait-for.js";

/** A free loopback port, for a process that cannot be told to pick one itself. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export interface RunningNginx {
  /** host:port of the balancer. */
  readonly address: string;
  /** What nginx wrote to stderr (its error log). */
  errors(): string;
  stop(): Promise<void>;
}

/** The nginx.conf that routes calq calls by shard group: `groups` maps each group to its replicas' host:port. */
export function nginxConfig(folder: string, port: number, groups: ReadonlyMap<string, readonly string[]>, defaultGroup: string): string {
  const upstream = (group: string) => `calq_${group}`;
  return `daemon off;
master_process off;
worker_processes 1;
pid ${join(folder, "nginx.pid")};
error_log stderr warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${join(folder, "body")};
  proxy_temp_path ${join(folder, "proxy")};
  fastcgi_temp_path ${join(folder, "fastcgi")};
  uwsgi_temp_path ${join(folder, "uwsgi")};
  scgi_temp_path ${join(folder, "scgi")};
  # The group comes from calq (rendezvous hashing of the shard key); nginx only looks it up.
  map $http_x_calq_shard_group $calq_upstream {
    default ${upstream(defaultGroup)};
${[...groups.keys()].map((group) => `    ${group} ${upstream(group)};`).join("\n")}
  }
${[...groups]
  .map(
    ([group, replicas]) => `  upstream ${upstream(group)} {
    # One shard key stays on one replica; without the header, round robin.
    hash $http_x_calq_shard_key consistent;
${replicas.map((replica) => `    server ${replica} max_fails=1 fail_timeout=30s;`).join("\n")}
  }`,
  )
  .join("\n")}
  server {
    listen 127.0.0.1:${port} http2;
    location / {
      grpc_pass grpc://$calq_upstream;
      # A replica that is gone (connection refused, reset) sends the call to the next of its group.
      grpc_next_upstream error timeout;
      grpc_connect_timeout 2s;
    }
  }
}
`;
}

/** Starts nginx with `nginxConfig` and resolves once its port accepts connections. */
export async function startNginx(
  binary: string,
  groups: ReadonlyMap<string, readonly string[]>,
  defaultGroup: string,
): Promise<RunningNginx> {
  const folder = mkdtempSync(join(tmpdir(), "calq-nginx-"));
  for (const temp of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(folder, temp));
  const port = await freePort();
  const conf = join(folder, "nginx.conf");
  writeFileSync(conf, nginxConfig(folder, port, groups, defaultGroup));
  const child: ChildProcess = spawn(binary, ["-p", folder, "-c", conf, "-e", "stderr"], { stdio: ["ignore", "ignore", "pipe"] });
  let errors = "";
  child.stderr!.on("data", (chunk) => (errors += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  const up = await waitFor("nginx to accept connections or exit", async () =>
    child.exitCode !== null ? "exited" : (await accepts(port)) && "accepting",
  ).catch(() => "never accepting");
  if (up !== "accepting") {
    await stop();
    throw new Error(`nginx did not start (${up}): ${errors}`);
  }
  return { address: `127.0.0.1:${port}`, errors: () => errors, stop };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * nginx from Debian as the load balancer in front of shard groups, run as
 * a real process on a loopback port with a configuration written to a
 * temporary folder: gRPC (HTTP/2 cleartext) in, `grpc_pass` to one upstream
 * per group chosen by the x-calq-shard-group header, and consistent hashing
 * (ketama) on x-calq-shard-key within the group. docs/operating.md shows
 * the same routing.
 *
 * CI installs nginx (`.ci/run`); without it the tests that need it fail and
 * say how to install it, unless CALQ_LB_OPTIONAL=1 lets a developer without
 * root skip them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/** Where nginx is, searching PATH and the sbin folders a non-root PATH leaves out. */
export function findNginx(): string | undefined {
  const folders = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"];
  return folders
    .filter((folder) => folder !== "")
    .map((folder) => join(folder, "nginx"))
    .find((path) => existsSync(path));
}

/** Why the balancer tests cannot run here, and how to fix it. */
export const NGINX_MISSING =
  "nginx is not installed: apt-get install -y nginx (CI's .ci/run installs it), or set CALQ_LB_OPTIONAL=1 to skip the load-balancer tests";

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
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start: ${errors}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
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

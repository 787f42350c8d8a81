/**
 * The admin port: `GET /metrics` in Prometheus text format, on its own
 * address so it can stay inside the cluster while the service port faces
 * callers. Nothing else is served there.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/** The open admin port. */
export interface AdminListener {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `registry` at GET /metrics on host:port (0 picks a free port). */
export async function listenAdmin(registry: Registry, host: string, port: number): Promise<AdminListener> {
  const server = http.createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found: the admin port serves GET /metrics\n");
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType }).end(text),
      () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

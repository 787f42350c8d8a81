/**
 * The admin port: `GET /metrics` in Prometheus text format, on its own
 * address so it can stay inside the cluster while the service port faces
 * callers. Nothing else is served there. Its connections are held to the
 * same timeouts and caps as the service port's.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Registry } from "prom-client";
import type { ConnectionSettings } from "../config/server-config.js";
import { ConnectionGate } from "./connection-gate.js";
import { http1Options } from "./dual-protocol-listener.js";

/** The open admin port. */
export interface AdminListener {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `registry` at GET /metrics on host:port (0 picks a free port). */
export async function listenAdmin(registry: Registry, host: string, port: number, settings: ConnectionSettings): Promise<AdminListener> {
  const server = http.createServer(http1Options(settings), (request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found: the admin port serves GET /metrics\n");
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType }).end(text),
      () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n"),
    );
  });
  const gate = new ConnectionGate(settings.maxConnections, settings.maxConnectionsPerAddress);
  // Before the HTTP server sees it: a connection over a cap is closed on arrival.
  const awaitingFirstRequest = new WeakMap<Socket, NodeJS.Timeout>();
  server.prependListener("connection", (socket: Socket) => {
    if (!gate.admit(socket)) return;
    // Node's headers timeout starts at a request's first byte; a socket that never sends one is closed here.
    const silent = setTimeout(() => socket.destroy(), settings.headersTimeoutMs);
    awaitingFirstRequest.set(socket, silent);
    socket.once("close", () => clearTimeout(silent));
  });
  server.prependListener("request", (request: http.IncomingMessage) => clearTimeout(awaitingFirstRequest.get(request.socket)));
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

/**
 * One port for both HTTP/2 (gRPC clients) and HTTP/1.1 (Connect JSON over
 * curl, gRPC-Web). With TLS, ALPN decides, as usual. In cleartext, Node's
 * HTTP/2 server cannot fall back to HTTP/1, so this listener reads the first
 * bytes of each connection: the HTTP/2 client preface (h2c with prior
 * knowledge) goes to the HTTP/2 server, anything else to the HTTP/1.1 server.
 * A TLS client that offers no ALPN is sorted the same way.
 *
 * Every connection must earn its keep (ConnectionSettings): one that sends
 * nothing, or its headers too slowly, is closed at the headers timeout (the
 * sniff is timed too); one idle past the idle timeout is closed; a quiet
 * HTTP/2 connection with streams open is PINGed and closed if it does not
 * answer; and the port keeps no more connections than its caps allow.
 */
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import tls from "node:tls";
import type { ConnectionSettings } from "../config/server-config.js";
import { ConnectionGate } from "./connection-gate.js";

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

type Handler = (
  request: http.IncomingMessage | http2.Http2ServerRequest,
  response: http.ServerResponse | http2.Http2ServerResponse,
) => void;

export interface DualProtocolListener {
  /** The bound address. */
  readonly port: number;
  readonly host: string;
  /** With TLS: serves new connections with this certificate and key (and client CA); open ones keep theirs. */
  replaceCertificate(options: tls.SecureContextOptions): void;
  /**
   * Drains. The connections open now carry the calls in flight: idle ones
   * are ended at once, busy ones as their calls finish (HTTP/2 gets GOAWAY),
   * and those left after `graceMs` are destroyed. Until then new connections
   * are still accepted, each for one request (HTTP/2) or until idle
   * (HTTP/1.1), so a load balancer's health probe gets an answer rather than
   * "connection refused"; what that answer is, the handler decides. Then the
   * port closes, and the promise resolves when no connection is left.
   */
  close(graceMs?: number): Promise<void>;
}

/** HTTP/1.1 options for `settings`, shared with the metrics port. */
export function http1Options(settings: ConnectionSettings): http.ServerOptions {
  return {
    headersTimeout: settings.headersTimeoutMs,
    // Node insists the whole request take no less than its headers.
    requestTimeout: Math.max(settings.requestTimeoutMs, settings.headersTimeoutMs),
    keepAliveTimeout: settings.idleTimeoutMs,
    maxHeaderSize: settings.maxHeaderListBytes,
    // Node checks those timeouts on this period (30 s by default), so a short timeout needs a short period.
    connectionsCheckingInterval: Math.min(1_000, Math.max(100, settings.headersTimeoutMs / 4)),
  };
}

/** Listens on host:port; with `tlsOptions`, every connection is TLS (their requestCert/rejectUnauthorized decide mTLS). */
export async function listenDualProtocol(
  handler: Handler,
  host: string,
  port: number,
  settings: ConnectionSettings,
  tlsOptions?: tls.TlsOptions,
): Promise<DualProtocolListener> {
  const h2 = http2.createServer(
    { settings: { maxConcurrentStreams: settings.maxConcurrentStreams, maxHeaderListSize: settings.maxHeaderListBytes } },
    handler as never,
  );
  const h1 = http.createServer(http1Options(settings), handler as never);
  // Node tracks HTTP/1.1 connections (for the headers and request timeouts,
  // and for closeIdleConnections) only once its server is listening; this
  // one never listens itself, it is handed connections, so it is told.
  h1.emit("listening");
  const gate = new ConnectionGate(settings.maxConnections, settings.maxConnectionsPerAddress);
  const sockets = new Set<net.Socket>();
  const unsniffed = new Set<net.Socket>();
  const sessions = new Set<http2.Http2Session>();
  let draining = false;
  // The socket under the session being created: Node hides it behind a proxy that cannot be destroyed.
  let arriving: net.Socket | undefined;
  const toHttp2 = (socket: net.Socket) => {
    arriving = socket;
    h2.emit("connection", socket);
    arriving = undefined;
  };
  h2.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    const socket = arriving;
    keepSessionHonest(session, settings, () => {
      session.destroy();
      socket?.destroy();
    });
    // A connection opened while draining serves the request it came with, then gets GOAWAY.
    if (draining) session.once("stream", () => session.close());
  });

  // Node's HTTP/1.1 headers timeout starts at a request's first byte; a TLS
  // connection that chose HTTP/1.1 by ALPN and then says nothing is closed here.
  const awaitingFirstRequest = new WeakMap<net.Socket, NodeJS.Timeout>();
  h1.prependListener("request", (request: http.IncomingMessage) => clearTimeout(awaitingFirstRequest.get(request.socket)));
  const toHttp1 = (socket: net.Socket) => {
    const silent = setTimeout(() => socket.destroy(), settings.headersTimeoutMs);
    awaitingFirstRequest.set(socket, silent);
    socket.once("close", () => clearTimeout(silent));
    h1.emit("connection", socket);
  };

  const sniff = (socket: net.Socket) => {
    let seen = Buffer.alloc(0);
    unsniffed.add(socket);
    // A connection that never says which protocol it speaks is closed like one that never sends its headers.
    const silent = setTimeout(() => socket.destroy(), settings.headersTimeoutMs);
    socket.once("close", () => {
      clearTimeout(silent);
      unsniffed.delete(socket);
    });
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const compared = Math.min(seen.length, PREFACE.length);
      const isHttp2 = seen.subarray(0, compared).equals(PREFACE.subarray(0, compared));
      if (isHttp2 && seen.length < PREFACE.length) return;
      clearTimeout(silent);
      unsniffed.delete(socket);
      socket.off("data", onData);
      socket.pause();
      // Put back what was read: the HTTP/1.1 server reads it from the socket
      // first, and an HTTP/2 session takes it from the socket's buffer before
      // it reads the socket's handle itself, so its bytes never pass through JS.
      socket.unshift(seen);
      if (isHttp2) {
        // A TLS client that offered no ALPN but speaks HTTP/2: say so, as ALPN would
        // have, or Node's HTTP/2 server takes it for an unknown protocol and closes it.
        if (socket instanceof tls.TLSSocket) (socket as { alpnProtocol: string | false }).alpnProtocol = "h2";
        toHttp2(socket);
      } else {
        h1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
  };
  const accept = (socket: net.Socket) => {
    if (socket.destroyed) return;
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const protocol = socket instanceof tls.TLSSocket ? socket.alpnProtocol : false;
    if (protocol === "h2") toHttp2(socket);
    else if (protocol === "http/1.1") toHttp1(socket);
    else sniff(socket);
  };
  const server =
    tlsOptions === undefined
      ? net.createServer(accept)
      : tls
          .createServer({ ...tlsOptions, ALPNProtocols: ["h2", "http/1.1"], handshakeTimeout: settings.headersTimeoutMs }, accept)
          // A failed or timed-out handshake: Node leaves the socket to this listener.
          .on("tlsClientError", (_error, socket) => socket.destroy());
  // Counted at the TCP connection, before any handshake: a TLS connection that never completes one counts too.
  server.prependListener("connection", (socket: net.Socket) => gate.admit(socket));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as net.AddressInfo;

  return {
    port: address.port,
    host: address.address,
    replaceCertificate(options) {
      if (!(server instanceof tls.Server)) throw new Error("the listener does not speak TLS");
      server.setSecureContext(options);
    },
    async close(graceMs = 5_000) {
      draining = true;
      const inFlight = [...sockets].map(
        (socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once("close", () => resolve()))),
      );
      // Connections that have not said what they speak carry no call: they go now.
      for (const socket of unsniffed) socket.destroy();
      for (const session of sessions) session.close();
      // HTTP/1.1 keep-alive connections go idle as their last response is sent; close each when it does.
      h1.closeIdleConnections();
      const sweep = setInterval(() => h1.closeIdleConnections(), 100);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all(inFlight), graceOver]);
      clearTimeout(timer);
      clearInterval(sweep);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Stops its connection tracking; it never listened, so the error its callback gets is expected.
      h1.close(() => {});
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** How long a keepalive PING may go unanswered (gRPC's keepalive timeout). */
const PING_ANSWER_MS = 20_000;

/**
 * HTTP/2 has no headers or idle timeout of its own in Node. A session must
 * open its first stream within the headers timeout; with no stream open, it
 * is closed (GOAWAY) after the idle timeout; with streams open but quiet (a
 * health Watch), it is PINGed every keepalive interval and destroyed if the
 * PING is not answered, so a vanished peer does not hold its streams.
 */
function keepSessionHonest(session: http2.Http2Session, settings: ConnectionSettings, destroy: () => void): void {
  let open = 0;
  const firstRequest = setTimeout(destroy, settings.headersTimeoutMs);
  const arm = () => session.setTimeout(open === 0 ? settings.idleTimeoutMs : settings.keepaliveIntervalMs);
  arm();
  session.on("stream", (stream) => {
    clearTimeout(firstRequest);
    if (open++ === 0) arm();
    stream.once("close", () => {
      if (--open === 0) arm();
    });
  });
  session.on("timeout", () => {
    if (open === 0) {
      session.close();
      return;
    }
    const unanswered = setTimeout(destroy, Math.min(PING_ANSWER_MS, settings.keepaliveIntervalMs));
    const sent = session.ping((error) => {
      clearTimeout(unanswered);
      if (error !== null) destroy();
    });
    if (!sent) clearTimeout(unanswered);
  });
  session.once("close", () => clearTimeout(firstRequest));
}

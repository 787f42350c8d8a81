/**
 * Bare clients for tests of the HTTP layer: a TCP socket that says nothing
 * (or too little), an HTTP/2 session that sends exactly the frames a test
 * wants, and a gRPC request built by hand, so a test controls every byte a
 * misbehaving client would send.
 */
import type http2 from "node:http2";
import net from "node:net";

/**
 * Resolves once the server has closed `socket`, with the milliseconds since
 * the call (a lower bound a test may check: a timer never fires early). There
 * is no upper bound: a test gives the server no other reason to close in
 * time, and the test's own timeout ends a wait for a close that never comes.
 */
export function closed(socket: net.Socket | http2.ClientHttp2Session): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(0);
    socket.once("close", () => resolve(performance.now() - started));
  });
}

/**
 * Resolves once the server has read every frame sent on `session` so far: a
 * PING is answered in order, after the frames before it, so its answer says
 * the server has them (and has begun any call their HEADERS opened).
 */
export async function framesRead(session: http2.ClientHttp2Session): Promise<void> {
  // A PING sent while the session still connects is cancelled, not queued.
  if (session.connecting) await new Promise((resolve) => session.once("connect", resolve));
  await new Promise<void>((resolve, reject) => {
    session.ping((error) => (error === null ? resolve() : reject(error)));
  });
}

/**
 * A plain TCP connection to host:port, once connected. What the server sends
 * is read and dropped (unread data would hold back the close event); errors
 * (resets) are ignored: the close is what tests watch.
 */
export function rawSocket(address: string): Promise<net.Socket> {
  const [host, port] = address.split(":");
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), host, () => resolve(socket));
    socket.resume();
    socket.on("error", () => socket.destroy());
    socket.once("error", reject);
  });
}

/** A 5-byte gRPC envelope header announcing `length` bytes, followed by `payload`. */
export function grpcFrame(payload: Uint8Array, length = payload.length): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(length, 1);
  return Buffer.concat([header, payload]);
}

/** What a gRPC response said: its status from headers (trailers-only) or trailers, and the status details. */
export interface GrpcStatus {
  readonly status: number;
  readonly message?: string;
  readonly detailsBin?: string;
}

/** Opens a gRPC call on `session` and resolves with its status; `send` writes the body (and ends it, or not). */
export function grpcCall(
  session: http2.ClientHttp2Session,
  path: string,
  send: (stream: http2.ClientHttp2Stream) => void,
  headers: http2.OutgoingHttpHeaders = {},
): Promise<GrpcStatus> {
  const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...headers });
  return new Promise((resolve, reject) => {
    const read = (fields: http2.IncomingHttpHeaders) =>
      fields["grpc-status"] === undefined
        ? undefined
        : {
            status: Number(fields["grpc-status"]),
            message: fields["grpc-message"] === undefined ? undefined : decodeURIComponent(String(fields["grpc-message"])),
            detailsBin: fields["grpc-status-details-bin"] as string | undefined,
          };
    stream.on("response", (fields) => {
      const status = read(fields);
      if (status !== undefined) resolve(status);
    });
    stream.on("trailers", (fields) => {
      const status = read(fields);
      if (status !== undefined) resolve(status);
    });
    stream.on("error", reject);
    stream.on("close", () => reject(new Error(`stream closed without a status (rst code ${stream.rstCode})`)));
    stream.resume();
    send(stream);
  });
}

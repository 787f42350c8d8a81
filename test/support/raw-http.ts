/**
 * Bare clients for tests of the HTTP layer: a TCP socket that says nothing
 * (or too little), an HTTP/2 session that sends exactly the frames a test
 * wants, and a gRPC request built by hand, so a test controls every byte a
 * misbehaving client would send.
 */
import type http2 from "node:http2";
import net from "node:net";

/** Resolves with the milliseconds until the server closes `socket`, or rejects after `withinMs`. */
export function closedWithin(socket: net.Socket | http2.ClientHttp2Session, withinMs: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve(0);
    const timer = setTimeout(() => reject(new Error(`still open after ${withinMs} ms`)), withinMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
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

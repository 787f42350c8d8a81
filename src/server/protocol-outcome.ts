/**
 * How a call ended, read from the response connect built, for the calls
 * calq's own interceptors never saw: those refused by the protocol layer
 * while reading the request (a body over the limit, a body that does not
 * parse, an unsupported content type). Each protocol carries the status in
 * its own place: gRPC in trailers, gRPC-Web in a trailer frame at the end of
 * the body, Connect streaming in an end-stream frame, Connect unary in the
 * HTTP status and a JSON body, and a bare HTTP refusal in its status alone.
 * The status can also be replaced there, before it is written.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { UniversalServerResponse } from "@connectrpc/connect/protocol";
import {
  codeToHttpStatus,
  endStreamFlag,
  endStreamFromJson,
  endStreamToJson,
  errorFromJsonBytes,
  errorToJsonBytes,
} from "@connectrpc/connect/protocol-connect";
import { codeFromHttpStatus, findTrailerError, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { trailerFlag, trailerParse, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";

/**
 * Told the error a response carries (undefined: OK) once it is known, before
 * it is written; returns the error to send instead, or undefined to keep it.
 */
export type Settle = (error: ConnectError | undefined) => ConnectError | undefined;

/** `response`, with `settle` called once on its status, which it may replace. */
export function settleOutcome(response: UniversalServerResponse, settle: Settle): UniversalServerResponse {
  const contentType = response.header?.get("content-type") ?? "";
  if (/^application\/grpc-web/i.test(contentType))
    return { ...response, body: rewriteLastFrame(response.body, trailerFlag, grpcWebTrailer(settle)) };
  if (/^application\/grpc/i.test(contentType)) return { ...response, body: afterBody(response.body, () => grpcTrailer(response, settle)) };
  if (/^application\/connect\+/i.test(contentType))
    return { ...response, body: rewriteLastFrame(response.body, endStreamFlag, connectEndStream(settle)) };
  if (response.status === 200) return { ...response, body: afterBody(response.body, () => void settle(undefined)) };
  if (/^application\/json/i.test(contentType)) return connectUnaryError(response, settle);
  settle(new ConnectError(`HTTP ${response.status}`, codeOfBareRefusal(response.status)));
  return response;
}

/**
 * What a refusal that carries only an HTTP status means. gRPC clients read
 * 415 and 405 as UNKNOWN, which would count a client's wrong content type or
 * verb as a server fault; they are the request's fault, and named so.
 */
function codeOfBareRefusal(status: number): Code {
  if (status === 415) return Code.InvalidArgument;
  if (status === 405) return Code.Unimplemented;
  return codeFromHttpStatus(status);
}

/** The body unchanged, with `done` run once it has been read to its end. */
async function* afterBody(body: AsyncIterable<Uint8Array> | undefined, done: () => void): AsyncIterable<Uint8Array> {
  if (body !== undefined) yield* body;
  done();
}

function grpcTrailer(response: UniversalServerResponse, settle: Settle): void {
  const trailer = response.trailer ?? new Headers();
  const replacement = settle(findTrailerError(trailer));
  if (replacement === undefined) return;
  for (const name of ["grpc-status", "grpc-message", "grpc-status-details-bin"]) trailer.delete(name);
  setTrailerStatus(trailer, replacement);
}

/**
 * Replaces the payload of the closing frame, the one with `flag` (an
 * envelope: flag byte, 4-byte length, payload). connect yields one envelope
 * per chunk, so every other chunk passes at once: a stream's messages are
 * never held back.
 */
async function* rewriteLastFrame(
  body: AsyncIterable<Uint8Array> | undefined,
  flag: number,
  rewrite: (payload: Uint8Array) => Uint8Array | undefined,
): AsyncIterable<Uint8Array> {
  for await (const chunk of body ?? []) {
    const replaced = chunk.length >= 5 && (chunk[0] & flag) === flag ? rewrite(chunk.subarray(5)) : undefined;
    if (replaced === undefined) {
      yield chunk;
      continue;
    }
    const frame = new Uint8Array(5 + replaced.length);
    frame[0] = chunk[0];
    new DataView(frame.buffer).setUint32(1, replaced.length);
    frame.set(replaced, 5);
    yield frame;
  }
}

const grpcWebTrailer =
  (settle: Settle) =>
  (payload: Uint8Array): Uint8Array | undefined => {
    const replacement = settle(findTrailerError(trailerParse(payload)));
    return replacement === undefined ? undefined : trailerSerialize(setTrailerStatus(new Headers(), replacement));
  };

const connectEndStream =
  (settle: Settle) =>
  (payload: Uint8Array): Uint8Array | undefined => {
    const { metadata, error } = endStreamFromJson(payload);
    const replacement = settle(error);
    return replacement === undefined
      ? undefined
      : new TextEncoder().encode(JSON.stringify(endStreamToJson(metadata, replacement, undefined)));
  };

/** A Connect unary error: its code in a JSON body, its HTTP status derived from the code. */
function connectUnaryError(response: UniversalServerResponse, settle: Settle): UniversalServerResponse {
  const fallback = new ConnectError(`HTTP ${response.status}`, codeFromHttpStatus(response.status));
  const settled: UniversalServerResponse = { ...response };
  // The Node adapter reads the status after the first chunk, so a replacement's status is set while making that chunk.
  settled.body = (async function* () {
    const chunks: Uint8Array[] = [];
    for await (const chunk of response.body ?? []) chunks.push(chunk);
    const bytes = Buffer.concat(chunks);
    const replacement = settle(bytes.length === 0 ? fallback : errorFromJsonBytes(bytes, undefined, fallback));
    if (replacement === undefined) {
      yield bytes;
      return;
    }
    const replaced = errorToJsonBytes(replacement, undefined);
    settled.status = codeToHttpStatus(replacement.code);
    settled.header = new Headers(response.header);
    settled.header.set("content-length", String(replaced.length));
    yield replaced;
  })();
  return settled;
}

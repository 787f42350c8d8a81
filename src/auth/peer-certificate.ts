/**
 * The client certificate of the connection a call arrived on, when it is a
 * TLS connection whose client certificate the server verified (mTLS). The
 * Node adapter puts it among the call's context values; the authenticator
 * reads it.
 */
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import { TLSSocket } from "node:tls";
import { type ContextValues, createContextKey, createContextValues } from "@connectrpc/connect";

/** What calq reads from a verified client certificate. */
export interface PeerCertificate {
  /** The subject's common name (CN). */
  readonly subjectCommonName?: string;
}

/** Undefined on plaintext connections and on TLS connections without a verified client certificate. */
export const PEER_CERTIFICATE = createContextKey<PeerCertificate | undefined>(undefined, { description: "calq peer certificate" });

/** The verified client certificate of the connection a Node request arrived on, if any. */
export function peerCertificateOf(request: IncomingMessage | Http2ServerRequest): PeerCertificate | undefined {
  const socket = "stream" in request ? request.stream.session?.socket : request.socket;
  if (!(socket instanceof TLSSocket && socket.authorized)) return undefined;
  const subject = socket.getPeerCertificate().subject as Record<string, string | string[]> | undefined;
  const cn = subject?.CN;
  return { subjectCommonName: Array.isArray(cn) ? cn[0] : cn };
}

/** Context values of a Node request: its verified peer certificate, if any. */
export function peerContextValues(request: IncomingMessage | Http2ServerRequest): ContextValues {
  const values = createContextValues();
  const peer = peerCertificateOf(request);
  if (peer !== undefined) values.set(PEER_CERTIFICATE, peer);
  return values;
}

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

/** Context values of a Node request: its verified peer certificate, if any. */
export function peerContextValues(request: IncomingMessage | Http2ServerRequest): ContextValues {
  const values = createContextValues();
  const socket = "stream" in request ? request.stream.session?.socket : request.socket;
  if (socket instanceof TLSSocket && socket.authorized) {
    const subject = socket.getPeerCertificate().subject as Record<string, string | string[]> | undefined;
    const cn = subject?.CN;
    values.set(PEER_CERTIFICATE, { subjectCommonName: Array.isArray(cn) ? cn[0] : cn });
  }
  return values;
}

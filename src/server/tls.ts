/**
 * TLS for the service port, from the files named by the tls settings. With a
 * client CA, the server asks every client for a certificate and refuses the
 * handshake without one that CA signed (mTLS); who the client is then comes
 * from the certificate's subject when principal_from_certificate is set
 * (authenticator.ts).
 */
import { readFileSync } from "node:fs";
import type { TlsOptions } from "node:tls";
import { ConfigError } from "../config/calq-config.js";
import type { TlsSettings } from "../config/server-config.js";

/** Node TLS options for `settings`; ConfigError names a file that cannot be read. */
export function tlsOptions(settings: TlsSettings): TlsOptions {
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch {
      throw new ConfigError(`tls: cannot read the ${what} file ${path}`);
    }
  };
  const clientCa = settings.clientCaFile === undefined ? undefined : read(settings.clientCaFile, "client CA");
  return {
    cert: read(settings.certFile, "certificate"),
    key: read(settings.keyFile, "private key"),
    minVersion: "TLSv1.2",
    ...(clientCa === undefined ? {} : { ca: clientCa, requestCert: true, rejectUnauthorized: true }),
  };
}

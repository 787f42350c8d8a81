/**
 * TLS for the service port, from the files named by the tls settings. With a
 * client CA, the server asks every client for a certificate and refuses the
 * handshake without one that CA signed (mTLS); who the client is then comes
 * from the certificate's subject when principal_from_certificate is set
 * (authenticator.ts).
 */
import { readFileSync, unwatchFile, watchFile } from "node:fs";
import type { TlsOptions } from "node:tls";
import { ConfigError } from "../config/config-model.js";
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

/** How often the certificate files are checked for a new version. */
const CHECK_MS = 1_000;

/**
 * Watches the certificate, key and client CA files (by polling their stat,
 * which also sees a file replaced by rename or a swapped symlink, as
 * cert-manager does) and hands each new, complete set to `replace`. A set
 * that cannot be read or does not fit together (a key from another pair, a
 * file caught mid-write) is reported and the certificate in use stays.
 * Returns a function that stops watching.
 */
export function watchCertificates(
  settings: TlsSettings,
  replace: (options: TlsOptions) => void,
  report: (outcome: { readonly reloaded: boolean; readonly error?: string }) => void,
): () => void {
  const files = [settings.certFile, settings.keyFile, settings.clientCaFile].filter((file): file is string => file !== undefined);
  const reload = () => {
    try {
      replace(tlsOptions(settings));
      report({ reloaded: true });
    } catch (error) {
      report({ reloaded: false, error: error instanceof Error ? error.message : String(error) });
    }
  };
  for (const file of files) watchFile(file, { interval: CHECK_MS, persistent: false }, reload);
  return () => {
    for (const file of files) unwatchFile(file, reload);
  };
}

/**
 * Certificates made for a test run with selfsigned: a CA, a server
 * certificate for 127.0.0.1 signed by it, and client certificates signed by
 * it (or by another CA, to be refused).
 */
import { generate } from "selfsigned";

export interface Pem {
  readonly cert: string;
  readonly key: string;
}

const OPTIONS = { keyType: "ec", algorithm: "sha256" } as const;

/** A certificate authority. */
export async function certificateAuthority(name: string): Promise<Pem> {
  const made = await generate([{ name: "commonName", value: name }], {
    ...OPTIONS,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: made.cert, key: made.private };
}

/** A leaf certificate signed by `ca`: for a server at 127.0.0.1, or for a client with subject CN `commonName`. */
export async function leafCertificate(ca: Pem, commonName: string, use: "server" | "client"): Promise<Pem> {
  const made = await generate([{ name: "commonName", value: commonName }], {
    ...OPTIONS,
    ca: { cert: ca.cert, key: ca.key },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: use === "server", clientAuth: use === "client" },
      ...(use === "server" ? [{ name: "subjectAltName" as const, altNames: [{ type: 7 as const, ip: "127.0.0.1" }] }] : []),
    ],
  });
  return { cert: made.cert, key: made.private };
}

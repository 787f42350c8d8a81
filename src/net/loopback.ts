/**
 * Which bind addresses only this machine can reach. The service and the MCP
 * gateway both refuse plaintext (bearer tokens in the clear) on any other
 * address unless told a proxy in front terminates TLS, so they must agree
 * on what "loopback" means.
 */

/** 127.0.0.0/8, ::1 and localhost: addresses no other machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

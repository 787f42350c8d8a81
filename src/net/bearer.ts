/**
 * `authorization: Bearer <token>` (RFC 6750), read one way for the service
 * and the gateway: the scheme in any case, one token of visible ASCII,
 * surrounding spaces ignored. Anything else is no token at all.
 */
const BEARER = /^Bearer ([\x21-\x7e]+)$/i;

/** The token of an authorization header, or undefined when it carries none. */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  if (authorization === null || authorization === undefined) return undefined;
  return BEARER.exec(authorization.trim())?.[1];
}

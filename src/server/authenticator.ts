/**
 * Who is calling: the principal behind the bearer token of the request,
 * never a request field. Tokens are compared by their SHA-256 digests, as
 * calq.yaml stores them.
 */
import type { HandlerContext } from "@connectrpc/connect";
import { CalqError } from "../calq-error.js";
import { sha256Hex, type CalqConfig, type PrincipalConfig } from "../config/calq-config.js";
import { callInfo } from "./call-info.js";

export type Principal = PrincipalConfig;

export class Authenticator {
  private readonly byDigest = new Map<string, Principal>();

  constructor(config: CalqConfig) {
    for (const principal of config.principals) {
      for (const digest of principal.tokenDigests) this.byDigest.set(digest, principal);
    }
  }

  /**
   * The caller of a request, taken from its credentials alone; UNAUTHENTICATED
   * otherwise. Async so that credential checks needing I/O fit the same shape.
   */
  async authenticate(context: HandlerContext): Promise<Principal> {
    const principal = this.fromAuthorization(context.requestHeader.get("authorization"));
    const info = callInfo(context);
    if (info !== undefined) info.principalId = principal.id;
    return principal;
  }

  /** The principal of an `authorization: Bearer <token>` header; UNAUTHENTICATED otherwise. */
  fromAuthorization(authorization: string | null): Principal {
    const match = authorization === null ? null : /^Bearer ([\x21-\x7e]+)$/i.exec(authorization.trim());
    const principal = match === null ? undefined : this.byDigest.get(sha256Hex(match[1]));
    if (principal === undefined) {
      throw new CalqError(
        "UNAUTHENTICATED",
        "missing or unknown credentials: send authorization: Bearer <token>; fix the credentials, not the arguments",
      );
    }
    return principal;
  }
}

/**
 * Who is calling: the principal behind the request's credentials, never a
 * request field. In order:
 *
 * 1. `authorization: Bearer <token>` with a static token of calq.yaml
 *    (compared by SHA-256 digest, as calq.yaml stores them);
 * 2. the same header with a JWT, when auth.jwt is configured (jwt.ts):
 *    `sub` is the principal id and the token's scopes are its capabilities;
 *    the calq.yaml principal of that id, if any, lends only its `primary`
 *    calendar and time zone, never its capabilities;
 * 3. without an authorization header, the client certificate of an mTLS
 *    connection, when tls.principal_from_certificate is set: its subject CN
 *    names a calq.yaml principal.
 *
 * Principals of calq.yaml hold calendar.read implicitly; a JWT needs the
 * calendar.read scope to read even the calendars that list it as reader.
 *
 * Whoever the caller is, a registry person of that id lends their primary
 * calendar, zone and working hours, over calq.yaml's (docs/decisions.md,
 * "The calendar registry"); credentials and capabilities stay calq.yaml's
 * and the token's.
 */
import type { HandlerContext } from "@connectrpc/connect";
import { CalqError } from "../calq-error.js";
import { KNOWN_CAPABILITIES, READ } from "../config/capabilities.js";
import type { CalqConfig, PersonSettings, PrincipalConfig } from "../config/config-model.js";
import { sha256Hex } from "../config/secret.js";
import type { Logger } from "../log.js";
import { bearerToken } from "../net/bearer.js";
import { type JwtVerifier, looksLikeJwt, TokenRejected } from "./jwt.js";
import { PEER_CERTIFICATE, type PeerCertificate } from "./peer-certificate.js";

/** The authenticated caller: a principal of calq.yaml, or one named by a verified token. */
export type Principal = PrincipalConfig;

export type { PersonSettings } from "../config/config-model.js";

export interface AuthenticatorOptions {
  /** Verifies bearer JWTs; static tokens only when absent. */
  readonly jwt?: JwtVerifier;
  /** The registry's people: settings that take precedence over calq.yaml's for the principal of that id. */
  readonly people?: (principalId: string) => Promise<PersonSettings | undefined>;
  /** Take the principal from a verified client certificate's subject CN. */
  readonly principalFromCertificate?: boolean;
  readonly log?: Logger;
}

export class Authenticator {
  private readonly byDigest = new Map<string, Principal>();
  private readonly byId = new Map<string, Principal>();

  constructor(
    config: CalqConfig,
    private readonly options: AuthenticatorOptions = {},
  ) {
    for (const configured of config.principals) {
      const principal = { ...configured, capabilities: [...new Set([READ, ...configured.capabilities])] };
      this.byId.set(principal.id, principal);
      for (const digest of principal.tokenDigests) this.byDigest.set(digest, principal);
    }
  }

  /**
   * The caller of a request, taken from its credentials alone; UNAUTHENTICATED
   * otherwise.
   */
  authenticate(context: Pick<HandlerContext, "requestHeader" | "values">): Promise<Principal> {
    return this.identify(context.requestHeader.get("authorization"), context.values.get(PEER_CERTIFICATE));
  }

  /**
   * The caller behind an authorization header and a verified client
   * certificate, before anything else of the request is read: the HTTP layer
   * asks this to decide how large a body it will read.
   */
  verify(authorization: string | null, peer: PeerCertificate | undefined): Promise<Principal> {
    return this.identify(authorization, peer);
  }

  private async identify(authorization: string | null, peer: PeerCertificate | undefined): Promise<Principal> {
    const principal = await this.credentialsOf(authorization, peer);
    const person = await this.options.people?.(principal.id);
    if (person === undefined) return principal;
    return {
      ...principal,
      primary: person.primary ?? principal.primary,
      timezone: person.timezone ?? principal.timezone,
      workingHours: person.workingHours ?? principal.workingHours,
      weekStart: person.weekStart ?? principal.weekStart,
      emails: person.emails ?? principal.emails,
    };
  }

  private async credentialsOf(authorization: string | null, peer: PeerCertificate | undefined): Promise<Principal> {
    if (authorization === null && this.options.principalFromCertificate) {
      const subject = peer?.subjectCommonName;
      const principal = subject === undefined ? undefined : this.byId.get(subject);
      if (principal !== undefined) return principal;
    }
    const token = bearerToken(authorization);
    if (token === undefined) throw unauthenticated();
    const principal = this.byDigest.get(sha256Hex(token));
    if (principal !== undefined) return principal;
    if (this.options.jwt !== undefined && looksLikeJwt(token)) return this.fromJwt(this.options.jwt, token);
    throw unauthenticated();
  }

  private async fromJwt(verifier: JwtVerifier, token: string): Promise<Principal> {
    try {
      const { subject, scopes, email } = await verifier.verify(token);
      const configured = this.byId.get(subject);
      const emails = [...new Set([...(configured?.emails ?? []), ...(email === undefined ? [] : [email])])];
      return {
        id: subject,
        primary: configured?.primary,
        timezone: configured?.timezone,
        tokenDigests: [],
        capabilities: scopes.filter((scope) => KNOWN_CAPABILITIES.has(scope)),
        workingHours: configured?.workingHours,
        weekStart: configured?.weekStart,
        emails,
      };
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      this.options.log?.({ level: "debug", msg: "JWT rejected", why: error.message });
      throw unauthenticated();
    }
  }
}

/** The one refusal for missing, unknown, expired or otherwise bad credentials. */
function unauthenticated(): CalqError {
  return new CalqError(
    "UNAUTHENTICATED",
    "missing, unknown, invalid or expired credentials: send authorization: Bearer <token>; fix the credentials, not the arguments",
  );
}

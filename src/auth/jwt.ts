/**
 * Bearer JWTs (jose): RS256/ES256 against a JWKS file, re-read whenever the
 * file changes so keys can rotate without a restart, or HS256 with a secret
 * from the environment. `iss`, `aud`, `exp` (required) and `nbf` are checked
 * with the configured clock skew; `sub` is the principal id and the `scope`
 * (space-separated) or `scp` (list) claim gives its capabilities. An
 * `email` claim, unless `email_verified` says false, is one of the
 * bearer's addresses (how a search finds their own answers to invitations).
 *
 * Every failure is the same UNAUTHENTICATED refusal: which check failed is
 * the operator's business (debug log), not the caller's.
 */
import { readFile, stat } from "node:fs/promises";
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from "jose";
import { ConfigError } from "../config/config-model.js";
import type { JwtSettings } from "../config/server-config.js";
import type { Logger } from "../log.js";

/** What a verified token says about its bearer. */
export interface VerifiedToken {
  readonly subject: string;
  readonly scopes: readonly string[];
  /** The `email` claim, lower-cased, unless `email_verified` is false; absent when the token has none. */
  readonly email?: string;
}

/** A token that did not verify; the reason is for the operator's log only. */
export class TokenRejected extends Error {}

/** Shortest HS256 secret accepted: RFC 7518 §3.2 asks for a key as long as the hash. */
const MIN_SECRET_BYTES = 32;

/** Where the verifier reads its secret, writes its notes and tells the time. */
export interface JwtVerifierContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  readonly now: () => number;
}

/** Verifies bearer JWTs against the configured keys and claims. */
export class JwtVerifier {
  private readonly secret?: Uint8Array;
  private readonly algorithms: string[];
  private jwks?: { version: string; keys: JWTVerifyGetKey };

  constructor(
    private readonly settings: JwtSettings,
    private readonly context: JwtVerifierContext,
  ) {
    if (settings.hs256SecretEnv !== undefined) {
      const secret = context.env[settings.hs256SecretEnv];
      if (secret === undefined || Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
        throw new ConfigError(`auth.jwt: ${settings.hs256SecretEnv} must hold an HS256 secret of at least ${MIN_SECRET_BYTES} bytes`);
      }
      this.secret = new TextEncoder().encode(secret);
    }
    this.algorithms = [...(settings.jwksFile === undefined ? [] : ["RS256", "ES256"]), ...(this.secret === undefined ? [] : ["HS256"])];
  }

  /** The bearer of `token`; throws TokenRejected when any check fails. */
  async verify(token: string): Promise<VerifiedToken> {
    const keys = await this.currentKeys();
    const getKey: JWTVerifyGetKey = (header, input) => {
      if (header.alg === "HS256" && this.secret !== undefined) return this.secret;
      if (keys === undefined) throw new TokenRejected("no JWKS keys loaded");
      return keys(header, input);
    };
    try {
      const { payload } = await jwtVerify(token, getKey, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: this.algorithms,
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ["exp", "sub"],
        currentDate: new Date(this.context.now()),
      });
      const email = typeof payload.email === "string" && payload.email_verified !== false ? payload.email.trim().toLowerCase() : "";
      return { subject: payload.sub!, scopes: scopesOf(payload.scope, payload.scp), ...(email === "" ? {} : { email }) };
    } catch (error) {
      throw new TokenRejected(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  }

  /**
   * The JWKS as the file is now. The file is stat'ed on each verification
   * (cheap) and re-read only when its size, inode or times changed; a file
   * that cannot be read or parsed keeps the last good keys.
   */
  private async currentKeys(): Promise<JWTVerifyGetKey | undefined> {
    const path = this.settings.jwksFile;
    if (path === undefined) return undefined;
    try {
      const info = await stat(path, { bigint: true });
      const version = `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
      if (this.jwks?.version !== version) {
        const set = JSON.parse(await readFile(path, "utf8")) as JSONWebKeySet;
        this.jwks = { version, keys: createLocalJWKSet(set) };
        this.context.log({ level: "info", msg: "JWKS loaded", keys: Array.isArray(set.keys) ? set.keys.length : 0 });
      }
    } catch (error) {
      this.context.log({
        level: "warn",
        msg: "JWKS file unreadable; keeping the last good keys",
        error: error instanceof Error ? error.message : String(error),
      });
    }
    return this.jwks?.keys;
  }
}

function scopesOf(scope: unknown, scp: unknown): string[] {
  if (typeof scope === "string") return scope.split(" ").filter((item) => item !== "");
  if (Array.isArray(scp)) return scp.filter((item): item is string => typeof item === "string");
  return [];
}

/** Three base64url parts: worth handing to the JWT verifier rather than the static-token table. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

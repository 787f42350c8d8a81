/**
 * Bearer JWTs over a real port: RS256 and ES256 against a JWKS file on disk
 * (rewritten to rotate keys), HS256 with a secret from the environment, and
 * every bad token refused with the same UNAUTHENTICATED answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf, grpc } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const ISSUER = "https://id.calq.test";
const AUDIENCE = "calq";
const SECRET = "an HS256 secret that is long enough for RFC 7518";

interface Signer {
  readonly alg: "RS256" | "ES256";
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

async function signer(alg: Signer["alg"], kid: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

interface Claims {
  sub?: string;
  aud?: string;
  iss?: string;
  scope?: string;
  /** Seconds from now. */
  exp?: number;
  nbf?: number;
}

async function token(key: Signer | "HS256", claims: Claims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ scope: claims.scope ?? "calendar.read" })
    .setSubject(claims.sub ?? "an")
    .setIssuer(claims.iss ?? ISSUER)
    .setAudience(claims.aud ?? AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.exp ?? 300));
  if (claims.nbf !== undefined) jwt.setNotBefore(now + claims.nbf);
  if (key === "HS256") return jwt.setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(SECRET));
  return jwt.setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}

let served: TestServer;
let client: CalqGrpcClient;
let rsa: Signer;
let ec: Signer;
let jwksPath: string;
const writeJwks = (...signers: Signer[]) => writeFileSync(jwksPath, JSON.stringify({ keys: signers.map((s) => s.jwk) }));

beforeAll(async () => {
  rsa = await signer("RS256", "rsa-1");
  ec = await signer("ES256", "ec-1");
  jwksPath = join(mkdtempSync(join(tmpdir(), "calq-jwks-")), "jwks.json");
  writeJwks(rsa, ec);
  served = await startTestServer({
    calendars: { work: ics(...vevent("UID:a", "DTSTART:20261002T020000Z", "DTEND:20261002T030000Z", "SUMMARY:Review")) },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [{ id: "an", primary: "work", timezone: "Asia/Ho_Chi_Minh", tokens: ["static-an"] }],
    },
    serve: {
      jwt: { issuer: ISSUER, audience: AUDIENCE, jwksFile: jwksPath, hs256SecretEnv: "CALQ_TEST_JWT_SECRET", clockSkewSeconds: 30 },
      env: { CALQ_TEST_JWT_SECRET: SECRET },
    },
  });
  client = new CalqGrpcClient(served.address);
});

afterAll(async () => {
  client.close();
  await served.close();
  rmSync(join(jwksPath, ".."), { recursive: true, force: true });
});

const search = (bearer: string) =>
  client.searchEvents(
    { calendarId: "primary", start: "2026-10-02", endExclusive: "2026-10-03", timezone: "UTC", matchMode: MatchMode.OVERLAP },
    bearer,
  );

describe("JWT authentication", () => {
  it.each(["RS256", "ES256", "HS256"] as const)(
    "accepts a good %s token; sub is the principal, calq.yaml lends its primary calendar",
    async (alg) => {
      const bearer = await token(alg === "RS256" ? rsa : alg === "ES256" ? ec : "HS256");
      expect((await search(bearer)).events.map((event) => event.summary)).toEqual(["Review"]);
      const caller = await client.getCallerContext(bearer);
      expect(caller.principalId).toBe("an");
      expect(caller.primaryCalendarId).toBe("work");
      expect(caller.timezone).toBe("Asia/Ho_Chi_Minh");
    },
  );

  it("keeps static tokens from calq.yaml working", async () => {
    expect((await search("static-an")).events).toHaveLength(1);
  });

  const refusals: [string, () => Promise<string>][] = [
    ["expired", () => token(rsa, { exp: -120 })],
    ["not yet valid", () => token(rsa, { nbf: 120 })],
    ["for another audience", () => token(rsa, { aud: "someone-else" })],
    ["from another issuer", () => token(rsa, { iss: "https://evil.test" })],
    ["signed by a key not in the JWKS", async () => token({ ...(await signer("RS256", "rsa-1")) })],
    [
      "with a tampered payload",
      async () => {
        const [header, , signature] = (await token(rsa)).split(".");
        const payload = Buffer.from(JSON.stringify({ sub: "auditor", iss: ISSUER, aud: AUDIENCE, exp: 9_999_999_999 })).toString(
          "base64url",
        );
        return `${header}.${payload}.${signature}`;
      },
    ],
    [
      "unsigned (alg none)",
      async () => {
        const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
        return `${encode({ alg: "none" })}.${encode({ sub: "an", iss: ISSUER, aud: AUDIENCE, exp: 9_999_999_999 })}.`;
      },
    ],
  ];

  it.each(refusals)("refuses a token %s with the same UNAUTHENTICATED answer as any bad credential", async (_case, make) => {
    const failure = await failureOf(search(await make()));
    const baseline = await failureOf(search("no-such-static-token"));
    expect(failure.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(failure.errorInfo?.reason).toBe("UNAUTHENTICATED");
    expect(failure.message).toBe(baseline.message);
    expect(failure.detailsBin!.equals(baseline.detailsBin!)).toBe(true);
  });

  it("tolerates small clock skew on exp and nbf", async () => {
    expect((await search(await token(rsa, { exp: -10 }))).events).toHaveLength(1);
    expect((await search(await token(rsa, { nbf: 10 }))).events).toHaveLength(1);
  });

  it("takes capabilities from scopes only: without calendar.read the caller reads nothing", async () => {
    const failure = await failureOf(search(await token(rsa, { scope: "openid profile" })));
    expect(failure.errorInfo?.reason).toBe("CALENDAR_NOT_ACCESSIBLE");
    const outsider = await token(rsa, { sub: "mallory", scope: "calendar.read" });
    expect(
      (
        await failureOf(
          client.searchEvents(
            { calendarId: "work", start: "2026-10-02", endExclusive: "2026-10-03", timezone: "UTC", matchMode: MatchMode.OVERLAP },
            outsider,
          ),
        )
      ).errorInfo?.reason,
    ).toBe("CALENDAR_NOT_ACCESSIBLE");
    const auditor = await token(rsa, { sub: "mallory", scope: "calendar.read.any" });
    expect((await client.listCalendars(auditor)).calendars.map((calendar) => calendar.id)).toEqual(["work"]);
  });

  it("follows a rotated JWKS file: the new key is accepted and the retired one refused", async () => {
    const next = await signer("RS256", "rsa-2");
    const before = await token(rsa);
    expect((await failureOf(search(await token(next)))).code).toBe(grpc.status.UNAUTHENTICATED);
    writeJwks(next, ec);
    try {
      expect((await search(await token(next))).events).toHaveLength(1);
      expect((await failureOf(search(before))).code).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      writeJwks(rsa, ec);
    }
  });
});

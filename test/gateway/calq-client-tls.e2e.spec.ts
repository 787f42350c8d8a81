/**
 * The gateway reaching a calq that serves TLS with a private CA: trusted
 * with --tls-ca (here: the `ca` option), refused without it, and the flag
 * refused for a plaintext service rather than silently ignored.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asCaller, createCalqClient } from "../../src/gateway/calq-client.js";
import { CALQ, ROOT } from "../support/calq-process.js";
import { certificateAuthority, leafCertificate, type Pem } from "../support/certificates.js";
import { ics, vevent } from "../support/feeds.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let dir: string;
let ca: Pem;
let served: TestServer;

beforeAll(async () => {
  ca = await certificateAuthority("calq gateway test CA");
  const server = await leafCertificate(ca, "calq.test", "server");
  dir = mkdtempSync(join(tmpdir(), "calq-gateway-tls-"));
  writeFileSync(join(dir, "server.crt"), server.cert);
  writeFileSync(join(dir, "server.key"), server.key);
  served = await startTestServer({
    calendars: { work: ics(...vevent("UID:a", "DTSTART:20261002T020000Z", "SUMMARY:A")) },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [{ id: "an", primary: "work", tokens: ["token-an"] }],
    },
    serve: { tls: { certFile: join(dir, "server.crt"), keyFile: join(dir, "server.key"), principalFromCertificate: false } },
  });
});

afterAll(async () => {
  await served.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the gateway's client over TLS", () => {
  it("reaches a calq whose certificate a private CA signed, when given that CA", async () => {
    const client = createCalqClient(`https://${served.address}`, { ca: Buffer.from(ca.cert) });
    expect((await client.getCallerContext({}, asCaller("token-an"))).principalId).toBe("an");
  });

  it("refuses that calq without the CA: the system's CAs do not know it", async () => {
    const client = createCalqClient(`https://${served.address}`);
    await expect(client.getCallerContext({}, asCaller("token-an"))).rejects.toThrow();
  });

  it("calq mcp refuses --tls-ca with a plaintext --service instead of ignoring it", () => {
    const run = spawnSync(process.execPath, [CALQ, "mcp", "--service", "http://127.0.0.1:50051", "--tls-ca", join(dir, "server.crt")], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CALQ_TOKEN: "token-an" },
      timeout: 120_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--tls-ca needs an https:// --service");
  });
});

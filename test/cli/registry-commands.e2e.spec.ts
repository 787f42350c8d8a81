/**
 * `calq calendars` and `calq people` as an operator runs them, against
 * `calq serve` on a real port, for both registry engines: the first add by
 * the built command as a child process, the rest in this process (the same
 * command, without a process start each time). A calendar added is found by `calq search` without a
 * restart; `update` changes only the fields given; `ls` filters and pages;
 * `rm` removes it; `people set` gives a principal their primary calendar;
 * a refused change prints every field at fault and exits 1.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/config/secret.js";
import { CALQ, killed, ROOT, startCalqServe } from "../support/calq-process.js";
import { feed } from "../support/feeds.js";
import { type CommandRun, runInProcess } from "../support/in-process.js";
import { REGISTRY_ENGINES, temporaryFolder } from "../support/registry-engines.js";

const WAIT = { timeout: 30_000, interval: 50 };

/**
 * Runs `calq ARGS` against `address` as `token`, in this process (the
 * command's whole logic, without a process's start-up each time); `built`
 * runs the built command as a child process, as an operator would.
 */
function calq(address: string, token: string, args: string[], built = false): Promise<CommandRun> {
  const argv = [...args, "--address", address, "--token", token];
  if (!built) return runInProcess(argv, {});
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CALQ, ...argv], { cwd: ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("exit", (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
}

const dayFeed = (summary: string) =>
  feed([], [`UID:${summary}@calq.test`, "DTSTART:20261002T090000Z", "DTEND:20261002T093000Z", `SUMMARY:${summary}`]);

const SEARCH = ["--start", "2026-10-02", "--end-exclusive", "2026-10-03", "--timezone", "UTC", "--mode", "overlap"];

describe.each(REGISTRY_ENGINES)("calq calendars and calq people, $name engine", (engine) => {
  const test = engine.gate === "skip" ? it.skip : it;
  let dir: string;
  let address: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    if (engine.gate === "skip") return;
    await engine.setUp();
    dir = temporaryFolder("calq-registry-cli-");
    writeFileSync(join(dir, "team.ics"), dayFeed("Team sync"));
    writeFileSync(join(dir, "moved.ics"), dayFeed("Moved sync"));
    writeFileSync(
      join(dir, "calq.yaml"),
      [
        "calendars: []",
        "principals:",
        `  - {id: admin, tokens: ["sha256:${sha256Hex("token-admin")}"], capabilities: [calendar.admin]}`,
        `  - {id: an, tokens: ["sha256:${sha256Hex("token-an")}"]}`,
      ].join("\n"),
    );
    const registry = await engine.fresh();
    const env: Record<string, string> =
      registry.settings.engine === "postgresql"
        ? {
            CALQ_REGISTRY_ENGINE: "postgresql",
            CALQ_REGISTRY_URL: registry.settings.connectionString,
            CALQ_REGISTRY_FOLDER: registry.folder,
          }
        : { CALQ_REGISTRY_FOLDER: registry.folder };
    const served = await startCalqServe(["--data", dir, "--port", "0"], env);
    address = served.address;
    stop = () => killed(served.child);
  }, 120_000);

  afterAll(async () => {
    await stop?.();
    await engine.tearDown();
  });

  test("a calendar added is searched without a restart, updated field by field, listed, and removed", async () => {
    const added = await calq(
      address,
      "token-admin",
      ["calendars", "add", "team", "--file", join(dir, "team.ics"), "--reader", "an", "--name", "Team"],
      true,
    );
    expect(added).toMatchObject({ status: 0, stderr: "" });
    expect(added.stdout).toMatch(/^created team \(etag [0-9a-f]{16}\)\n$/);
    await vi.waitFor(
      async () => expect((await calq(address, "token-an", ["search", "--calendar", "team", ...SEARCH])).stdout).toContain("Team sync"),
      WAIT,
    );

    const updated = await calq(address, "token-admin", ["calendars", "update", "team", "--file", join(dir, "moved.ics")]);
    expect(updated.stdout).toMatch(/^updated team/);
    await vi.waitFor(
      async () => expect((await calq(address, "token-an", ["search", "--calendar", "team", ...SEARCH])).stdout).toContain("Moved sync"),
      WAIT,
    );

    const listed = await calq(address, "token-admin", ["calendars", "ls", "--prefix", "te", "--json"]);
    const [page] = listed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    // The update kept what it was not told to change.
    expect(page.calendars[0].spec).toMatchObject({
      id: "team",
      displayName: "Team",
      readers: ["an"],
      source: { file: { path: join(dir, "moved.ics") } },
    });
    const table = await calq(address, "token-admin", ["calendars", "ls", "--health", "healthy"]);
    expect(table.stdout).toMatch(/^ID\s+GROUP\s+HEALTH\s+SOURCE\s+READERS\s+ETAG\nteam\s+-\s+healthy\s+file\s+an\s+[0-9a-f]{16}\n$/);

    const removed = await calq(address, "token-admin", ["calendars", "rm", "team"]);
    expect(removed.stdout).toMatch(/^deleted team \(registry change \d+\)\n$/);
    await vi.waitFor(
      async () =>
        expect((await calq(address, "token-an", ["search", "--calendar", "team", ...SEARCH])).stderr).toContain("CALENDAR_NOT_ACCESSIBLE"),
      WAIT,
    );
    expect((await calq(address, "token-admin", ["calendars", "ls"])).stdout).toBe("no calendar matches\n");
  });

  test("ls pages with --page-size and follows every page with --all", async () => {
    for (const id of ["page-a", "page-b", "page-c"]) {
      expect((await calq(address, "token-admin", ["calendars", "add", id, "--file", join(dir, "team.ics")])).status).toBe(0);
    }
    const first = await calq(address, "token-admin", ["calendars", "ls", "--prefix", "page-", "--page-size", "2"]);
    expect(first.stdout).toMatch(/page-a[\s\S]*page-b[\s\S]*more: --page-token \S+\n$/);
    const token = /more: --page-token (\S+)/.exec(first.stdout)![1];
    const second = await calq(address, "token-admin", ["calendars", "ls", "--prefix", "page-", "--page-size", "2", "--page-token", token]);
    expect(second.stdout).toMatch(/page-c/);
    expect(second.stdout).not.toMatch(/page-a|more:/);
    const all = await calq(address, "token-admin", ["calendars", "ls", "--prefix", "page-", "--page-size", "1", "--all"]);
    expect(all.stdout.match(/^page-\w/gm)).toEqual(["page-a", "page-b", "page-c"]);
  });

  test('people set gives a principal the calendar "primary" names', async () => {
    await calq(address, "token-admin", ["calendars", "add", "an-own", "--file", join(dir, "team.ics"), "--reader", "an"]);
    const set = await calq(address, "token-admin", [
      "people",
      "set",
      "an",
      "--primary",
      "an-own",
      "--timezone",
      "Europe/Berlin",
      "--working-hours",
      "09:00-17:00",
      "--working-days",
      "1-4",
      "--email",
      "an@example.com",
    ]);
    expect(set.stdout).toMatch(/^set an \(etag [0-9a-f]{16}\)\n$/);
    await vi.waitFor(
      async () => expect((await calq(address, "token-an", ["search", "--calendar", "primary", ...SEARCH])).stdout).toContain("Team sync"),
      WAIT,
    );
  });

  test("a refused change prints its reason and every field at fault, and exits 1", async () => {
    const refused = await calq(address, "token-admin", [
      "calendars",
      "add",
      "bad id",
      "--url",
      "ftp://example.com/x.ics",
      "--timezone",
      "Mars/Base",
    ]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^calq: INVALID_SPEC: /);
    for (const field of ["calendar.id", "calendar.source.http.url", "calendar.timezone"])
      expect(refused.stderr).toContain(`\n  ${field}: `);
    const notAdmin = await calq(address, "token-an", ["calendars", "ls"]);
    expect(notAdmin).toMatchObject({ status: 1 });
    expect(notAdmin.stderr).toContain("ADMIN_CAPABILITY_REQUIRED");
    const usage = await calq(address, "token-admin", ["calendars", "add", "x"]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("give the calendar's source");
  });
});

/**
 * One spawned `node bin/calq.mjs` per command that finishes, to show the
 * compiled command starts, reads its arguments and exits as a person sees
 * it; what each command does is tested in process elsewhere. `calq serve`
 * and `calq mcp` run as processes in serve.e2e.spec.ts, shutdown.e2e.spec.ts
 * and mcp-stdio.e2e.spec.ts.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALQ, type ChildProcessRun, FRIDAY_MORNING_FLAGS, killed, ROOT, startCalqServe } from "../support/calq-process.js";

const run = promisify(execFile);

async function spawnCalq(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildProcessRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CALQ, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      timeout: 120_000,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let serve: Awaited<ReturnType<typeof startCalqServe>>;
beforeAll(async () => {
  serve = await startCalqServe(["--data", "data", "--port", "0"]);
});
afterAll(() => killed(serve.child));

describe("the compiled calq command, spawned", () => {
  it("calq help prints every command's usage and exits 0", async () => {
    const help = await spawnCalq(["help"]);
    expect(help.status).toBe(0);
    for (const command of ["serve", "search", "busy", "slots", "check", "tools", "mcp"]) expect(help.stdout).toContain(`calq ${command}`);
  });

  it("an unknown command exits 2 with the list of commands", async () => {
    const unknown = await spawnCalq(["serach"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe(
      'calq: unknown command "serach"\nusage: calq serve|search|busy|slots|meet|check|calendars|people|tools|mcp ...   (calq help shows every option)\n',
    );
  });

  it("calq search finds the demo's Friday-morning events and exits 0", async () => {
    const search = await spawnCalq(["search", ...FRIDAY_MORNING_FLAGS, "--mode", "overlap"], {
      CALQ_ADDRESS: serve.address,
      CALQ_TOKEN: "demo-an-token",
    });
    expect(search.status).toBe(0);
    expect(search.stdout).toContain("Design review @ Room 3.2");
  });

  it("calq busy shows the demo's New York fall-back maintenance and exits 0", async () => {
    const busy = await spawnCalq(
      ["busy", "--calendar", "new-york", "--start", "2026-11-01", "--end-exclusive", "2026-11-02", "--timezone", "America/New_York"],
      { CALQ_ADDRESS: serve.address, CALQ_TOKEN: "demo-an-token" },
    );
    expect(busy.status).toBe(0);
    expect(busy.stdout).toMatch(/^Sun 2026-11-01 {2}01:15 -04:00 {2}01:45 -05:00 +busy$/m);
  });

  it("calq slots finds a free hour in An's demo Friday and exits 0", async () => {
    const slots = await spawnCalq(["slots", ...FRIDAY_MORNING_FLAGS, "--duration", "60", "--tentative", "busy", "--limit", "1"], {
      CALQ_ADDRESS: serve.address,
      CALQ_TOKEN: "demo-an-token",
    });
    expect(slots.status).toBe(0);
    expect(slots.stdout).toMatch(/^Fri 2026-10-02 {2}09:30 \+07:00 {2}10:30$/m);
  });

  it("calq check reads a demo feed and exits 0", async () => {
    const check = await spawnCalq(["check", "data/work.ics"]);
    expect(check.status, `calq check said:\n${check.stdout}${check.stderr}`).toBe(0);
    expect(check.stdout).toContain("work.ics");
  });

  it("calq tools prints the tool schemas as JSON and exits 0", async () => {
    const tools = await spawnCalq(["tools", "--format", "mcp"]);
    expect(tools.status).toBe(0);
    expect(JSON.parse(tools.stdout).map((tool: { name: string }) => tool.name)).toContain("search_calendar_events");
  });
});

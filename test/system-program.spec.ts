/**
 * The mechanism by which a spec needs a program of the system
 * (test/support/system-program.ts), tested in process on folders made here:
 * where it looks for a program, what CALQ_SYSTEM_TESTS decides, the record
 * a skipped block leaves, and the one line a run prints about skips. If it
 * broke, CI could skip the nginx, PostgreSQL or CalDAV tests without a word,
 * or a newcomer's run could fail for want of a program.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decide, describeWith, findProgram, readSkips, type SkipRecord, summaryLine, systemTestsMode } from "./support/system-program.js";

const made = mkdtempSync(join(tmpdir(), "calq-system-program-"));
afterAll(() => rmSync(made, { recursive: true, force: true }));

/** An executable file at `path` under the folder made for this test, with its folders. */
function program(path: string): string {
  const full = join(made, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, "#!/bin/sh\n");
  chmodSync(full, 0o755);
  return full;
}

describe("findProgram", () => {
  const root = join(made, "system");
  const onPath = program("path-a/nginx");
  const inSbin = program("system/usr/sbin/nginx");
  const postgres14 = program("system/usr/lib/postgresql/14/bin/postgres");
  const postgres15 = program("system/usr/lib/postgresql/15/bin/postgres");
  program("system/usr/lib/postgresql/9.6/bin/postgres");

  it("takes PATH's first folder that holds the program, before the sbin folders", () => {
    const path = [join(made, "empty"), join(made, "path-a")].join(delimiter);
    expect(findProgram("nginx", { path, root })).toBe(onPath);
  });

  it("looks in the sbin folders a non-root PATH leaves out", () => {
    expect(findProgram("nginx", { path: join(made, "empty"), root })).toBe(inSbin);
  });

  it("finds postgres under /usr/lib/postgresql, newest version first, where Debian puts it off PATH", () => {
    expect(findProgram("postgres", { path: "", root })).toBe(postgres15);
    rmSync(postgres15);
    expect(findProgram("postgres", { path: "", root })).toBe(postgres14);
  });

  it("finds nothing where nothing is installed", () => {
    expect(findProgram("radicale", { path: join(made, "path-a"), root })).toBeUndefined();
    expect(findProgram("postgres", { path: "", root: join(made, "nowhere") })).toBeUndefined();
  });
});

describe("CALQ_SYSTEM_TESTS", () => {
  it("runs what is installed when unset, requires everything with required, skips everything with skip", () => {
    expect(systemTestsMode({})).toBe("where-installed");
    expect(systemTestsMode({ CALQ_SYSTEM_TESTS: "" })).toBe("where-installed");
    expect(systemTestsMode({ CALQ_SYSTEM_TESTS: "required" })).toBe("required");
    expect(systemTestsMode({ CALQ_SYSTEM_TESTS: "skip" })).toBe("skip");
  });

  it("refuses any other value, so a typo in CI cannot turn a requirement into a skip", () => {
    expect(() => systemTestsMode({ CALQ_SYSTEM_TESTS: "require" })).toThrow("CALQ_SYSTEM_TESTS=require is not understood");
  });
});

describe("decide", () => {
  const installed = (program: string) => (program === "nginx" ? "/usr/sbin/nginx" : undefined);

  it("runs a block with the path of every program it needs when all are installed", () => {
    expect(decide(["nginx"], "where-installed", installed)).toEqual({ verdict: "run", paths: { nginx: "/usr/sbin/nginx" } });
    expect(decide(["nginx"], "required", installed)).toEqual({ verdict: "run", paths: { nginx: "/usr/sbin/nginx" } });
  });

  it("skips a block when one program is missing, naming only the missing one", () => {
    expect(decide(["nginx", "postgres"], "where-installed", installed)).toEqual({
      verdict: "skip",
      missing: ["postgres"],
      why: "not installed",
    });
  });

  it("fails a block whose program is missing when the tests are required, saying what to install", () => {
    const verdict = decide(["nginx", "postgres", "radicale"], "required", installed);
    expect(verdict).toMatchObject({ verdict: "fail", missing: ["postgres", "radicale"] });
    expect(verdict.verdict === "fail" && verdict.message).toBe(
      "CALQ_SYSTEM_TESTS=required, but postgres and radicale are not installed: apt-get install -y postgresql radicale",
    );
  });

  it("skips a block under CALQ_SYSTEM_TESTS=skip even where its programs are installed", () => {
    expect(decide(["nginx"], "skip", installed)).toEqual({ verdict: "skip", missing: ["nginx"], why: "CALQ_SYSTEM_TESTS=skip" });
  });
});

describe("the summary line", () => {
  const skipped = (file: string, ...missing: SkipRecord["missing"]): SkipRecord => ({ file, missing, why: "not installed" });

  it("is not printed when nothing was skipped", () => {
    expect(summaryLine([])).toBeUndefined();
  });

  it("is one line naming each skipped file once, the programs it lacked, and the command that installs them", () => {
    const line = summaryLine([
      skipped("test/store/postgres-store.e2e.spec.ts", "postgres"),
      skipped("test/server/shard-balancer.e2e.spec.ts", "nginx"),
      skipped("test/store/postgres-store.e2e.spec.ts", "postgres"),
    ]);
    expect(line).toBe(
      "Skipped tests that need nginx, postgres: test/server/shard-balancer.e2e.spec.ts (nginx); test/store/postgres-store.e2e.spec.ts (postgres); " +
        "to run them, apt-get install -y nginx postgresql and run npm test again (CI installs them and sets CALQ_SYSTEM_TESTS=required).",
    );
    expect(line).not.toContain("\n");
  });

  it("says to unset CALQ_SYSTEM_TESTS when the skips were asked for", () => {
    expect(summaryLine([{ file: "a.e2e.spec.ts", missing: ["nginx"], why: "CALQ_SYSTEM_TESTS=skip" }])).toBe(
      "Skipped tests that need nginx: a.e2e.spec.ts (nginx); unset CALQ_SYSTEM_TESTS to run them.",
    );
  });
});

// A block declared here whose program is nowhere: its test must be skipped (it would fail if it ran), and the skip recorded.
const skipsFolder = join(made, "skips");
mkdirSync(skipsFolder);
let collectedWith: Record<string, string> | undefined;
describeWith(
  ["radicale"],
  "a block whose program is not installed",
  (paths) => {
    collectedWith = paths;
    it("is skipped, never run", () => {
      throw new Error("a block whose program is missing ran its test");
    });
  },
  { env: {}, search: { path: "", root: join(made, "nowhere") }, skipsFolder },
);

describe("describeWith", () => {
  it("records a skipped block's file and missing program for the run's summary, and never runs its tests", () => {
    expect(readSkips(skipsFolder)).toEqual([{ file: "test/system-program.spec.ts", missing: ["radicale"], why: "not installed" }]);
    expect(collectedWith).toEqual({ radicale: "(radicale: not installed)" });
  });
});

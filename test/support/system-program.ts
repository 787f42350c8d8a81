/**
 * Some end-to-end tests need a program of the system that npm cannot
 * install (nginx as a balancer; PostgreSQL and the Radicale CalDAV server
 * next). A newcomer's `npm test` must pass with Node alone, and CI must never
 * skip those tests without saying so. This is the one way a spec says what it
 * needs:
 *
 *   describeWith(["nginx"], "routing by shard group", ({ nginx }) => { ... });
 *
 * Where every program is found, the block runs with their paths. Where one is
 * missing, the block's tests are skipped and the skip is recorded, so the
 * run ends with one line naming what was skipped and how to run it
 * (system-tests-summary.ts, the run's globalSetup). With
 * CALQ_SYSTEM_TESTS=required (CI's .ci/run) a missing program fails the
 * block instead; with CALQ_SYSTEM_TESTS=skip every block is skipped as if
 * nothing were installed, to see that path on a machine that has them.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join, relative } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { assertNever } from "../../src/exhaustive.js";

/** What a program is called, the Debian package that brings it, and where Debian puts it when not on PATH. */
interface ProgramFacts {
  readonly binary: string;
  readonly debianPackage: string;
  /** Folders of its own that a build from source installs to. */
  readonly ownFolders: readonly string[];
  /** Folders holding one folder per version, each with a bin/ folder (newest version first). */
  readonly versionedRoots: readonly string[];
}

/** The programs tests may need: one row per program, so a new one is added here and nowhere else. */
export const SYSTEM_PROGRAMS = {
  nginx: { binary: "nginx", debianPackage: "nginx", ownFolders: ["/usr/local/nginx/sbin"], versionedRoots: [] },
  postgres: { binary: "postgres", debianPackage: "postgresql", ownFolders: [], versionedRoots: ["/usr/lib/postgresql"] },
  radicale: { binary: "radicale", debianPackage: "radicale", ownFolders: [], versionedRoots: [] },
} as const satisfies Record<string, ProgramFacts>;

export type SystemProgram = keyof typeof SYSTEM_PROGRAMS;

/** The variable that makes the tests of system programs required (CI) or skipped (to try the skip path). */
export const SYSTEM_TESTS_VARIABLE = "CALQ_SYSTEM_TESTS";

/** Folders a non-root PATH leaves out, where Debian puts daemons such as nginx. */
const SBIN_FOLDERS = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

/** Where to look: PATH's value, and a prefix for the fixed system folders ("" on a real system; a temporary folder in this file's own test). */
export interface ProgramSearch {
  readonly path: string;
  readonly root: string;
}

const thisSystem = (): ProgramSearch => ({ path: process.env.PATH ?? "", root: "" });

/**
 * The path of `program`: the first of PATH's folders, then the sbin folders,
 * then its own folders, then each versioned root's newest version
 * (/usr/lib/postgresql/15/bin before 14), that holds it; undefined when none does.
 */
export function findProgram(program: SystemProgram, search: ProgramSearch = thisSystem()): string | undefined {
  const facts: ProgramFacts = SYSTEM_PROGRAMS[program];
  const fixed = (folder: string) => search.root + folder;
  const versioned = facts.versionedRoots.flatMap((versionRoot) => {
    const rootFolder = fixed(versionRoot);
    if (!existsSync(rootFolder)) return [];
    return readdirSync(rootFolder)
      .filter((version) => /^\d+(\.\d+)*$/.test(version))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
      .map((version) => join(rootFolder, version, "bin"));
  });
  const folders = [
    ...search.path.split(delimiter).filter((folder) => folder !== ""),
    ...[...SBIN_FOLDERS, ...facts.ownFolders].map(fixed),
    ...versioned,
  ];
  return folders.map((folder) => join(folder, facts.binary)).find((candidate) => existsSync(candidate));
}

/** What CALQ_SYSTEM_TESTS asks for: run what is installed (unset), require everything, or skip everything. */
export type SystemTestsMode = "where-installed" | "required" | "skip";

/** Reads CALQ_SYSTEM_TESTS; any other value is refused, so a typo in CI cannot turn "required" into a silent skip. */
export function systemTestsMode(env: Readonly<Record<string, string | undefined>> = process.env): SystemTestsMode {
  const value = env[SYSTEM_TESTS_VARIABLE] ?? "";
  switch (value) {
    case "":
      return "where-installed";
    case "required":
      return "required";
    case "skip":
      return "skip";
    default:
      throw new Error(`${SYSTEM_TESTS_VARIABLE}=${value} is not understood: leave it unset, or set it to required or skip`);
  }
}

/** Whether a block that needs some programs runs (with their paths), is skipped, or fails. */
export type Verdict<P extends SystemProgram> =
  | { readonly verdict: "run"; readonly paths: Readonly<Record<P, string>> }
  | { readonly verdict: "skip"; readonly missing: readonly P[]; readonly why: "not installed" | "CALQ_SYSTEM_TESTS=skip" }
  | { readonly verdict: "fail"; readonly missing: readonly P[]; readonly message: string };

/** Decides, from the mode and where each program is, what a block needing `programs` does. */
export function decide<P extends SystemProgram>(
  programs: readonly P[],
  mode: SystemTestsMode,
  find: (program: P) => string | undefined,
): Verdict<P> {
  if (mode === "skip") return { verdict: "skip", missing: programs, why: "CALQ_SYSTEM_TESTS=skip" };
  const found = programs.map((program) => [program, find(program)] as const);
  const missing = found.filter(([, path]) => path === undefined).map(([program]) => program);
  if (missing.length === 0) {
    return { verdict: "run", paths: Object.fromEntries(found) as Record<P, string> };
  }
  if (mode === "required") {
    return {
      verdict: "fail",
      missing,
      message: `${SYSTEM_TESTS_VARIABLE}=required, but ${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not installed: ${installCommand(missing)}`,
    };
  }
  return { verdict: "skip", missing, why: "not installed" };
}

/** The command that installs `programs` on Debian. */
export function installCommand(programs: readonly SystemProgram[]): string {
  return `apt-get install -y ${[...new Set(programs.map((program) => SYSTEM_PROGRAMS[program].debianPackage))].join(" ")}`;
}

/** One skipped block, as recorded for the run's summary line. */
export interface SkipRecord {
  /** The spec file, relative to the repository. */
  readonly file: string;
  readonly missing: readonly SystemProgram[];
  readonly why: "not installed" | "CALQ_SYSTEM_TESTS=skip";
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder where skipped blocks are recorded, one file each (system-tests-summary.ts provides it). */
    calqSystemSkips: string;
  }
}

const ROOT = join(import.meta.dirname, "../..");

/** Writes a skip where the run's summary will read it; a run without the summary's globalSetup records nothing. */
function recordSkip(record: SkipRecord, folder: string | undefined): void {
  if (folder === undefined || !existsSync(folder)) return;
  const name = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`;
  writeFileSync(join(folder, name), JSON.stringify(record));
}

/** Every skip recorded in `folder`. */
export function readSkips(folder: string): SkipRecord[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .map((name) => JSON.parse(readFileSync(join(folder, name), "utf8")) as SkipRecord);
}

/**
 * The one line a run prints when it skipped blocks: which files, for want of
 * which programs, and how to run them; undefined when nothing was skipped.
 */
export function summaryLine(skips: readonly SkipRecord[]): string | undefined {
  if (skips.length === 0) return undefined;
  const byFile = new Map<string, Set<SystemProgram>>();
  for (const skip of skips) {
    const programs = byFile.get(skip.file) ?? new Set<SystemProgram>();
    for (const program of skip.missing) programs.add(program);
    byFile.set(skip.file, programs);
  }
  const files = [...byFile].sort(([a], [b]) => a.localeCompare(b)).map(([file, programs]) => `${file} (${[...programs].join(", ")})`);
  const missing = [...new Set(skips.flatMap((skip) => skip.missing))].sort();
  const how = skips.every((skip) => skip.why === "CALQ_SYSTEM_TESTS=skip")
    ? `unset ${SYSTEM_TESTS_VARIABLE} to run them`
    : `to run them, ${installCommand(missing)} and run npm test again (CI installs them and sets ${SYSTEM_TESTS_VARIABLE}=required)`;
  return `Skipped tests that need ${missing.join(", ")}: ${files.join("; ")}; ${how}.`;
}

/** Vitest's `inject`, or undefined outside a run whose globalSetup provides the folder. */
function providedSkipsFolder(): string | undefined {
  try {
    return inject("calqSystemSkips");
  } catch {
    return undefined;
  }
}

/** What describeWith looks at: this machine and this run, unless the mechanism's own test says otherwise. */
export interface Surroundings {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly search: ProgramSearch;
  /** Where skips are recorded; undefined records nothing. */
  readonly skipsFolder: string | undefined;
}

const here = (): Surroundings => ({ env: process.env, search: thisSystem(), skipsFolder: providedSkipsFolder() });

/**
 * What a spec that needs `programs` does here (run, skip or fail), with a
 * skip recorded for the run's summary line. describeWith is the usual way;
 * a spec whose tests start the program in shared hooks may ask this itself.
 */
export function systemGate<P extends SystemProgram>(programs: readonly P[], name = "", surroundings: Surroundings = here()): Verdict<P> {
  const verdict = decide(programs, systemTestsMode(surroundings.env), (program) => findProgram(program, surroundings.search));
  if (verdict.verdict === "skip") {
    const testPath = expect.getState().testPath;
    const file = testPath === undefined ? name : relative(ROOT, testPath);
    recordSkip({ file, missing: verdict.missing, why: verdict.why }, surroundings.skipsFolder);
  }
  return verdict;
}

/**
 * A describe block that needs `programs`: it runs with their paths where all
 * are installed; otherwise its tests are reported skipped and the skip is
 * recorded, or, with CALQ_SYSTEM_TESTS=required, the block fails saying what
 * to install.
 */
export function describeWith<P extends SystemProgram>(
  programs: readonly P[],
  name: string,
  body: (paths: Readonly<Record<P, string>>) => void,
  surroundings: Surroundings = here(),
): void {
  const verdict = systemGate(programs, name, surroundings);
  switch (verdict.verdict) {
    case "run":
      describe(name, () => body(verdict.paths));
      return;
    case "skip": {
      // The body is collected, not run: its tests are listed as skipped and its hooks never start.
      const placeholders = Object.fromEntries(programs.map((program) => [program, `(${program}: ${verdict.why})`])) as Record<P, string>;
      describe.skip(name, () => body(placeholders));
      return;
    }
    case "fail":
      describe(name, () => {
        it(`has ${programs.join(" and ")} installed`, () => {
          throw new Error(verdict.message);
        });
      });
      return;
    default:
      assertNever(verdict, "system-program verdict");
  }
}

/**
 * Two test projects, told apart by file name:
 *   unit  test/**\/*.spec.ts      in process: no sockets, no child processes;
 *   e2e   test/**\/*.e2e.spec.ts  real ports, real clients, the built `calq`.
 * test/test-layout.spec.ts keeps the names honest. `npm test` runs both (after
 * `npm run build`, so the e2e tests run the compiled command). Tests that need
 * a program of the system (nginx, ...) declare it through
 * test/support/system-program.ts; the globalSetup below prints one line at
 * the end of a run that skipped some.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Generous: a timeout only ends a test that would otherwise hang, and says nothing about speed (bench/
    // does). Beside two CPU burners, tests that start processes and niced ingest workers take tens of seconds.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ["test/support/system-tests-summary.ts"],
    // Vitest leaves a core free by default; on a 2-core machine that means one test file at a time.
    maxWorkers: 2,
    // A worker runs file after file with the modules it has already loaded, instead of importing the
    // sources anew for each file: a third of the run went to imports. No test mocks a module, stubs a
    // global or changes process.env, so nothing one file does to a module can reach another.
    isolate: false,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.spec.ts"], exclude: ["test/**/*.e2e.spec.ts"] } },
      { extends: true, test: { name: "e2e", include: ["test/**/*.e2e.spec.ts"] } },
    ],
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts"],
      reporter: ["text-summary", "json-summary"],
      // The layers the rest stands on: core (pure) and service.
      thresholds: {
        "src/{time,ics,expand,index,search}/**": { lines: 95, branches: 87, functions: 95 },
        "src/{feeds,store,config}/**": { lines: 90, branches: 76, functions: 85 },
      },
    },
  },
});

/**
 * The test names say what a test needs: `*.e2e.spec.ts` may open ports and
 * start processes, a plain `*.spec.ts` runs in process only. The unit project
 * stays fast and deterministic because this test refuses a unit spec that
 * reaches for a socket or a child process, and a test file the runner would
 * never pick up.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

/** What only an end-to-end test may import: real sockets, child processes and the helpers built on them. */
const REAL_IO =
  /from "(node:)?(net|http|http2|https|tls|child_process)"|from "[./]*support\/(test-server|calq-process|feed-server|grpc-client)\.js"/;

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : testFiles(path);
    return [relative(ROOT, path)];
  });
}

const files = testFiles(join(ROOT, "test"));

describe("the test layout", () => {
  it("has no unit spec that opens a socket or starts a process", () => {
    const offenders = files.filter(
      (file) => file.endsWith(".spec.ts") && !file.endsWith(".e2e.spec.ts") && REAL_IO.test(readFileSync(join(ROOT, file), "utf8")),
    );
    expect(offenders, "rename these to *.e2e.spec.ts").toEqual([]);
  });

  it("has no test file the runner would skip: outside test/support, every .ts file is a .spec.ts", () => {
    const skipped = files.filter((file) => file.endsWith(".ts") && !file.endsWith(".spec.ts") && !file.includes("/support/"));
    expect(skipped).toEqual([]);
  });
});

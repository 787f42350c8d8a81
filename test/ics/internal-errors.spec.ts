/**
 * A fault of calq's own while building a
 * snapshot is `internal` (its stack to the operator's log), never
 * `parse_error`, which names a feed that could not be read. The class is
 * told by the error's type, not by its message.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_REFRESH_MS } from "../../src/config/config-model.js";
import { CalendarStore } from "../../src/store/calendar-store.js";
import { feed } from "../support/feeds.js";

const READ_AT = Date.UTC(2026, 10, 29);
let dir: string;

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A store over one file whose expansion limits throw when the build asks for them, as a bug in calq's own code would. */
function storeWithFaultyExpansion(failures: [string, string, string][]): CalendarStore {
  dir = mkdtempSync(join(tmpdir(), "calq-internal-"));
  writeFileSync(join(dir, "cal.ics"), feed(["X-WR-TIMEZONE:UTC"], ["DTSTART:20261002T090000Z", "SUMMARY:Fine"]));
  return new CalendarStore(
    [{ id: "cal", source: { kind: "file", path: join(dir, "cal.ics") }, refreshMs: DEFAULT_REFRESH_MS, name: "cal", readers: [] }],
    {
      retentionMs: 60_000,
      now: () => READ_AT,
      limits: () => {
        throw new RangeError("parse error in calq's own code");
      },
      onLoadFailure: (id, failure, detail) => failures.push([id, failure, detail]),
    },
  );
}

describe("a fault inside calq's own build", () => {
  it("is an internal failure with its stack for the log, even when its message says parse error", async () => {
    const failures: [string, string, string][] = [];
    const store = storeWithFaultyExpansion(failures);
    expect(await store.reload("cal")).toEqual({ outcome: "failed", failure: "internal" });
    expect(failures).toHaveLength(1);
    expect(failures[0][1]).toBe("internal");
    expect(failures[0][2]).toMatch(/^RangeError: parse error in calq's own code\n\s+at /);
    expect(store.view("cal")?.status.lastFailure?.failure).toBe("internal");
  });
});

/**
 * A file feed's read: the bytes the file holds, in a buffer of their own
 * and of their exact length (a build may then move it to its worker rather
 * than copy it), and the refusals of a file over the limit.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileFeed } from "../../src/feeds/file-feed.js";

const dir = mkdtempSync(join(tmpdir(), "calq-file-feed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a file feed", () => {
  it("reads the file into a buffer of its own, exactly as long as the file", async () => {
    for (const size of [0, 1, 100, 70_000]) {
      const path = join(dir, `f${size}.ics`);
      const content = Buffer.alloc(size, 0x41);
      writeFileSync(path, content);
      const read = await new FileFeed(path, 100_000).read(undefined);
      if (!read.changed) throw new Error("a first read has content");
      expect(Buffer.from(read.bytes).equals(content)).toBe(true);
      expect(read.bytes.byteOffset).toBe(0);
      expect(read.bytes.buffer.byteLength).toBe(size);
    }
  });

  it("reads a file exactly at the limit, and refuses one past it", async () => {
    const path = join(dir, "limit.ics");
    writeFileSync(path, Buffer.alloc(1_000, 0x41));
    const read = await new FileFeed(path, 1_000).read(undefined);
    expect(read.changed && read.bytes.length).toBe(1_000);
    await expect(new FileFeed(path, 999).read(undefined)).rejects.toMatchObject({ failure: "too_large" });
  });
});

/**
 * A feed read from a file. The file's size, mtime and inode tell whether it
 * changed since the last read; the bytes are read only when they may have.
 * Like git's "racy" check, a stat is trusted only once the mtime is a few
 * seconds older than the read: a rewrite within the same clock tick and of
 * the same size would otherwise go unseen. Until then the bytes are read and
 * their digest compared.
 */
import { open, stat } from "node:fs/promises";
import { contentDigest, FeedFailure, type FeedRead, type FeedReader, type FeedVersion } from "./feed-read.js";

/** How old an mtime must be before a matching stat is taken to mean "unchanged". */
const RACY_MS = 3_000;

export class FileFeed implements FeedReader {
  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
  ) {}

  async read(previous: FeedVersion | undefined): Promise<FeedRead> {
    const before = await this.statOf();
    if (previous?.stat === before.key) return { changed: false };
    const bytes = await this.readBytes(before.size);
    const settled = Date.now() - before.mtimeMs > RACY_MS;
    // A writer between the two stats means the bytes may mix two versions.
    if ((await this.statOf()).key !== before.key) throw new FeedFailure("truncated", "the file changed while it was read");
    const digest = await contentDigest(bytes);
    const version = { digest, stat: settled ? before.key : undefined };
    if (previous?.digest === digest) return { changed: false, version };
    return { changed: true, bytes, version };
  }

  /** The file's size and mtime, and `key`: size, mtime and inode, equal only for an untouched file. */
  private async statOf(): Promise<{ key: string; size: number; mtimeMs: number }> {
    try {
      const info = await stat(this.path, { bigint: true });
      if (!info.isFile()) throw new FeedFailure("unreachable", `${this.path} is not a file`);
      if (info.size > BigInt(this.maxBytes)) {
        throw new FeedFailure("too_large", `the file is ${info.size} bytes, over the ${this.maxBytes}-byte feed limit`);
      }
      return { key: `${info.size}:${info.mtimeNs}:${info.ino}`, size: Number(info.size), mtimeMs: Number(info.mtimeMs) };
    } catch (error) {
      if (error instanceof FeedFailure) throw error;
      throw new FeedFailure("unreachable", `cannot stat the file: ${(error as Error).message}`);
    }
  }

  /**
   * Reads the `size` bytes the file had (never more than maxBytes), then one
   * more if there is one, so a file that grew is caught too. The bytes are a
   * buffer of their own, of their exact length, which a build may move to
   * its worker rather than copy.
   */
  private async readBytes(size: number): Promise<Buffer> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path, "r");
    } catch (error) {
      throw new FeedFailure("unreachable", `cannot open the file: ${(error as Error).message}`);
    }
    try {
      const buffer = Buffer.alloc(Math.min(this.maxBytes, size));
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length === buffer.length && (await handle.read(Buffer.alloc(1), 0, 1, null)).bytesRead > 0) {
        if (length === this.maxBytes) throw new FeedFailure("too_large", `the file is over the ${this.maxBytes}-byte feed limit`);
        throw new FeedFailure("truncated", "the file grew while it was read");
      }
      return length === buffer.length ? buffer : buffer.subarray(0, length);
    } finally {
      await handle.close();
    }
  }
}

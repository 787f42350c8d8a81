/**
 * An append-only file of JSON entries that survives a crash at any moment
 * (docs/decisions.md, "The calendar registry"): each entry is one line, a
 * CRC-32 of its JSON and the JSON, and an append returns only once the
 * bytes are on disk (fdatasync). A crash mid-append leaves a torn last line,
 * never acknowledged; opening the file reads up to the first line that is
 * torn or fails its check and cuts the rest off, so nothing half-written is
 * ever read and later appends never follow garbage. Replacing the whole file
 * (compaction) goes through writeFileDurably: the old file or the new one.
 */
import { type FileHandle, open, readFile } from "node:fs/promises";
import { writeFileDurably } from "../feeds/durable-write.js";

/** CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) lookup table. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let value = byte;
    for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    table[byte] = value >>> 0;
  }
  return table;
})();

/** The CRC-32 of `bytes`, as 8 lower-case hex digits. */
export function crc32Hex(bytes: Uint8Array): string {
  let crc = -1;
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ((crc ^ -1) >>> 0).toString(16).padStart(8, "0");
}

/** The bytes of `entries`, one checked line each. */
export function encodeEntries(entries: readonly unknown[]): Buffer {
  return Buffer.concat(
    entries.map((entry) => {
      const json = Buffer.from(JSON.stringify(entry), "utf8");
      return Buffer.concat([Buffer.from(`${crc32Hex(json)} `, "latin1"), json, Buffer.from("\n", "latin1")]);
    }),
  );
}

/** The entries of `bytes` up to the first line that is torn or fails its check, and where that line starts. */
export function decodeEntries(bytes: Buffer): { readonly entries: unknown[]; readonly validLength: number } {
  const entries: unknown[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const end = bytes.indexOf(0x0a, offset);
    if (end === -1) break;
    const line = bytes.subarray(offset, end);
    if (line.length < 10 || line[8] !== 0x20) break;
    const json = line.subarray(9);
    if (line.subarray(0, 8).toString("latin1") !== crc32Hex(json)) break;
    try {
      entries.push(JSON.parse(json.toString("utf8")));
    } catch {
      break;
    }
    offset = end + 1;
  }
  return { entries, validLength: offset };
}

/** An open journal: its entries were read at open; appends are durable when they resolve. */
export class JournalFile {
  private constructor(
    readonly path: string,
    private handle: FileHandle,
    private length: number,
  ) {}

  /**
   * Opens `path` (created when missing) and reads its entries; a torn or
   * damaged tail is cut off and its length reported.
   */
  static async open(path: string): Promise<{ readonly journal: JournalFile; readonly entries: unknown[]; readonly droppedBytes: number }> {
    const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return Buffer.alloc(0);
      throw error;
    });
    const { entries, validLength } = decodeEntries(bytes);
    const handle = await open(path, "a+");
    if (validLength < bytes.length) {
      await handle.truncate(validLength);
      await handle.datasync();
    }
    return { journal: new JournalFile(path, handle, validLength), entries, droppedBytes: bytes.length - validLength };
  }

  /** Bytes in the file. */
  get size(): number {
    return this.length;
  }

  /**
   * Appends `entries` and waits until they are on disk. When the write
   * fails, the file is cut back to where it was, so a failed append leaves
   * nothing behind; the error is rethrown.
   */
  async append(entries: readonly unknown[]): Promise<void> {
    const bytes = encodeEntries(entries);
    try {
      await this.handle.write(bytes, 0, bytes.length, null);
      await this.handle.datasync();
      this.length += bytes.length;
    } catch (error) {
      await this.handle.truncate(this.length).catch(() => undefined);
      throw error;
    }
  }

  /** Replaces the whole file with `entries` (compaction): a crash leaves the old file or the new one. */
  async replace(entries: readonly unknown[]): Promise<void> {
    const bytes = encodeEntries(entries);
    await writeFileDurably(this.path, bytes);
    await this.handle.close();
    this.handle = await open(this.path, "a+");
    this.length = bytes.length;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/**
 * Replacing a file so that a crash at any moment leaves the old file or the
 * new one, never a torn mix: write a temporary file in the same folder,
 * fsync it, rename it over the target (atomic within one filesystem), then
 * fsync the folder so the rename itself survives a power cut.
 */
import { randomBytes } from "node:crypto";
import { lstat, open, readdir, readlink, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

export interface DurableWriteHooks {
  /** Runs after the temporary file is synced and before the rename (tests stop the process here). */
  readonly beforeRename?: () => Promise<void>;
}

/**
 * Replaces the file at `path` (through a symbolic link, the file it points
 * to, so the link stays a link, even when that file does not exist yet). Throws the file system's error, with its
 * `code`, when the folder is missing, read-only or full; the old file is then
 * untouched.
 */
export async function writeFileDurably(target: string, data: Uint8Array, hooks: DurableWriteHooks = {}): Promise<void> {
  const path = await linkTarget(target);
  const folder = dirname(path);
  const prefix = temporaryPrefix(path);
  await removeLeftovers(folder, prefix);
  const mode = await stat(path).then(
    (info) => info.mode & 0o777,
    () => 0o644,
  );
  const temporary = join(folder, `${prefix}${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temporary, "wx", mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await hooks.beforeRename?.();
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const directory = await open(folder, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** Temporary files of `target`'s earlier writes cut short by a crash (calq serve removes them at start). */
export async function removeInterruptedWrites(target: string): Promise<void> {
  const path = await linkTarget(target);
  await removeLeftovers(dirname(path), temporaryPrefix(path)).catch(() => undefined);
}

/** Symbolic links followed before giving up, as the kernel's own bound (ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * The file `target` names once every symbolic link is followed. realpath()
 * fails on a dangling link, and renaming over the link itself would turn it
 * into a plain file, cutting it from where the operator pointed it; so a
 * dangling link is followed by hand to the path it names.
 */
async function linkTarget(target: string): Promise<string> {
  const real = await realpath(target).catch(() => undefined);
  if (real !== undefined) return real;
  let current = target;
  for (let hops = 0; hops < MAX_LINK_HOPS; hops++) {
    const info = await lstat(current).catch(() => undefined);
    if (info === undefined || !info.isSymbolicLink()) return current;
    current = resolve(dirname(current), await readlink(current));
  }
  throw Object.assign(new Error(`more than ${MAX_LINK_HOPS} symbolic links from ${target}`), { code: "ELOOP" });
}

const temporaryPrefix = (path: string) => `.${basename(path)}.`;

/** Temporary files of earlier writes cut short by a crash; they never held the served file. */
async function removeLeftovers(folder: string, prefix: string): Promise<void> {
  const names = await readdir(folder);
  await Promise.all(
    names.filter((name) => name.startsWith(prefix) && name.endsWith(".tmp")).map((name) => rm(join(folder, name), { force: true })),
  );
}

/**
 * Keeps a second process from opening the same embedded registry: two
 * writers appending to one journal would interleave their lines. The lock is
 * a file holding the owner's process id and host; a lock whose process is
 * gone (kill -9, a crash) is taken over, so a restart never needs a hand
 * to remove it.
 */

import { open, readFile, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { RegistryError } from "./registry-error.js";

/** Lock files this process holds: its own pid in a lock file is otherwise read as a restart's leftover. */
const heldHere = new Set<string>();

interface LockOwner {
  readonly pid: number;
  readonly host: string;
}

/** A held lock; `release` removes its file. */
export interface FolderLock {
  release(): Promise<void>;
}

/**
 * Takes the lock file at `path`. LOCKED when a live process on this host
 * holds it; a lock of another host is taken only when it names no live
 * process here either, so share an embedded registry's folder with no one.
 */
export async function takeFolderLock(path: string): Promise<FolderLock> {
  if (heldHere.has(path)) throw new RegistryError("LOCKED", `the embedded registry ${path} is already open in this process`);
  const owner: LockOwner = { pid: process.pid, host: hostname() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, "wx");
      try {
        await handle.writeFile(JSON.stringify(owner));
        await handle.sync();
      } finally {
        await handle.close();
      }
      heldHere.add(path);
      return {
        release: async () => {
          heldHere.delete(path);
          await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readFile(path, "utf8")
      .then((text) => JSON.parse(text) as Partial<LockOwner>)
      .catch(() => undefined);
    if (holder !== undefined && typeof holder.pid === "number" && holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new RegistryError(
        "LOCKED",
        `the embedded registry ${path} is held by process ${holder.pid} on ${holder.host ?? "an unknown host"}: one process opens it at a time`,
      );
    }
    // The holder is gone (or is this process before a restart with the same pid, as pid 1 in a container).
    await rm(path, { force: true });
  }
  throw new RegistryError("LOCKED", `could not take the lock ${path}: another process keeps taking it`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

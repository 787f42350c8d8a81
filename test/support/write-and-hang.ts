/**
 * Child process for the crash test: writes FILE's new content durably, then
 * stops between the fsync of the temporary file and the rename, says so on
 * stdout, and waits there to be killed.
 *
 *   node bin/run-ts.mjs test/support/write-and-hang.ts TARGET SOURCE
 */
import { readFileSync } from "node:fs";
import { writeFileDurably } from "../../src/feeds/durable-write.js";

const [target, source] = process.argv.slice(2);
await writeFileDurably(target, readFileSync(source), {
  beforeRename: async () => {
    process.stdout.write("synced, about to rename\n");
    await new Promise(() => {});
  },
});

/**
 * The entry point of `calq` (bin/calq.mjs runs its compiled form): the one
 * place the process's arguments, environment and streams are read; the
 * command itself is run-command.ts.
 */
import { runCommand, writeAll } from "./run-command.js";

const outcome = await runCommand(process.argv.slice(2), process.env, { out: process.stdout, err: process.stderr });
if (outcome !== "running") {
  // A finished command may leave a client's connection open: exit, once what it printed is out.
  await writeAll(process.stdout, "");
  await writeAll(process.stderr, "");
  process.exit(outcome);
}

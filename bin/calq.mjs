#!/usr/bin/env node
// The `calq` command: runs the compiled code in dist/ (`npm run build` makes
// it; `npm start` and `npm test` build first).
import { existsSync } from "node:fs";

const main = new URL("../dist/src/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write("calq: dist/ is missing; run `npm run build` first\n");
  process.exit(2);
}
await import(main.href);

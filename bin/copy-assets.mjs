#!/usr/bin/env node
// The build's one non-TypeScript output: the descriptor set the server and
// the gateway read at run time (src/descriptor-set.ts), beside the compiled gen/.
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync(new URL("../dist/gen/", import.meta.url), { recursive: true });
copyFileSync(new URL("../gen/calq.binpb", import.meta.url), new URL("../dist/gen/calq.binpb", import.meta.url));

#!/usr/bin/env node
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
// Runs one TypeScript file of this repository (benchmarks, scripts) with
// tsx's loader: `node bin/run-ts.mjs FILE [ARGS...]`.
import { register } from "tsx/esm/api";

register();
const [file, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], file, ...rest];
await import(pathToFileURL(resolve(file)).href);

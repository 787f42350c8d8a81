#!/usr/bin/env node
// The `calq` command. The sources are TypeScript run through tsx's loader, so
// a fresh `npm ci` is all it needs: there is no build step to forget.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");

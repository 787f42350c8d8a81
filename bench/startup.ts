/**
 * How fast the `calq` command starts, as a person or a script meets it: the
 * compiled command's `--help`, and a `calq search` round trip against a
 * running server, each a fresh process, beside `node -e 0` (Node's own
 * start) and the same `--help` run from the TypeScript sources through tsx
 * (how every command ran before the build). Writes its section of
 * bench/RESULTS.md. Needs `npm run build` first (npm run bench does it).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { BENCH_TOKEN, serveBenchFeed } from "./bench-server.js";
import { generateFeed } from "./generate-feed.js";
import { machineLine, percentile, writeResultsSection } from "./results-file.js";

const ROOT = join(import.meta.dirname, "..");
const RUNS = 20;

/**
 * Wall-clock milliseconds of `node ARGS` to its exit, `runs` times one after
 * another; throws if a run fails. Asynchronous, so the server in this
 * process keeps answering the searches.
 */
async function timeNode(args: readonly string[], runs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const [status] = (await once(child, "exit")) as [number | null];
    samples.push(performance.now() - t0);
    if (status !== 0) throw new Error(`node ${args.join(" ")} exited ${status}: ${stderr}`);
  }
  return samples;
}

const bench = await serveBenchFeed(generateFeed(Date.now(), { singles: 2_000, series: 50 }));
const search = [
  "bin/calq.mjs",
  "search",
  "--address",
  `127.0.0.1:${bench.server.port}`,
  "--token",
  BENCH_TOKEN,
  "--calendar",
  "primary",
  "--start",
  "2026-10-02",
  "--end-exclusive",
  "2026-10-03",
  "--timezone",
  "Asia/Ho_Chi_Minh",
  "--mode",
  "overlap",
];

const rows: [string, number[], string][] = [
  ["`node -e 0` (Node.js itself)", await timeNode(["-e", "0"], RUNS), ""],
  ["`calq --help` (compiled, dist/)", await timeNode(["bin/calq.mjs", "--help"], RUNS), "≤ 300 ms"],
  ["`calq search` round trip (compiled; one search over gRPC, then exit)", await timeNode(search, RUNS), "≤ 300 ms"],
  [
    "`calq --help` from the sources through tsx (before the build)",
    await timeNode(["--import", "tsx", "src/cli/main.ts", "--help"], 5),
    "",
  ],
];
await bench.close();

const ms = (value: number) => `${value.toFixed(0)} ms`;
const section = `## How fast the command starts (bench/startup.ts)

- ${machineLine()}
- Each figure is a fresh process, from spawn to exit, run one after another; the search goes to a calq
  serving a 2,000-event feed on 127.0.0.1 in the benchmark's own process.

| command | median | p90 | max | target |
|---|---|---|---|---|
${rows.map(([name, samples, target]) => `| ${name} (${samples.length} runs) | ${ms(percentile(samples, 50))} | ${ms(percentile(samples, 90))} | ${ms(Math.max(...samples))} | ${target} |`).join("\n")}
`;
writeResultsSection("startup", section);
process.stdout.write(section);
process.exit(0);

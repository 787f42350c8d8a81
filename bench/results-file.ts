/**
 * bench/RESULTS.md holds one section per benchmark script, each between
 * `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`. A script rewrites only
 * its own section, so running one benchmark keeps the others' figures.
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";

const RESULTS = new URL("./RESULTS.md", import.meta.url);

/** The machine and runtime line every section starts with: figures only compare within one machine. */
export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `Machine: ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}; Node.js ${process.version}; run at ${new Date().toISOString()}.`;
}

/** The line a section ends with: how busy the shared machine was when the figures were taken. */
export function loadLine(): string {
  return `Load average when done: ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(", ")}.`;
}

/** Replaces (or appends) the section `name` of bench/RESULTS.md with `markdown`. */
export function writeResultsSection(name: string, markdown: string): void {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const text = readFileSync(RESULTS, "utf8");
  const block = `${open}\n${markdown.trim()}\n${close}`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  const next =
    start !== -1 && end > start ? text.slice(0, start) + block + text.slice(end + close.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS, next);
}

/** The p-th percentile of samples (the sample at rank floor(p% of n)); NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * `calq check FILE.ics [--timezone ZONE] [--config calq.yaml]`: what calq
 * would make of a feed, before an operator adds it. Reads the file exactly as
 * a reload would (with the limits of `feeds:` in the given calq.yaml, else
 * the defaults) and prints the counts, the calendar zone it chose and why,
 * and every diagnostic with its severity, line and UID.
 *
 * Exit status: 0 when nothing is left out (warnings name the readings
 * applied to producer slips), 1 when something is left out (an error
 * diagnostic), 2 when the feed is refused (calq would keep serving the last
 * good version).
 */
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { checkFeedFile } from "../app/check-feed.js";
import { type Environment, loadConfigFile } from "../config/calq-config.js";
import { DEFAULT_FEED_LIMITS, type FeedLimits } from "../config/config-model.js";
import { countBySeverity, type Severity } from "../ics/diagnostic.js";
import type { ZoneSource } from "../ingest/snapshot.js";
import { isRequestZone } from "../time/request-window.js";
import { UsageError } from "./usage-error.js";

const ZONE_SOURCES: Record<ZoneSource, string> = {
  config: "given by --timezone, as calq.yaml's timezone would",
  feed: "from the feed's X-WR-TIMEZONE",
  default: "UTC by default: neither --timezone nor X-WR-TIMEZONE names one",
};

/** What a reload does with a cut feed for a calendar that never loaded (docs/imperfect-feeds.md). */
const NEVER_LOADED =
  ", if any; for a calendar that never loaded, the complete components of a feed cut before END:VCALENDAR are served, marked stale, until a complete read";

/** `calq check ARGS`: prints the report and returns the exit status. */
export async function check(argv: string[], env: Environment): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { timezone: { type: "string" }, config: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError("calq check takes one file");
  const limits = values.config === undefined ? DEFAULT_FEED_LIMITS : loadConfigFile(values.config, env).feeds;
  const { exitCode, report } = await checkFeed(positionals[0], values.timezone, limits);
  await writeAll(`${report}\n`);
  return exitCode;
}

/**
 * Writes to stdout and waits until the text is handed to the OS: the caller
 * exits the process next, and a pipe (`calq check big.ics | cat`) would
 * otherwise lose all but its first 64 KiB.
 */
function writeAll(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
}

export interface CheckResult {
  readonly exitCode: 0 | 1 | 2;
  readonly report: string;
}

export async function checkFeed(
  path: string,
  timezone: string | undefined,
  feeds: FeedLimits = DEFAULT_FEED_LIMITS,
  now = Date.now(),
): Promise<CheckResult> {
  const name = basename(path);
  if (timezone !== undefined && !isRequestZone(timezone)) {
    return { exitCode: 2, report: `${name}: --timezone "${timezone}" is not an IANA zone name of the form Area/Location (or UTC)` };
  }
  const checked = await checkFeedFile(path, { id: name, timezone }, feeds, now);
  if (checked.kind === "refused") {
    return {
      exitCode: 2,
      report:
        `${name}: unreadable (${checked.failure}): ${checked.detail}; calq would refuse it and keep serving its last good version` +
        (checked.failure === "truncated" ? NEVER_LOADED : ", if any"),
    };
  }
  const { snapshot } = checked;
  const counts = countBySeverity(snapshot.diagnostics);
  const lines = [
    `${name}: ${snapshot.eventCount} events, ${snapshot.index.size} occurrences indexed from ${day(checked.indexedFrom)} to ${day(checked.indexedTo)}, ` +
      `${snapshot.tails.length} recurring series expanded per query beyond that`,
    `calendar zone: ${snapshot.zone.name} (${ZONE_SOURCES[snapshot.zoneSource]})`,
    `diagnostics: ${summary(counts)}`,
    ...snapshot.diagnostics.map((diagnostic) => {
      const where = [
        diagnostic.line === undefined ? "" : `line ${diagnostic.line}`,
        diagnostic.uid === undefined ? "" : `UID ${diagnostic.uid}`,
      ]
        .filter((part) => part !== "")
        .join(", ");
      return `  ${diagnostic.severity} ${diagnostic.code}${where === "" ? "" : ` (${where})`}: ${diagnostic.message}`;
    }),
  ];
  return { exitCode: counts.error === 0 ? 0 : 1, report: lines.join("\n") };
}

function summary(counts: Record<Severity, number>): string {
  if (counts.error + counts.warning === 0) return "none";
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  return `${plural(counts.error, "error")} (something left out), ${plural(counts.warning, "warning")} (read by a stated rule)`;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

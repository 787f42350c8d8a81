/**
 * Structured log lines: one JSON object per line on stderr, written by pino.
 * Records hold ids and codes only: never event contents, tokens, feed
 * locations or secrets. Call sites pass one record with `level` and `msg`
 * fields; that shape is the whole logging interface of calq.
 */
import pino from "pino";
import type { LogLevel } from "../config/server-config.js";
import type { Logger } from "../log.js";

/**
 * Keys that could carry a credential if one were ever passed by mistake;
 * pino replaces their values, so a slip cannot put a secret in the log.
 */
const REDACTED_KEYS = ["authorization", "token", "tokens", "secret", "password", "cookie", "headers"];

/** A Logger writing JSON lines to `destination` (stderr by default), dropping records below `minimum`. */
export function pinoLogger(
  minimum: LogLevel = "info",
  destination: pino.DestinationStream = pino.destination({ fd: 2, sync: true }),
): Logger {
  const logger = pino(
    {
      level: minimum,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_KEYS, ...REDACTED_KEYS.map((key) => `*.${key}`)], censor: "[redacted]" },
    },
    destination,
  );
  return ({ level, msg, ...fields }) => {
    const write = logger[isLevel(level) ? level : "info"].bind(logger);
    if (typeof msg === "string") write(fields, msg);
    else write(fields);
  };
}

function isLevel(value: unknown): value is LogLevel {
  return value === "debug" || value === "info" || value === "warn" || value === "error";
}

/** The default logger: JSON lines on stderr, info and above. */
export const stderrLogger: Logger = pinoLogger();

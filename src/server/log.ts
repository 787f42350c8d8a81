/**
 * Structured log lines (one JSON object per line on stderr). Records hold ids
 * and codes only: never event contents, tokens, feed locations or secrets.
 */
export type Logger = (record: Record<string, unknown>) => void;

/** Writes each record as one JSON line to stderr, stamped with the time. */
export const stderrLogger: Logger = (record) => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`);
};

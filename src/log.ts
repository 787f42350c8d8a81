/**
 * The logging interface every layer writes to: one record per line, with
 * `level` and `msg` fields and ids and codes only (never event contents,
 * tokens, feed locations or secrets). The edges supply the writer
 * (logging/logger.ts, pino on stderr); the layers below only call it.
 */

/** Writes one record; `level` (debug, info, warn, error) and `msg` are read from it, the rest are fields. */
export type Logger = (record: Record<string, unknown>) => void;

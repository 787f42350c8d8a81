/**
 * Credentials in configuration: feed header values and bearer-token digests.
 * A Secret prints as "[redacted]" everywhere; tokens are stored only as
 * their SHA-256 digest.
 */
import { createHash } from "node:crypto";

/**
 * A value that must never be printed: logs, errors and JSON see
 * "[redacted]"; only `reveal()` gives the value, at the one place it is sent.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return "[redacted]";
  }
  toJSON(): string {
    return "[redacted]";
  }
}

/** Lower-case hex SHA-256 of a bearer token, as calq.yaml stores it. */
export function sha256Hex(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

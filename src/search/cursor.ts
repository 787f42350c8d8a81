/**
 * Page cursors (calendar_service.proto: SearchEventsRequest.cursor): opaque, HMAC-SHA256 signed, bound to the caller and
 * to every field of the request but the page size, carrying the snapshot and the position.
 *
 * A cursor is `<payload>.<key id>.<signature>`, base64url. The payload holds a
 * digest of the binding (never the caller's id or the query in clear), the
 * snapshot id, the position after which the next page starts, and when the
 * search's first page was served. Keys rotate: the first key signs, every
 * listed key verifies, so cursors in flight survive a rotation.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { CalqError } from "../calq-error.js";
import type { Position } from "./search-occurrences.js";

/** A signing key; `id` travels in the cursor so verification picks the right key. */
export interface CursorKey {
  readonly id: string;
  readonly secret: Uint8Array;
}

/**
 * Everything a cursor is valid only with. The page size is not part of it:
 * as AIP-158 allows, each page may ask for another `limit`.
 */
export interface CursorBinding {
  readonly principalId: string;
  readonly calendarId: string;
  readonly start: number;
  readonly endExclusive: number;
  readonly timezone: string;
  readonly mode: string;
  /** The search's folded words (text_query); empty for none. */
  readonly words: readonly string[];
  /**
   * The search's filters (status, transparency, participation, categories)
   * as one canonical text; absent or empty for none, which keeps the digest
   * of a search without filters what it was before filters existed.
   */
  readonly filter?: string;
}

/** What a valid cursor says. */
export interface CursorState {
  readonly snapshotId: string;
  readonly position: Position;
  /** When the search's first page was served (epoch ms). */
  readonly searchStartedAt: number;
}

interface Payload {
  v: 1;
  b: string;
  s: string;
  p: number;
  e: string;
  t: number;
}

export class CursorCodec {
  constructor(
    private readonly keys: readonly CursorKey[],
    /** How long after its search's first page a cursor is honoured. */
    readonly lifetimeMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (keys.length === 0) throw new Error("at least one cursor key is needed");
  }

  encode(binding: CursorBinding, state: CursorState): string {
    const payload: Payload = {
      v: 1,
      b: bindingDigest(binding),
      s: state.snapshotId,
      p: state.position.start,
      e: state.position.eventId,
      t: state.searchStartedAt,
    };
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    const key = this.keys[0];
    return `${body}.${key.id}.${sign(key, body)}`;
  }

  /**
   * Reads a cursor sent with a request. INVALID_CURSOR when it is malformed,
   * tampered with, signed by an unknown key, or sent by another caller or with
   * any request field changed; CURSOR_EXPIRED when its search is older than
   * the cursor lifetime.
   */
  decode(cursor: string, binding: CursorBinding): CursorState {
    const [body, keyId, signature, extra] = cursor.split(".");
    if (extra !== undefined || body === undefined || signature === undefined) throw invalidCursor();
    const payload = readPayload(body);
    const key = this.keys.find((candidate) => candidate.id === keyId);
    if (key === undefined) {
      // Made for this very request, but signed by a key this server no
      // longer has (a restart without configured keys, or a finished key
      // rotation): the search can only start again.
      if (payload?.b === bindingDigest(binding)) throw expired("the server that issued it no longer holds its key");
      throw invalidCursor();
    }
    const expected = Buffer.from(sign(key, body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidCursor();
    if (payload === undefined || payload.b !== bindingDigest(binding)) throw invalidCursor();
    if (this.now() - payload.t > this.lifetimeMs) {
      throw expired(`its search started more than ${Math.round(this.lifetimeMs / 60_000)} minutes ago`);
    }
    return { snapshotId: payload.s, position: { start: payload.p, eventId: payload.e }, searchStartedAt: payload.t };
  }
}

function readPayload(body: string): Payload | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    return isPayload(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isPayload(value: unknown): value is Payload {
  if (typeof value !== "object" || value === null) return false;
  const { v, b, s, p, e, t } = value as Record<string, unknown>;
  return v === 1 && typeof b === "string" && typeof s === "string" && typeof e === "string" && Number.isFinite(p) && Number.isFinite(t);
}

function sign(key: CursorKey, body: string): string {
  return createHmac("sha256", key.secret).update(body).digest("base64url");
}

function bindingDigest(binding: CursorBinding): string {
  const canonical = JSON.stringify([
    binding.principalId,
    binding.calendarId,
    binding.start,
    binding.endExclusive,
    binding.timezone,
    binding.mode,
    binding.words,
    ...(binding.filter === undefined || binding.filter === "" ? [] : [binding.filter]),
  ]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 22);
}

function expired(why: string): CalqError {
  return new CalqError("CURSOR_EXPIRED", `the cursor has expired: ${why}; search again from the first page`);
}

function invalidCursor(): CalqError {
  return new CalqError(
    "INVALID_CURSOR",
    "the cursor is not valid for this request: send it only with the same calendars, start, end_exclusive, timezone, match_mode, text_query and filters, as the same caller, unchanged; or drop it and search again",
    "cursor",
  );
}

/**
 * Change tokens and their page tokens (calendar_service.proto: ListChanges):
 * opaque, HMAC-SHA256 signed with the cursor keys, bound to the caller and to
 * the set of calendars. A change token says which snapshot of each calendar
 * the caller has seen; a page token continues one answer, from those
 * snapshots to the ones the answer was computed up to, after an event.
 * Neither is accepted for the other, by another caller, for other calendars,
 * or altered: INVALID_CHANGE_TOKEN. Snapshot ids name their content, so a
 * token works on any replica that remembers those snapshots.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { CalqError } from "../calq-error.js";
import type { CursorKey } from "./cursor.js";

/** What a token is valid only with: the caller and the calendars, in id order. */
export interface ChangeBinding {
  readonly principalId: string;
  readonly calendarIds: readonly string[];
}

/** Where a page of an answer starts: the snapshots it compares, and the last change the pages before gave. */
export interface ChangePage {
  /** One snapshot id per calendar, in the binding's order. */
  readonly from: readonly string[];
  readonly to: readonly string[];
  /** `calendar_id event_key` of the last change given; "" for the first page. */
  readonly after: string;
}

interface Payload {
  v: 1;
  /** "t" a change token, "p" a page token. */
  k: "t" | "p";
  b: string;
  f: string[];
  o?: string[];
  a?: string;
}

export class ChangeTokenCodec {
  constructor(private readonly keys: readonly CursorKey[]) {
    if (keys.length === 0) throw new Error("at least one key is needed");
  }

  /** The token of having seen `snapshotIds` (one per calendar, in the binding's order). */
  token(binding: ChangeBinding, snapshotIds: readonly string[]): string {
    return this.encode({ v: 1, k: "t", b: bindingDigest(binding), f: [...snapshotIds] });
  }

  /** The snapshot ids a change token names; INVALID_CHANGE_TOKEN if it is not one for this caller and these calendars. */
  readToken(token: string, binding: ChangeBinding): string[] {
    const payload = this.decode(token, binding, "t", "change_token");
    return payload.f;
  }

  /** The token of the page after `page`. */
  pageToken(binding: ChangeBinding, page: ChangePage): string {
    return this.encode({ v: 1, k: "p", b: bindingDigest(binding), f: [...page.from], o: [...page.to], a: page.after });
  }

  /** Where a page token continues; INVALID_CHANGE_TOKEN if it is not one for this caller and these calendars. */
  readPage(token: string, binding: ChangeBinding): ChangePage {
    const payload = this.decode(token, binding, "p", "page_token");
    if (payload.o === undefined || payload.a === undefined || payload.o.length !== payload.f.length) throw invalid("page_token");
    return { from: payload.f, to: payload.o, after: payload.a };
  }

  private encode(payload: Payload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    const key = this.keys[0];
    return `${body}.${key.id}.${sign(key, body)}`;
  }

  private decode(token: string, binding: ChangeBinding, kind: Payload["k"], field: string): Payload {
    const [body, keyId, signature, extra] = token.split(".");
    if (extra !== undefined || body === undefined || signature === undefined) throw invalid(field);
    const key = this.keys.find((candidate) => candidate.id === keyId);
    if (key === undefined) throw invalid(field);
    const expected = Buffer.from(sign(key, body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid(field);
    const payload = readPayload(body);
    if (payload === undefined || payload.k !== kind || payload.b !== bindingDigest(binding)) throw invalid(field);
    if (payload.f.length !== binding.calendarIds.length) throw invalid(field);
    return payload;
  }
}

function readPayload(body: string): Payload | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { v, k, b, f, o, a } = value as Record<string, unknown>;
    const texts = (list: unknown) => Array.isArray(list) && list.every((item) => typeof item === "string");
    if (v !== 1 || (k !== "t" && k !== "p") || typeof b !== "string" || !texts(f)) return undefined;
    if (o !== undefined && !texts(o)) return undefined;
    if (a !== undefined && typeof a !== "string") return undefined;
    return value as Payload;
  } catch {
    return undefined;
  }
}

function sign(key: CursorKey, body: string): string {
  return createHmac("sha256", key.secret).update(`changes\n${body}`).digest("base64url");
}

function bindingDigest(binding: ChangeBinding): string {
  return createHash("sha256")
    .update(JSON.stringify(["changes", binding.principalId, binding.calendarIds]))
    .digest("base64url")
    .slice(0, 22);
}

function invalid(field: string): CalqError {
  return new CalqError(
    "INVALID_CHANGE_TOKEN",
    `the ${field.replace("_", " ")} is not valid for this request: send it only with the same calendars, as the same caller, unchanged; or call without one to take a new change token`,
    field,
  );
}

/**
 * A CalDAV calendar collection read incrementally: the first read lists the
 * collection (PROPFIND Depth 1: each member's ETag, and the collection's
 * DAV:sync-token) and fetches every resource by calendar-multiget in
 * batches; each poll after it asks only what changed since the token
 * (sync-collection, RFC 6578) and fetches only those resources. A server
 * without sync-collection is polled by listing again and fetching only the
 * resources whose ETag changed; ETags of calendar object resources are
 * strong (RFC 4791 §5.3.4), so an equal ETag is equal content.
 *
 * A resource that cannot be read (a bad status, no calendar data, too
 * large, not iCalendar) is a diagnostic naming its href and never fails the
 * calendar; a resource that was read before keeps its last good version.
 * What fails the whole collection (unreachable, 401/403, a timeout, an
 * answer that is not a multistatus) is a FeedFailure, as for any feed
 * (docs/feeds.md, "Failures keep the last good data"), and leaves the state
 * as it was: a poll's changes are kept only when the whole poll succeeds.
 *
 * The state between polls (the token, and each href's ETag and text) is a
 * plain value, so it can be saved and given back after a restart.
 */

import { ResourceTextError, splitResource } from "./caldav-calendar-text.js";
import { type CalDavCredentials, type DavAnswer, DavSession, where } from "./caldav-http.js";
import {
  CALDAV,
  DAV,
  type DavResponse,
  errorConditions,
  type Multistatus,
  MultistatusError,
  propertyOf,
  readMultistatus,
} from "./caldav-multistatus.js";
import { escapeXml } from "./caldav-xml.js";
import { FeedFailure } from "./feed-read.js";

/** What a CalDAV reader needs: the collection, how to authenticate, and its limits. */
export interface CalDavOptions {
  /** The calendar collection's URL, http or https. */
  readonly collection: URL;
  readonly credentials?: CalDavCredentials;
  /** The most bytes of one answer, and of the calendar's resources together (the feed limit). */
  readonly maxBytes: number;
  /** The most bytes of one resource; a larger one is a diagnostic. Default: the smaller of maxBytes and 1 MiB. */
  readonly maxResourceBytes?: number;
  /** One deadline for each poll, all its requests included. */
  readonly timeoutMs: number;
  /** Hrefs asked per calendar-multiget. Default 100. */
  readonly multigetBatch?: number;
  /** Told when a poll reads more than it meant to, or less well: for the operator's log. */
  readonly onLog?: (event: CalDavLogEvent) => void;
}

/** What the operator's log is told; names the host, never the path or the token. */
export type CalDavLogEvent =
  /** The server refused the sync token (RFC 6578 §3.2, DAV:valid-sync-token): the collection is listed again, once. */
  | { readonly event: "sync_token_rejected"; readonly host: string }
  /** The server refused sync-collection: from now on it is polled by ETags. */
  | { readonly event: "sync_collection_unsupported"; readonly host: string; readonly httpStatus: number };

/** Why a resource could not be read. */
export type CalDavProblem =
  /** The server answered the resource with a status other than 200 (a 404 is a removal, not a problem). */
  | "http_status"
  /** The server gave no calendar data for it. */
  | "missing"
  /** Its text is over the resource size limit. */
  | "too_large"
  /** Its text is not one complete VCALENDAR. */
  | "not_icalendar";

/** A resource that could not be read. Never fails the calendar. */
export interface CalDavDiagnostic {
  /** The resource's path on the server, as calq names it (percent-encoded). */
  readonly href: string;
  readonly problem: CalDavProblem;
  /** For the operator: what was wrong; never the resource's text. */
  readonly detail: string;
  /** Whether the calendar still serves the resource's last good version. */
  readonly keptLastGood: boolean;
}

/** How a poll found out what changed. */
export type CalDavPollKind =
  /** No state yet: the collection was listed and every resource fetched. */
  | "first_read"
  /** sync-collection with the token: only what it reported was fetched. */
  | "sync_collection"
  /** The token was refused: the collection was listed again, and what differed fetched. */
  | "resync"
  /** No sync-collection: the collection was listed, and resources whose ETag changed fetched. */
  | "etag_listing";

/** What one poll found. */
export interface CalDavPoll {
  readonly kind: CalDavPollKind;
  /** Whether the set of resources or any resource's text changed. */
  readonly changed: boolean;
  /** New resources, href to text, in href order. */
  readonly added: ReadonlyMap<string, string>;
  /** Resources whose text changed, href to the new text, in href order. */
  readonly modified: ReadonlyMap<string, string>;
  /** Hrefs of resources no longer in the collection, in order. */
  readonly removed: readonly string[];
  /** Every resource the calendar serves now, href to text, in href order. */
  readonly resources: ReadonlyMap<string, string>;
  /** Every resource that could not be read, this poll or an earlier one, in href order. */
  readonly diagnostics: readonly CalDavDiagnostic[];
  /** What the poll cost: requests sent, resources transferred (calendar data received), body bytes received (after content decoding). */
  readonly traffic: { readonly requests: number; readonly resources: number; readonly bytes: number };
}

/** The state between polls, as a plain JSON value; give it back to the constructor after a restart. */
export interface CalDavState {
  readonly format: 1;
  /** The collection URL the state belongs to; a state for another URL is not used. */
  readonly collection: string;
  readonly syncToken?: string;
  /** The server refused sync-collection once; it is polled by ETags. */
  readonly syncRefused: boolean;
  /** The resources served, in href order. */
  readonly resources: readonly { readonly href: string; readonly etag?: string; readonly text: string }[];
  /** The resources that could not be read; `etag` is the version judged, retried when it changes (or every poll when unknown). */
  readonly unread: readonly {
    readonly href: string;
    readonly etag?: string;
    readonly problem: CalDavProblem;
    readonly detail: string;
  }[];
}

/** Default resource size limit: far above any real event, far below a feed. */
export const DEFAULT_MAX_RESOURCE_BYTES = 1024 * 1024;
/** Default hrefs per calendar-multiget. */
export const DEFAULT_MULTIGET_BATCH = 100;
/** sync-collection rounds in one poll when the server truncates its answers (RFC 6578 §3.6); the rest comes at the next poll. */
const MAX_SYNC_ROUNDS = 20;

interface Stored {
  readonly etag?: string;
  readonly text: string;
}
interface Unread {
  readonly etag?: string;
  readonly problem: CalDavProblem;
  readonly detail: string;
}

/** What a poll is building; becomes the reader's state only when the poll succeeds. */
interface Draft {
  readonly good: Map<string, Stored>;
  readonly unread: Map<string, Unread>;
  syncToken?: string;
  syncRefused: boolean;
  readonly added: Map<string, string>;
  readonly modified: Map<string, string>;
  readonly removed: Set<string>;
  resourcesReceived: number;
}

const LISTING = `<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:prop><d:resourcetype/><d:getetag/><d:sync-token/></d:prop></d:propfind>`;

const syncCollection = (token: string) => `<?xml version="1.0" encoding="utf-8"?>
<d:sync-collection xmlns:d="DAV:"><d:sync-token>${escapeXml(token)}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/><d:resourcetype/></d:prop></d:sync-collection>`;

const multiget = (hrefs: readonly string[]) => `<?xml version="1.0" encoding="utf-8"?>
<c:calendar-multiget xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs
  .map((href) => `<d:href>${escapeXml(href)}</d:href>`)
  .join("")}</c:calendar-multiget>`;

/** A CalDAV calendar collection and what was last read of it. Polls must not overlap (the store runs one reload of a calendar at a time). */
export class CalDavCollection {
  private good = new Map<string, Stored>();
  private unread = new Map<string, Unread>();
  private syncToken: string | undefined;
  private syncRefused = false;
  private everRead = false;
  private readonly maxResourceBytes: number;
  private readonly batch: number;

  /** `state`, from `state()` of an earlier reader, is used only when it belongs to the same collection URL. */
  constructor(
    private readonly options: CalDavOptions,
    state?: CalDavState,
  ) {
    this.maxResourceBytes = options.maxResourceBytes ?? Math.min(options.maxBytes, DEFAULT_MAX_RESOURCE_BYTES);
    this.batch = Math.max(1, options.multigetBatch ?? DEFAULT_MULTIGET_BATCH);
    if (state !== undefined && state.format === 1 && state.collection === options.collection.href) {
      for (const { href, etag, text } of state.resources) this.good.set(href, { etag, text });
      for (const { href, ...unread } of state.unread) this.unread.set(href, unread);
      this.syncToken = state.syncToken;
      this.syncRefused = state.syncRefused;
      this.everRead = true;
    }
  }

  /** What to save to poll incrementally after a restart. */
  state(): CalDavState {
    return {
      format: 1,
      collection: this.options.collection.href,
      syncToken: this.syncToken,
      syncRefused: this.syncRefused,
      resources: sortedHrefs(this.good).map((href) => ({ href, ...this.good.get(href)! })),
      unread: sortedHrefs(this.unread).map((href) => ({ href, ...this.unread.get(href)! })),
    };
  }

  /** Reads what changed since the last poll. Throws FeedFailure when the collection as a whole cannot be read; the state is then unchanged. */
  async poll(): Promise<CalDavPoll> {
    const session = new DavSession(this.options);
    const draft: Draft = {
      good: new Map(this.good),
      unread: new Map(this.unread),
      syncToken: this.syncToken,
      syncRefused: this.syncRefused,
      added: new Map(),
      modified: new Map(),
      removed: new Set(),
      resourcesReceived: 0,
    };
    let kind: CalDavPollKind = this.everRead ? "etag_listing" : "first_read";
    let toFetch: Map<string, string | undefined> | undefined;
    if (draft.syncToken !== undefined && !draft.syncRefused) {
      const outcome = await this.syncChanges(session, draft.syncToken);
      switch (outcome.kind) {
        case "changes":
          kind = "sync_collection";
          draft.syncToken = outcome.syncToken;
          for (const href of outcome.removed) remove(draft, href);
          toFetch = new Map([...outcome.changed].filter(([href, etag]) => needsFetch(draft, href, etag)));
          // A resource that failed without an ETag to judge it by is asked again at every poll.
          for (const [href, unread] of draft.unread) if (unread.etag === undefined && !toFetch.has(href)) toFetch.set(href, undefined);
          break;
        case "token_rejected":
          kind = "resync";
          draft.syncToken = undefined;
          this.options.onLog?.({ event: "sync_token_rejected", host: where(this.options.collection) });
          break;
        case "unsupported":
          draft.syncToken = undefined;
          draft.syncRefused = true;
          this.options.onLog?.({
            event: "sync_collection_unsupported",
            host: where(this.options.collection),
            httpStatus: outcome.httpStatus,
          });
          break;
      }
    }
    if (toFetch === undefined) toFetch = await this.listChanges(session, draft);
    await this.fetchResources(session, draft, toFetch);

    let total = 0;
    for (const { text } of draft.good.values()) total += Buffer.byteLength(text, "utf8");
    if (total > this.options.maxBytes) {
      throw new FeedFailure(
        "too_large",
        `the collection's resources are ${total} bytes together, over the ${this.options.maxBytes}-byte feed limit`,
      );
    }

    this.good = draft.good;
    this.unread = draft.unread;
    this.syncToken = draft.syncToken;
    this.syncRefused = draft.syncRefused;
    this.everRead = true;
    const removed = [...draft.removed].sort();
    return {
      kind,
      changed: draft.added.size + draft.modified.size + removed.length > 0,
      added: sortedMap(draft.added),
      modified: sortedMap(draft.modified),
      removed,
      resources: new Map(sortedHrefs(this.good).map((href) => [href, this.good.get(href)!.text])),
      diagnostics: sortedHrefs(this.unread).map((href) => {
        const { problem, detail } = this.unread.get(href)!;
        return { href, problem, detail, keptLastGood: this.good.has(href) };
      }),
      traffic: { requests: session.traffic.requests, resources: draft.resourcesReceived, bytes: session.traffic.bytes },
    };
  }

  /**
   * sync-collection from `token` (RFC 6578 §3.2, sync-level 1): the members
   * changed (with their ETags, when given) and removed since, and the new
   * token. Follows truncated answers (a 507 for the collection, §3.6) for a
   * few rounds; what is left comes at the next poll.
   */
  private async syncChanges(
    session: DavSession,
    token: string,
  ): Promise<
    | { kind: "changes"; syncToken: string; changed: Map<string, string | undefined>; removed: Set<string> }
    | { kind: "token_rejected" }
    | { kind: "unsupported"; httpStatus: number }
  > {
    const changed = new Map<string, string | undefined>();
    const removed = new Set<string>();
    let current = token;
    for (let round = 1; ; round++) {
      const answer = await session.send("REPORT", this.options.collection, syncCollection(current), "0");
      if (answer.status !== 207) {
        const conditions = errorConditions(answer.body);
        if (conditions.has("valid-sync-token")) return { kind: "token_rejected" };
        if (conditions.has("supported-report") || answer.status === 501 || answer.status === 405) {
          return { kind: "unsupported", httpStatus: answer.status };
        }
        throw statusFailure(answer, "sync-collection REPORT");
      }
      const multistatus = readAnswer(answer, "sync-collection REPORT");
      if (multistatus.syncToken === undefined) return { kind: "unsupported", httpStatus: answer.status };
      let truncated = false;
      const members = new Members(answer.url);
      for (const response of multistatus.responses) {
        const place = members.place(response.href);
        if (place.kind === "self") truncated ||= response.status === 507;
        if (place.kind !== "member") continue;
        if (response.status === 404) {
          removed.add(place.href);
          changed.delete(place.href);
        } else if (!isCollection(response)) {
          changed.set(place.href, etagOf(response));
          removed.delete(place.href);
        }
      }
      current = multistatus.syncToken;
      if (!truncated || round === MAX_SYNC_ROUNDS) return { kind: "changes", syncToken: current, changed, removed };
    }
  }

  /**
   * Lists the collection (PROPFIND Depth 1): removes from the draft what is
   * gone, takes the collection's sync token unless sync-collection was
   * refused, and returns the members whose ETag differs from what is held.
   */
  private async listChanges(session: DavSession, draft: Draft): Promise<Map<string, string | undefined>> {
    const answer = await session.send("PROPFIND", this.options.collection, LISTING, "1");
    if (answer.status !== 207) throw statusFailure(answer, "PROPFIND");
    const multistatus = readAnswer(answer, "PROPFIND");
    const members = new Members(answer.url);
    const listed = new Map<string, string | undefined>();
    let isCalendar = false;
    for (const response of multistatus.responses) {
      const place = members.place(response.href);
      if (place.kind === "self") {
        isCalendar =
          propertyOf(response, DAV, "resourcetype")?.children.some((type) => type.namespace === CALDAV && type.name === "calendar") ??
          false;
        const token = propertyOf(response, DAV, "sync-token")?.text.trim();
        draft.syncToken = draft.syncRefused || token === "" ? undefined : token;
      } else if (place.kind === "member" && (response.status ?? 200) === 200 && !isCollection(response)) {
        listed.set(place.href, etagOf(response));
      }
    }
    if (!isCalendar)
      throw new FeedFailure("not_icalendar", `the URL on ${where(this.options.collection)} is not a CalDAV calendar collection`);
    for (const href of [...draft.good.keys(), ...draft.unread.keys()]) if (!listed.has(href)) remove(draft, href);
    return new Map([...listed].filter(([href, etag]) => needsFetch(draft, href, etag)));
  }

  /** Fetches `hrefs` by calendar-multiget (RFC 4791 §7.9), a batch at a time, into the draft. */
  private async fetchResources(session: DavSession, draft: Draft, hrefs: ReadonlyMap<string, string | undefined>): Promise<void> {
    const all = [...hrefs.keys()].sort();
    for (let at = 0; at < all.length; at += this.batch) {
      const batch = all.slice(at, at + this.batch);
      const answer = await session.send("REPORT", this.options.collection, multiget(batch));
      if (answer.status !== 207) throw statusFailure(answer, "calendar-multiget REPORT");
      const multistatus = readAnswer(answer, "calendar-multiget REPORT");
      const members = new Members(answer.url);
      const answered = new Set<string>();
      for (const response of multistatus.responses) {
        const place = members.place(response.href);
        if (place.kind !== "member" || !hrefs.has(place.href) || answered.has(place.href)) continue;
        answered.add(place.href);
        this.take(draft, place.href, response, hrefs.get(place.href));
      }
      for (const href of batch) {
        if (!answered.has(href))
          draft.unread.set(href, { problem: "missing", detail: "the server's calendar-multiget answer left it out" });
      }
    }
  }

  /** One resource of a calendar-multiget answer into the draft: stored, removed, or a diagnostic. */
  private take(draft: Draft, href: string, response: DavResponse, listedEtag: string | undefined): void {
    if (response.status === 404) {
      remove(draft, href);
      return;
    }
    if (response.status !== undefined && response.status !== 200) {
      draft.unread.set(href, { problem: "http_status", detail: `the server answered ${response.status} for it` });
      return;
    }
    const etag = etagOf(response) ?? listedEtag;
    const data = propertyOf(response, CALDAV, "calendar-data");
    if (data === undefined) {
      draft.unread.set(href, { etag, problem: "missing", detail: "the server gave no calendar data for it" });
      return;
    }
    draft.resourcesReceived++;
    const text = data.text;
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > this.maxResourceBytes) {
      draft.unread.set(href, {
        etag,
        problem: "too_large",
        detail: `it is ${bytes} bytes, over the ${this.maxResourceBytes}-byte resource limit`,
      });
      return;
    }
    try {
      splitResource(text);
    } catch (error) {
      if (!(error instanceof ResourceTextError)) throw error;
      draft.unread.set(href, { etag, problem: "not_icalendar", detail: error.message });
      return;
    }
    const before = draft.good.get(href);
    draft.good.set(href, { etag, text });
    draft.unread.delete(href);
    if (before === undefined) draft.added.set(href, text);
    else if (before.text !== text) draft.modified.set(href, text);
  }
}

/**
 * A saved state read back (from JSON): the state when it has the shape
 * `state()` gives, else undefined, and the next poll is a first read.
 */
export function readCalDavState(value: unknown): CalDavState | undefined {
  if (!isRecord(value) || value.format !== 1 || typeof value.collection !== "string" || typeof value.syncRefused !== "boolean")
    return undefined;
  if (value.syncToken !== undefined && typeof value.syncToken !== "string") return undefined;
  if (!Array.isArray(value.resources) || !Array.isArray(value.unread)) return undefined;
  const optionalString = (field: unknown) => field === undefined || typeof field === "string";
  const resourcesFit = value.resources.every(
    (entry) => isRecord(entry) && typeof entry.href === "string" && optionalString(entry.etag) && typeof entry.text === "string",
  );
  const unreadFit = value.unread.every(
    (entry) =>
      isRecord(entry) &&
      typeof entry.href === "string" &&
      optionalString(entry.etag) &&
      typeof entry.detail === "string" &&
      typeof entry.problem === "string" &&
      Object.hasOwn(PROBLEMS, entry.problem),
  );
  return resourcesFit && unreadFit ? (value as unknown as CalDavState) : undefined;
}

/** Every problem, so a saved one is checked against the union (a new member fails to compile here until listed). */
const PROBLEMS: Readonly<Record<CalDavProblem, true>> = { http_status: true, missing: true, too_large: true, not_icalendar: true };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a member listed or reported with `etag` must be fetched: unless the ETag is the one held, or the one already judged unreadable. */
function needsFetch(draft: Draft, href: string, etag: string | undefined): boolean {
  if (etag === undefined) return true;
  if (draft.good.get(href)?.etag === etag) {
    // Back to the version held (a change undone): the problem of the other version no longer applies.
    draft.unread.delete(href);
    return false;
  }
  return draft.unread.get(href)?.etag !== etag;
}

function remove(draft: Draft, href: string): void {
  if (draft.good.delete(href)) {
    draft.removed.add(href);
    draft.added.delete(href);
    draft.modified.delete(href);
  }
  draft.unread.delete(href);
}

function etagOf(response: DavResponse): string | undefined {
  const etag = propertyOf(response, DAV, "getetag")?.text.trim();
  return etag === "" ? undefined : etag;
}

function isCollection(response: DavResponse): boolean {
  return propertyOf(response, DAV, "resourcetype")?.children.some((type) => type.namespace === DAV && type.name === "collection") ?? false;
}

function readAnswer(answer: DavAnswer, what: string): Multistatus {
  try {
    return readMultistatus(answer.body);
  } catch (error) {
    if (!(error instanceof MultistatusError)) throw error;
    throw new FeedFailure("not_icalendar", `the ${what} answer from ${where(answer.url)} is not a WebDAV multistatus: ${error.message}`);
  }
}

function statusFailure(answer: DavAnswer, what: string): FeedFailure {
  return new FeedFailure("http_status", `${where(answer.url)} answered ${answer.status} to ${what}`, answer.status);
}

function sortedHrefs(map: ReadonlyMap<string, unknown>): string[] {
  return [...map.keys()].sort();
}

function sortedMap<V>(map: ReadonlyMap<string, V>): Map<string, V> {
  return new Map(sortedHrefs(map).map((href) => [href, map.get(href)!]));
}

/**
 * Where an href of an answer stands relative to the collection: the
 * collection itself, one of its members (named by its canonical path), or
 * elsewhere (never fetched: the credentials go to the collection's origin
 * only). Servers write the same path with different escapes ("%40" or "@"),
 * so paths are compared decoded and re-encoded.
 */
class Members {
  private readonly collectionPath: string;

  constructor(private readonly base: URL) {
    const path = canonicalPath(base.pathname);
    this.collectionPath = path.endsWith("/") ? path : `${path}/`;
  }

  place(href: string): { kind: "self" } | { kind: "member"; href: string } | { kind: "elsewhere" } {
    let url: URL;
    try {
      url = new URL(href, this.base);
    } catch {
      return { kind: "elsewhere" };
    }
    if (url.origin !== this.base.origin) return { kind: "elsewhere" };
    const path = canonicalPath(url.pathname);
    if (path === this.collectionPath || `${path}/` === this.collectionPath) return { kind: "self" };
    return path.startsWith(this.collectionPath) ? { kind: "member", href: path } : { kind: "elsewhere" };
  }
}

function canonicalPath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      try {
        return encodeURIComponent(decodeURIComponent(segment));
      } catch {
        return segment;
      }
    })
    .join("/");
}

/**
 * The values both engines derive the same way, so a replica never sees them
 * differ by engine: a record's shard group (rendezvous hashing, as
 * calq.yaml's calendars are placed), its etag, and the opaque page token of
 * the admin listing.
 */
import { createHash } from "node:crypto";
import { rendezvousGroup } from "../config/shard-map.js";
import { RegistryError } from "./registry-error.js";
import type { CalendarListQuery, CalendarSpec } from "./registry-records.js";

/** The group of `shardKey` among the registry's groups; undefined when it has none (one group serves all). */
export function placeOf(shardKey: string, groups: readonly string[] | undefined): string | undefined {
  return groups === undefined ? undefined : rendezvousGroup(shardKey, groups);
}

/** Shard keys whose group a Placement remembers; past it, it starts over. */
const REMEMBERED_KEYS = 100_000;

/**
 * The registry's groups, with the group of each shard key remembered:
 * rendezvous hashing over 400 groups is 400 digests (about a millisecond),
 * and one user's calendars share a key.
 */
export class Placement {
  private readonly known = new Map<string, string | undefined>();

  constructor(readonly groups: readonly string[] | undefined) {}

  groupOf(shardKey: string): string | undefined {
    if (this.known.has(shardKey)) return this.known.get(shardKey);
    if (this.known.size >= REMEMBERED_KEYS) this.known.clear();
    const group = placeOf(shardKey, this.groups);
    this.known.set(shardKey, group);
    return group;
  }
}

/** The shard key that places a calendar spec: its shard key, else its id (as shard-map.ts's shardKeyOf). */
export function calendarShardKey(spec: Pick<CalendarSpec, "id" | "shardKey">): string {
  return spec.shardKey ?? spec.id;
}

/**
 * An etag names one version of one record: the same id at another change
 * number has another etag. Derived, so no engine stores it apart, and
 * opaque, so no client reads meaning into it. The PostgreSQL functions
 * derive it the same way (postgres-migrations.ts: registry_stamp); it tells
 * versions apart and protects nothing, so md5 is enough.
 */
export function etagOf(id: string, changeNumber: number): string {
  return createHash("md5").update(`${id}:${changeNumber}`).digest("hex").slice(0, 16);
}

/** JSON with keys in sorted order, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** The page size of the admin listing when a query names none. */
export const DEFAULT_PAGE_SIZE = 100;
/** A larger page is refused as INVALID_SPEC. */
export const MAX_PAGE_SIZE = 1_000;

/** What a page token carries: the last id of the page before, and which query it belongs to. */
interface PagePosition {
  readonly after: string;
  readonly query: string;
}

/** The filters of a listing query, digested: a token is valid only with the same filters (the page size may change). */
function queryDigest(query: CalendarListQuery): string {
  return createHash("sha256")
    .update(canonicalJson({ idPrefix: query.idPrefix ?? "", reader: query.reader ?? "", shardGroup: query.shardGroup ?? "" }))
    .digest("base64url")
    .slice(0, 16);
}

/** The token of the page after the one that ended at `lastId`. */
export function pageTokenAfter(lastId: string, query: CalendarListQuery): string {
  const position: PagePosition = { after: lastId, query: queryDigest(query) };
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

/**
 * The checked page size and the id to list after (empty: from the start);
 * INVALID_SPEC for a size out of range, INVALID_PAGE_TOKEN for a token of
 * another query or an altered one.
 */
export function readListQuery(query: CalendarListQuery): { readonly pageSize: number; readonly after: string } {
  const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new RegistryError("INVALID_SPEC", `pageSize: expected 1 to ${MAX_PAGE_SIZE}`, {
      violations: [{ field: "pageSize", description: `expected 1 to ${MAX_PAGE_SIZE}` }],
    });
  }
  if (query.pageToken === undefined || query.pageToken === "") return { pageSize, after: "" };
  let position: Partial<PagePosition> | undefined;
  try {
    position = JSON.parse(Buffer.from(query.pageToken, "base64url").toString("utf8")) as Partial<PagePosition>;
  } catch {
    position = undefined;
  }
  if (typeof position?.after !== "string" || position.query !== queryDigest(query)) {
    throw new RegistryError(
      "INVALID_PAGE_TOKEN",
      "pageToken: not a token of this listing; send the same filters, or start without a token",
    );
  }
  return { pageSize, after: position.after };
}

/** PLACEMENT_MISMATCH unless the configured groups are the stored ones (in any order). */
export function checkPlacement(stored: readonly string[] | null, configured: readonly string[] | undefined, where: string): void {
  const same =
    (stored === null && configured === undefined) ||
    (stored !== null && configured !== undefined && [...stored].sort().join("\0") === [...configured].sort().join("\0"));
  if (!same) {
    const show = (groups: readonly string[] | null | undefined) => (groups ? `[${groups.join(", ")}]` : "no groups");
    throw new RegistryError(
      "PLACEMENT_MISMATCH",
      `${where} places calendars in ${show(stored)}, but this process is configured with ${show(configured)}: every writer must place by the same groups`,
    );
  }
}

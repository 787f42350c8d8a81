/**
 * A CalDAV collection behind the FeedReader interface, so a CalDAV source
 * loads through today's reload path (src/store) while incremental rebuilds
 * are built later: each read polls the collection incrementally (few
 * requests, only changed resources transferred) and, when anything changed,
 * hands the store the resources combined into one feed text
 * (caldav-calendar-text.ts). The FeedVersion's digest is that text's
 * SHA-256, so the store's "unchanged" is exact.
 */
import { combineResources, type ResourceParts, splitResource } from "./caldav-calendar-text.js";
import { CalDavCollection, type CalDavOptions, type CalDavPoll, type CalDavState } from "./caldav-collection.js";
import { contentDigest, type FeedRead, type FeedReader, type FeedVersion } from "./feed-read.js";

/** A CalDAV collection read as one feed. Reads must not overlap (the store runs one reload of a calendar at a time). */
export class CalDavFeed implements FeedReader {
  private readonly collection: CalDavCollection;
  /** Each resource's parts, kept with the text they came from, so a poll that changes one resource splits only that one. */
  private readonly parts = new Map<string, { readonly text: string; readonly parts: ResourceParts }>();
  private digest: string | undefined;
  private last: CalDavPoll | undefined;
  private hrefAtLine: (line: number) => string | undefined = () => undefined;

  /** `state` is a saved `state()` of an earlier reader of the same collection URL; with it the first read is incremental. */
  constructor(options: CalDavOptions, state?: CalDavState) {
    this.collection = new CalDavCollection(options, state);
  }

  async read(previous: FeedVersion | undefined): Promise<FeedRead> {
    const poll = await this.collection.poll();
    this.last = poll;
    if (!poll.changed && this.digest !== undefined && previous?.digest === this.digest) return { changed: false };
    const combined = combineResources([...poll.resources].map(([href, text]) => [href, this.partsOf(href, text)] as const));
    for (const href of this.parts.keys()) if (!poll.resources.has(href)) this.parts.delete(href);
    const bytes = Buffer.from(combined.text, "utf8");
    const digest = await contentDigest(bytes);
    this.digest = digest;
    this.hrefAtLine = combined.hrefAt;
    if (previous?.digest === digest) return { changed: false, version: { digest } };
    return { changed: true, version: { digest }, bytes };
  }

  /** What to save so that the reader after a restart polls incrementally. */
  state(): CalDavState {
    return this.collection.state();
  }

  /** The last successful poll: its kind, its resource diagnostics (each naming its href) and what it transferred. */
  lastPoll(): CalDavPoll | undefined {
    return this.last;
  }

  /** The href of the resource that gave 1-based `line` of the last feed text read, so an ingest diagnostic can name it. */
  hrefAt(line: number): string | undefined {
    return this.hrefAtLine(line);
  }

  private partsOf(href: string, text: string): ResourceParts {
    const known = this.parts.get(href);
    if (known?.text === text) return known.parts;
    // The collection stores only texts that split, so this does not throw.
    const parts = splitResource(text);
    this.parts.set(href, { text, parts });
    return parts;
  }
}

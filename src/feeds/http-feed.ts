/**
 * A feed fetched over HTTP(S) with conditional requests: the ETag and
 * Last-Modified of the last good read go back as If-None-Match and
 * If-Modified-Since, so an unchanged feed costs a 304. The whole fetch,
 * redirects and body included, has one deadline, and the body is counted as
 * it arrives so an oversized feed is dropped without being held.
 *
 * Redirects are followed here, not by fetch, because fetch would carry the
 * configured secret headers to whatever host a redirect names: they go only
 * to the configured origin, and a redirect from https to http is refused.
 * Failure details name the host and an error code, never the URL's path or
 * query (private calendar links keep their secret there) nor a header value.
 */
import type { Secret } from "../config/secret.js";
import { contentDigest, FeedFailure, type FeedRead, type FeedReader, type FeedVersion } from "./feed-read.js";

export interface HttpFeedOptions {
  readonly url: URL;
  readonly headers: ReadonlyMap<string, Secret>;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class HttpFeed implements FeedReader {
  constructor(private readonly options: HttpFeedOptions) {}

  async read(previous: FeedVersion | undefined): Promise<FeedRead> {
    const { maxBytes, timeoutMs } = this.options;
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await this.fetchFollowing(previous, signal);
    if (response.status === 304 && previous !== undefined) {
      await response.body?.cancel();
      return { changed: false };
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new FeedFailure("http_status", `the server answered ${response.status}`, response.status);
    }
    const declared = Number(response.headers.get("content-length") ?? "NaN");
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw new FeedFailure("too_large", `the body is ${declared} bytes, over the ${maxBytes}-byte feed limit`);
    }
    const bytes = await readBody(response, maxBytes, timeoutMs, this.where(new URL(response.url || this.options.url)));
    const version: FeedVersion = {
      etag: response.headers.get("etag") ?? undefined,
      lastModified: response.headers.get("last-modified") ?? undefined,
      digest: await contentDigest(bytes),
    };
    // A 200 with the same bytes (new validators, or none) is no change; the new validators are kept.
    if (previous?.digest === version.digest) return { changed: false, version };
    return { changed: true, bytes, version };
  }

  /** The first answer that is not a redirect, following at most MAX_REDIRECTS. */
  private async fetchFollowing(previous: FeedVersion | undefined, signal: AbortSignal): Promise<Response> {
    let url = this.options.url;
    for (let redirects = 0; ; redirects++) {
      let response: Response;
      try {
        response = await fetch(url, { headers: this.headersFor(url, previous), signal, redirect: "manual" });
      } catch (error) {
        throw classify(error, this.options.timeoutMs, this.where(url));
      }
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel();
      const next = new URL(location, url);
      if (redirects === MAX_REDIRECTS) throw new FeedFailure("unreachable", `more than ${MAX_REDIRECTS} redirects from ${this.where(url)}`);
      if (next.protocol !== "https:" && (next.protocol !== "http:" || url.protocol === "https:")) {
        throw new FeedFailure("unreachable", `refused a redirect from ${this.where(url)} to ${next.protocol} ${next.host}`);
      }
      url = next;
    }
  }

  private headersFor(url: URL, previous: FeedVersion | undefined): Headers {
    const headers = new Headers({ accept: "text/calendar, */*;q=0.1" });
    if (url.origin === this.options.url.origin) {
      for (const [name, secret] of this.options.headers) headers.set(name, secret.reveal());
    }
    if (previous?.etag !== undefined) headers.set("if-none-match", previous.etag);
    if (previous?.lastModified !== undefined) headers.set("if-modified-since", previous.lastModified);
    return headers;
  }

  /** How a URL appears in failure details: scheme and host only. */
  private where(url: URL): string {
    return `${url.protocol}//${url.host}`;
  }
}

/** The body, counted as it arrives; the connection is dropped once it passes maxBytes. */
async function readBody(response: Response, maxBytes: number, timeoutMs: number, where: string): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for await (const chunk of response.body ?? []) {
      length += chunk.byteLength;
      // Leaving the loop cancels the stream, which drops the connection.
      if (length > maxBytes) throw new FeedFailure("too_large", `the body passed the ${maxBytes}-byte feed limit`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof FeedFailure) throw error;
    const failure = classify(error, timeoutMs, where);
    // A connection lost mid-body is a cut feed, whatever the socket error says.
    throw failure.failure === "timeout"
      ? failure
      : new FeedFailure("truncated", `the body from ${where} was cut short (${failure.message})`);
  }
  return Buffer.concat(chunks, length);
}

/** A failure named by its class, the host and a system error code: never the error's own text, which may quote the URL. */
function classify(error: unknown, timeoutMs: number, where: string): FeedFailure {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return new FeedFailure("timeout", `no complete answer from ${where} within ${timeoutMs} ms`);
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" ? cause.code : error instanceof Error ? error.name : "error";
  return new FeedFailure("unreachable", `${code} from ${where}`);
}

/**
 * A feed fetched over HTTP(S) with conditional requests: the ETag and
 * Last-Modified of the last good read go back as If-None-Match and
 * If-Modified-Since, so an unchanged feed costs a 304. The whole fetch, body
 * included, has one deadline, and the body is counted as it arrives so an
 * oversized feed is dropped without being held.
 */
import type { Secret } from "../config/calq-config.js";
import { decodeFeed } from "../ics/decode.js";
import { contentDigest, FeedFailure, type FeedRead, type FeedReader, type FeedVersion } from "./feed-read.js";

export interface HttpFeedOptions {
  readonly url: URL;
  readonly headers: ReadonlyMap<string, Secret>;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

export class HttpFeed implements FeedReader {
  constructor(private readonly options: HttpFeedOptions) {}

  async read(previous: FeedVersion | undefined): Promise<FeedRead> {
    const { url, maxBytes, timeoutMs } = this.options;
    const headers = new Headers({ accept: "text/calendar, */*;q=0.1" });
    for (const [name, secret] of this.options.headers) headers.set(name, secret.reveal());
    if (previous?.etag !== undefined) headers.set("if-none-match", previous.etag);
    if (previous?.lastModified !== undefined) headers.set("if-modified-since", previous.lastModified);
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, { headers, signal, redirect: "follow" });
    } catch (error) {
      throw classify(error, timeoutMs);
    }
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
    const bytes = await readBody(response, maxBytes, timeoutMs);
    const digest = contentDigest(bytes);
    const version: FeedVersion = {
      etag: response.headers.get("etag") ?? undefined,
      lastModified: response.headers.get("last-modified") ?? undefined,
      digest,
    };
    // A 200 with the same bytes (a server without validators) is no change either.
    if (previous?.digest === digest) return { changed: false };
    return { changed: true, text: decodeFeed(bytes), version };
  }
}

/** The body, counted as it arrives; the connection is dropped once it passes maxBytes. */
async function readBody(response: Response, maxBytes: number, timeoutMs: number): Promise<Buffer> {
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
    const failure = classify(error, timeoutMs);
    // A connection lost mid-body is a cut feed, whatever the socket error says.
    throw failure.failure === "timeout" ? failure : new FeedFailure("truncated", `the body was cut short: ${failure.message}`);
  }
  return Buffer.concat(chunks, length);
}

function classify(error: unknown, timeoutMs: number): FeedFailure {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return new FeedFailure("timeout", `no complete answer within ${timeoutMs} ms`);
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  return new FeedFailure("unreachable", cause?.message ?? (error instanceof Error ? error.message : String(error)));
}

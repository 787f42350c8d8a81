/**
 * The requests of one CalDAV poll, with the rules of http-feed.ts for what
 * is sent and what is said: credentials go only to the configured origin,
 * the whole poll has one deadline, each answer is counted as it arrives and
 * dropped past the size limit, and a failure names the host and an error
 * code, never the URL's path, a credential or the server's words.
 *
 * Redirects are followed only within the configured origin (a collection
 * URL without its trailing slash is often redirected): the hrefs a server
 * answers with are paths on its own origin, and the credentials must never
 * follow a redirect elsewhere, so a redirect to another origin fails the
 * poll and the operator configures the URL the redirect names.
 */
import type { Secret } from "../config/secret.js";
import { assertNever } from "../exhaustive.js";
import { FeedFailure } from "./feed-read.js";

/**
 * How the reader proves who it is (RFC 7617 Basic, RFC 6750 Bearer). The
 * secret holds the whole credential: "user:password" for Basic, the token
 * for Bearer.
 */
export type CalDavCredentials =
  | { readonly scheme: "basic"; readonly secret: Secret }
  | { readonly scheme: "bearer"; readonly secret: Secret };

/** The WebDAV methods the reader sends (RFC 4918 §9.1, RFC 3253 §3.6). */
export type DavMethod = "PROPFIND" | "REPORT";

/** An answer, whatever its status: the body as text and the URL that gave it (after same-origin redirects). */
export interface DavAnswer {
  readonly status: number;
  readonly body: string;
  readonly url: URL;
}

/** What one session sent and received, for the poll's report and the benchmarks. */
export interface DavTraffic {
  /** Requests sent, redirected ones included. */
  requests: number;
  /** Body bytes received, after content decoding. */
  bytes: number;
}

/** Where and how a session talks: the collection's URL, the credentials, the size limit of one answer and the poll's deadline. */
export interface DavSessionOptions {
  readonly collection: URL;
  readonly credentials?: CalDavCredentials;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 307, 308]);

/** The requests of one poll, under one deadline that starts when the session is made. */
export class DavSession {
  readonly traffic: DavTraffic = { requests: 0, bytes: 0 };
  private readonly signal: AbortSignal;

  constructor(private readonly options: DavSessionOptions) {
    this.signal = AbortSignal.timeout(options.timeoutMs);
  }

  /** `method` on `url` with an XML body; `depth` is sent when given. Throws FeedFailure when no whole answer comes. */
  async send(method: DavMethod, url: URL, body: string, depth?: "0" | "1"): Promise<DavAnswer> {
    let target = url;
    for (let redirects = 0; ; redirects++) {
      const response = await this.fetchOnce(method, target, body, depth);
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null) {
        return { status: response.status, body: await this.readBody(response, target), url: target };
      }
      await response.body?.cancel();
      const next = new URL(location, target);
      if (redirects === MAX_REDIRECTS) throw new FeedFailure("unreachable", `more than ${MAX_REDIRECTS} redirects from ${where(url)}`);
      if (next.origin !== this.options.collection.origin) {
        throw new FeedFailure(
          "unreachable",
          `refused a redirect from ${where(target)} to ${where(next)}: configure the collection URL it names`,
        );
      }
      target = next;
    }
  }

  private async fetchOnce(method: DavMethod, url: URL, body: string, depth: "0" | "1" | undefined): Promise<Response> {
    const headers = new Headers({ "content-type": "application/xml; charset=utf-8", accept: "application/xml, text/xml;q=0.9" });
    if (depth !== undefined) headers.set("depth", depth);
    const credentials = this.options.credentials;
    if (credentials !== undefined && url.origin === this.options.collection.origin)
      headers.set("authorization", authorization(credentials));
    this.traffic.requests++;
    try {
      return await fetch(url, { method, headers, body, signal: this.signal, redirect: "manual" });
    } catch (error) {
      throw classify(error, this.options.timeoutMs, where(url));
    }
  }

  /** The body as UTF-8 text, counted as it arrives; the connection is dropped once it passes maxBytes. */
  private async readBody(response: Response, url: URL): Promise<string> {
    const { maxBytes, timeoutMs } = this.options;
    const declared = Number(response.headers.get("content-length") ?? "NaN");
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw new FeedFailure("too_large", `an answer from ${where(url)} is ${declared} bytes, over the ${maxBytes}-byte feed limit`);
    }
    const chunks: Uint8Array[] = [];
    let length = 0;
    try {
      for await (const chunk of response.body ?? []) {
        length += chunk.byteLength;
        this.traffic.bytes += chunk.byteLength;
        // Leaving the loop cancels the stream, which drops the connection.
        if (length > maxBytes) throw new FeedFailure("too_large", `an answer from ${where(url)} passed the ${maxBytes}-byte feed limit`);
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof FeedFailure) throw error;
      const failure = classify(error, timeoutMs, where(url));
      throw failure.failure === "timeout"
        ? failure
        : new FeedFailure("truncated", `an answer from ${where(url)} was cut short (${failure.message})`);
    }
    return new TextDecoder().decode(Buffer.concat(chunks, length));
  }
}

/** The Authorization header value; revealed here, at the one place it is sent. */
function authorization(credentials: CalDavCredentials): string {
  switch (credentials.scheme) {
    case "basic":
      return `Basic ${Buffer.from(credentials.secret.reveal(), "utf8").toString("base64")}`;
    case "bearer":
      return `Bearer ${credentials.secret.reveal()}`;
    default:
      return assertNever(credentials, "credential scheme");
  }
}

/** How a URL appears in failure details: scheme and host only. */
export function where(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/** A failure named by its class, the host and a system error code: never the error's own text, which may quote the URL. */
function classify(error: unknown, timeoutMs: number, host: string): FeedFailure {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return new FeedFailure("timeout", `no complete answer from ${host} within ${timeoutMs} ms`);
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" ? cause.code : error instanceof Error ? error.name : "error";
  return new FeedFailure("unreachable", `${code} from ${host}`);
}

/**
 * A real HTTP server on 127.0.0.1 standing in for a calendar provider. Each
 * test sets how it answers; every request is recorded with its headers.
 * Responses held back (a slow upstream) are released when the server closes,
 * so no test leaves a socket open.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Answer = (request: IncomingMessage, response: ServerResponse) => void;

export interface FeedServer {
  readonly url: string;
  /** Headers of every request so far, oldest first. */
  readonly requests: IncomingHttpHeaders[];
  answer(next: Answer): void;
  close(): Promise<void>;
}

export async function startFeedServer(first: Answer): Promise<FeedServer> {
  let current = first;
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    requests.push(request.headers);
    current(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/calendar.ics`,
    requests,
    answer: (next) => {
      current = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** 200 with the text, an ETag from `version` and a Last-Modified; 304 when the client already has that version. */
export function versioned(text: string, version: string): Answer {
  const etag = `"${version}"`;
  return (request, response) => {
    if (request.headers["if-none-match"] === etag) {
      response.writeHead(304, { etag }).end();
      return;
    }
    response
      .writeHead(200, { "content-type": "text/calendar; charset=utf-8", etag, "last-modified": "Tue, 01 Sep 2026 00:00:00 GMT" })
      .end(text);
  };
}

export const status =
  (code: number, body = "upstream says no"): Answer =>
  (_request, response) => {
    response.writeHead(code, { "content-type": "text/plain" }).end(body);
  };

/** Sends `text` but claims it is longer, then drops the connection: a body cut in transit. */
export const cutShort =
  (text: string): Answer =>
  (_request, response) => {
    response.writeHead(200, { "content-type": "text/calendar", "content-length": String(Buffer.byteLength(text) * 2) });
    response.write(text, () => response.socket?.destroy());
  };

/** Streams chunks with no Content-Length, then drops the connection mid-body. */
export const cutChunked =
  (text: string): Answer =>
  (_request, response) => {
    response.writeHead(200, { "content-type": "text/calendar" });
    response.write(text.slice(0, Math.floor(text.length / 2)), () => response.socket?.destroy());
  };

/** Sends headers, then never finishes the body (until the server closes). */
export const stall: Answer = (_request, response) => {
  response.writeHead(200, { "content-type": "text/calendar" });
  response.write("BEGIN:VCALENDAR\r\n");
};

/** Answers nothing at all until the server closes. */
export const silent: Answer = () => {};

/** `bytes` of filler with no Content-Length, streamed in 64 KiB chunks. */
export const endless =
  (bytes: number): Answer =>
  (_request, response) => {
    response.writeHead(200, { "content-type": "text/calendar" });
    const chunk = Buffer.alloc(64 * 1024, "X");
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once("drain", pump);
      }
      response.end();
    };
    response.on("error", () => {});
    pump();
  };

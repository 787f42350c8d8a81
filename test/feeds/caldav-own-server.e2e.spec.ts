/**
 * The CalDAV reader against a small CalDAV server of the test's own (real
 * HTTP on a loopback port), for what Radicale will not do: a server without
 * sync-collection, one that refuses it, one that truncates its answers,
 * resources it cannot serve or serves as something other than iCalendar,
 * redirects, and answers too large or too late.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Secret } from "../../src/config/secret.js";
import { CalDavCollection, type CalDavLogEvent, type CalDavOptions } from "../../src/feeds/caldav-collection.js";
import { escapeXml } from "../../src/feeds/caldav-xml.js";
import { FeedFailure } from "../../src/feeds/feed-read.js";
import { eventResource } from "../support/radicale.js";

/** How the small server answers sync-collection. */
type SyncSupport =
  /** It lists no DAV:sync-token and never gets asked. */
  | "none"
  /** It lists a token, then answers 501. */
  | "not_implemented"
  /** It lists a token, then answers 403 with DAV:supported-report. */
  | "unsupported_report"
  /** It answers token t1 in two rounds: b changed and a 507 for the collection, then c removed. */
  | "truncating";

interface Stored {
  etag: string;
  text: string;
  /** A status to answer for this resource in a calendar-multiget instead of its data. */
  status?: number;
}

interface SmallDav {
  readonly origin: string;
  readonly resources: Map<string, Stored>;
  /** Each request: method, path, the kind of body, the Authorization header. */
  readonly requests: { method: string; path: string; kind: string; authorization?: string }[];
  sync: SyncSupport;
  /** A status to answer every calendar-multiget with, instead of 207. */
  multigetStatus?: number;
  /** Where /elsewhere/ redirects. */
  elsewhere?: string;
  close(): Promise<void>;
}

const multistatus = (responses: string) =>
  `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">${responses}</d:multistatus>`;
const ok = (props: string) => `<d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>`;
const CALENDAR_TYPE = "<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>";

async function startSmallDav(): Promise<SmallDav> {
  const resources = new Map<string, Stored>();
  const requests: SmallDav["requests"] = [];
  const held: ServerResponse[] = [];
  const dav: SmallDav = { origin: "", resources, requests, sync: "none", close: async () => {} };
  const answer = (response: ServerResponse, status: number, body: string) =>
    response.writeHead(status, { "content-type": "application/xml; charset=utf-8" }).end(body);

  const handle = (request: IncomingMessage, body: string, response: ServerResponse) => {
    const path = request.url ?? "";
    const kind = /sync-collection/.test(body)
      ? "sync-collection"
      : /calendar-multiget/.test(body)
        ? `multiget(${body.match(/<d:href>/g)?.length})`
        : "listing";
    requests.push({ method: request.method ?? "", path, kind, authorization: request.headers.authorization });
    if (path === "/cal") return response.writeHead(301, { location: "/cal/" }).end();
    if (path === "/elsewhere/") return response.writeHead(307, { location: `${dav.elsewhere}/cal/` }).end();
    if (path === "/slow/") return void held.push(response);
    if (path === "/plain/")
      return answer(
        response,
        207,
        multistatus(`<d:response><d:href>/plain/</d:href>${ok("<d:resourcetype><d:collection/></d:resourcetype>")}</d:response>`),
      );
    if (path !== "/cal/") return answer(response, 404, "");
    if (request.method === "PROPFIND") {
      const token = dav.sync === "none" ? "" : "<d:sync-token>t1</d:sync-token>";
      const members = [...resources].map(
        ([name, { etag }]) =>
          `<d:response><d:href>/cal/${name}</d:href>${ok(`<d:getetag>${etag}</d:getetag><d:resourcetype/>`)}</d:response>`,
      );
      return answer(
        response,
        207,
        multistatus(`<d:response><d:href>/cal/</d:href>${ok(CALENDAR_TYPE + token)}</d:response>${members.join("")}`),
      );
    }
    if (kind === "sync-collection") {
      if (dav.sync === "not_implemented") return answer(response, 501, "");
      if (dav.sync === "unsupported_report") return answer(response, 403, '<d:error xmlns:d="DAV:"><d:supported-report/></d:error>');
      if (body.includes(">t1<")) {
        const b = resources.get("b.ics")!;
        const changed = `<d:response><d:href>/cal/b.ics</d:href>${ok(`<d:getetag>${b.etag}</d:getetag>`)}</d:response>`;
        return answer(
          response,
          207,
          multistatus(
            `${changed}<d:response><d:href>/cal/</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response><d:sync-token>t2</d:sync-token>`,
          ),
        );
      }
      const gone = body.includes(">t2<")
        ? "<d:response><d:href>/cal/c.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>"
        : "";
      return answer(response, 207, multistatus(`${gone}<d:sync-token>t3</d:sync-token>`));
    }
    if (dav.multigetStatus !== undefined) return answer(response, dav.multigetStatus, "");
    const hrefs = [...body.matchAll(/<d:href>([^<]*)<\/d:href>/g)].map((match) => match[1]);
    const items = hrefs.map((href) => {
      const stored = resources.get(href.slice("/cal/".length));
      if (stored === undefined) return `<d:response><d:href>${href}</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>`;
      if (stored.status !== undefined)
        return `<d:response><d:href>${href}</d:href><d:status>HTTP/1.1 ${stored.status} Oops</d:status></d:response>`;
      return `<d:response><d:href>${href}</d:href>${ok(`<d:getetag>${stored.etag}</d:getetag><c:calendar-data>${escapeXml(stored.text)}</c:calendar-data>`)}</d:response>`;
    });
    answer(response, 207, multistatus(items.join("")));
  };

  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => handle(request, body, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  Object.assign(dav, {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return dav;
}

let dav: SmallDav;
let logged: CalDavLogEvent[];

beforeEach(async () => {
  dav = await startSmallDav();
  logged = [];
  for (const name of ["a", "b", "c"])
    dav.resources.set(`${name}.ics`, { etag: `"${name}1"`, text: eventResource(`${name}@calq.test`, `event ${name}`) });
});
afterEach(() => dav.close());

function collection(path = "/cal/", overrides: Partial<CalDavOptions> = {}): CalDavCollection {
  return new CalDavCollection({
    collection: new URL(path, dav.origin),
    credentials: { scheme: "bearer", secret: new Secret("tok-123") },
    maxBytes: 256 * 1024,
    timeoutMs: 5_000,
    onLog: (event) => logged.push(event),
    ...overrides,
  });
}

/** The requests since the last call, as "METHOD kind". */
function requests(): string[] {
  return dav.requests.splice(0).map(({ method, kind }) => `${method} ${kind}`);
}

function failureOf(promise: Promise<unknown>): Promise<FeedFailure> {
  return promise.then(
    () => {
      throw new Error("expected a FeedFailure");
    },
    (error: unknown) => {
      if (!(error instanceof FeedFailure)) throw error;
      return error;
    },
  );
}

describe("a CalDAV server without sync-collection", () => {
  it("is polled by listing ETags, and only the resources whose ETag changed are fetched", async () => {
    const reader = collection();
    expect(await reader.poll()).toMatchObject({ kind: "first_read", changed: true });
    expect(requests()).toEqual(["PROPFIND listing", "REPORT multiget(3)"]);

    dav.resources.set("b.ics", { etag: '"b2"', text: eventResource("b@calq.test", "event b moved") });
    const changed = await reader.poll();
    expect(changed).toMatchObject({ kind: "etag_listing", changed: true, removed: [] });
    expect([...changed.modified.keys()]).toEqual(["/cal/b.ics"]);
    expect(requests()).toEqual(["PROPFIND listing", "REPORT multiget(1)"]);

    dav.resources.delete("c.ics");
    expect(await reader.poll()).toMatchObject({ kind: "etag_listing", changed: true, removed: ["/cal/c.ics"] });
    expect(requests()).toEqual(["PROPFIND listing"]);
  });

  it.each<[SyncSupport, number]>([
    ["not_implemented", 501],
    ["unsupported_report", 403],
  ])("is polled by ETags from then on when it lists a sync token but refuses sync-collection (%s), logged once", async (sync, status) => {
    dav.sync = sync;
    const reader = collection();
    await reader.poll();
    requests();
    expect(await reader.poll()).toMatchObject({ kind: "etag_listing", changed: false });
    expect(requests()).toEqual(["REPORT sync-collection", "PROPFIND listing"]);
    expect(logged).toEqual([{ event: "sync_collection_unsupported", host: dav.origin, httpStatus: status }]);

    await reader.poll();
    expect(requests()).toEqual(["PROPFIND listing"]);
    expect(reader.state().syncRefused).toBe(true);
    expect(logged).toHaveLength(1);
  });
});

describe("sync-collection answers cut short", () => {
  it("are followed with the new token within the same poll (a 507 for the collection)", async () => {
    dav.sync = "truncating";
    const reader = collection();
    await reader.poll();
    dav.resources.set("b.ics", { etag: '"b2"', text: eventResource("b@calq.test", "event b moved") });
    dav.resources.delete("c.ics");
    requests();
    const poll = await reader.poll();
    expect(poll).toMatchObject({ kind: "sync_collection", removed: ["/cal/c.ics"] });
    expect([...poll.modified.keys()]).toEqual(["/cal/b.ics"]);
    expect(requests()).toEqual(["REPORT sync-collection", "REPORT sync-collection", "REPORT multiget(1)"]);
    expect(reader.state().syncToken).toBe("t3");
  });
});

describe("a resource that cannot be read", () => {
  it("is a diagnostic naming its href when it is not iCalendar, the rest load, and it is asked again only when its ETag changes", async () => {
    dav.resources.set("x.ics", { etag: '"x1"', text: "<!doctype html><title>Sign in</title>" });
    const reader = collection();
    const first = await reader.poll();
    expect([...first.resources.keys()]).toEqual(["/cal/a.ics", "/cal/b.ics", "/cal/c.ics"]);
    expect(first.diagnostics).toEqual([
      { href: "/cal/x.ics", problem: "not_icalendar", detail: "the text does not begin with BEGIN:VCALENDAR", keptLastGood: false },
    ]);
    requests();

    expect((await reader.poll()).diagnostics).toHaveLength(1);
    expect(requests()).toEqual(["PROPFIND listing"]);

    dav.resources.set("x.ics", { etag: '"x2"', text: eventResource("x@calq.test", "event x") });
    const mended = await reader.poll();
    expect([...mended.added.keys()]).toEqual(["/cal/x.ics"]);
    expect(mended.diagnostics).toEqual([]);
  });

  it("keeps its last good version when it changes into something the server cannot serve, and is asked again at each poll", async () => {
    const reader = collection();
    const first = await reader.poll();
    dav.resources.set("b.ics", { etag: '"b2"', text: "", status: 500 });
    const poll = await reader.poll();
    expect(poll).toMatchObject({ changed: false, diagnostics: [{ href: "/cal/b.ics", problem: "http_status", keptLastGood: true }] });
    expect(poll.resources.get("/cal/b.ics")).toBe(first.resources.get("/cal/b.ics"));
    requests();
    await reader.poll();
    expect(requests()).toEqual(["PROPFIND listing", "REPORT multiget(1)"]);
  });

  it("is removed without a diagnostic when the server answers 404 for it (deleted between listing and fetch)", async () => {
    const reader = collection();
    await reader.poll();
    // Listed with a new ETag, then answered 404 when fetched.
    dav.resources.set("b.ics", { etag: '"b2"', text: "", status: 404 });
    const poll = await reader.poll();
    expect(poll).toMatchObject({ removed: ["/cal/b.ics"], diagnostics: [] });
  });
});

describe("a whole-collection failure", () => {
  it("is a FeedFailure that leaves the state as it was, so the next poll finds the same changes", async () => {
    const reader = collection();
    await reader.poll();
    dav.resources.set("b.ics", { etag: '"b2"', text: eventResource("b@calq.test", "event b moved") });
    dav.multigetStatus = 503;
    expect(await failureOf(reader.poll())).toMatchObject({ failure: "http_status", httpStatus: 503 });
    dav.multigetStatus = undefined;
    expect([...(await reader.poll()).modified.keys()]).toEqual(["/cal/b.ics"]);
  });

  it("is too_large for an answer over the size limit", async () => {
    for (let n = 0; n < 50; n++)
      dav.resources.set(`filler-${n}.ics`, { etag: `"f${n}"`, text: eventResource(`f${n}@calq.test`, "filler") });
    expect(await failureOf(collection("/cal/", { maxBytes: 2_000 }).poll())).toMatchObject({ failure: "too_large" });
  });

  it("is a timeout when no answer comes within the poll's deadline", async () => {
    expect(await failureOf(collection("/slow/", { timeoutMs: 200 }).poll())).toMatchObject({ failure: "timeout" });
  });

  it("is not_icalendar for a URL that is a collection but not a calendar", async () => {
    const failure = await failureOf(collection("/plain/").poll());
    expect(failure).toMatchObject({ failure: "not_icalendar" });
    expect(failure.message).not.toContain("/plain/");
  });
});

describe("credentials and redirects", () => {
  it("follow a redirect within the origin, sending the Bearer token there", async () => {
    const poll = await collection("/cal").poll();
    expect(poll.resources.size).toBe(3);
    expect(dav.requests.map(({ path, authorization }) => [path, authorization])).toEqual([
      ["/cal", "Bearer tok-123"],
      ["/cal/", "Bearer tok-123"],
      ["/cal", "Bearer tok-123"],
      ["/cal/", "Bearer tok-123"],
    ]);
  });

  it("refuse a redirect to another origin: nothing is sent there, and the failure names hosts only", async () => {
    const other = await startSmallDav();
    dav.elsewhere = other.origin;
    try {
      const failure = await failureOf(collection("/elsewhere/").poll());
      expect(failure.failure).toBe("unreachable");
      expect(failure.message).toContain(new URL(other.origin).host);
      expect(failure.message).not.toMatch(/elsewhere|\/cal\/|tok-123/);
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("send Basic credentials as user:password in base64", async () => {
    await collection("/cal/", { credentials: { scheme: "basic", secret: new Secret("alice:s3cret") } }).poll();
    expect(dav.requests[0].authorization).toBe(`Basic ${Buffer.from("alice:s3cret").toString("base64")}`);
  });
});

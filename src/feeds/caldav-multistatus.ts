/**
 * WebDAV answers as values: a 207 Multi-Status body (RFC 4918 §13, §14.16)
 * becomes one entry per href with its status or its properties and their
 * statuses, and a DAV:error body (RFC 4918 §16) becomes the names of the
 * conditions it states. The CalDAV reader asks its questions of these
 * values, never of XML.
 */
import { childOf, childrenOf, readXml, type XmlElement } from "./caldav-xml.js";

/** The WebDAV namespace (RFC 4918 §21). */
export const DAV = "DAV:";
/** The CalDAV namespace (RFC 4791 §1.2). */
export const CALDAV = "urn:ietf:params:xml:ns:caldav";

/** A property as one propstat gave it: the element and that propstat's status. */
export interface DavProperty {
  readonly status: number;
  readonly element: XmlElement;
}

/** One DAV:response, for one href. */
export interface DavResponse {
  /** The href as the server wrote it, trimmed; resolve it against the request URL. */
  readonly href: string;
  /** The status of the response as a whole (a removed member's 404, RFC 6578 §3.5.2), when it has one instead of propstats. */
  readonly status?: number;
  /** Properties by `namespace + " " + name` (see `propertyOf`). */
  readonly properties: ReadonlyMap<string, DavProperty>;
}

/** A Multi-Status body: its responses and, for sync-collection, the new DAV:sync-token (RFC 6578 §6.4). */
export interface Multistatus {
  readonly responses: readonly DavResponse[];
  readonly syncToken?: string;
}

/** The text is not a Multi-Status body. Its message never quotes the body (the XmlError, which may, is its cause). */
export class MultistatusError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = "MultistatusError";
  }
}

/** Reads a 207 body. Throws MultistatusError when it is not XML or not a DAV:multistatus. */
export function readMultistatus(body: string): Multistatus {
  const root = parse(body);
  if (root.namespace !== DAV || root.name !== "multistatus") throw new MultistatusError("the body is XML but not a DAV multistatus");
  const responses: DavResponse[] = [];
  for (const response of childrenOf(root, DAV, "response")) {
    const statusElement = childOf(response, DAV, "status");
    const status = statusElement === undefined ? undefined : statusCode(statusElement.text);
    const properties = new Map<string, DavProperty>();
    for (const propstat of childrenOf(response, DAV, "propstat")) {
      const propstatStatus = statusCode(childOf(propstat, DAV, "status")?.text ?? "");
      for (const prop of childrenOf(propstat, DAV, "prop")) {
        for (const element of prop.children)
          properties.set(propertyKey(element.namespace, element.name), { status: propstatStatus, element });
      }
    }
    // RFC 4918 §14.24: a response with a status may name several hrefs, all with that status.
    for (const href of childrenOf(response, DAV, "href")) responses.push({ href: href.text.trim(), status, properties });
  }
  const syncToken = childOf(root, DAV, "sync-token")?.text.trim();
  return { responses, syncToken: syncToken === "" ? undefined : syncToken };
}

/** The property `name` in `namespace` of a response, when it came with status 200. */
export function propertyOf(response: DavResponse, namespace: string, name: string): XmlElement | undefined {
  const property = response.properties.get(propertyKey(namespace, name));
  return property?.status === 200 ? property.element : undefined;
}

/**
 * The DAV: precondition and postcondition names of a DAV:error body (RFC 4918
 * §16), such as "valid-sync-token" (RFC 6578 §3.2) or "supported-report"
 * (RFC 3253 §3.6). Empty for a body that is not a DAV:error, or not XML.
 */
export function errorConditions(body: string): ReadonlySet<string> {
  let root: XmlElement;
  try {
    root = readXml(body);
  } catch {
    return new Set();
  }
  if (root.namespace !== DAV || root.name !== "error") return new Set();
  return new Set(root.children.filter((child) => child.namespace === DAV).map((child) => child.name));
}

function parse(body: string): XmlElement {
  try {
    return readXml(body);
  } catch (error) {
    // The reader's message may quote the body; it stays in the cause, out of the detail.
    throw new MultistatusError("the body is not well-formed XML", { cause: error });
  }
}

function propertyKey(namespace: string, name: string): string {
  return `${namespace} ${name}`;
}

/** The code of an HTTP status line ("HTTP/1.1 404 Not Found"); 0 when there is none. */
function statusCode(line: string): number {
  const match = /^\s*HTTP\/[\d.]+\s+(\d{3})/.exec(line);
  return match === null ? 0 : Number(match[1]);
}

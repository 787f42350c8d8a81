/**
 * The XML that CalDAV servers answer with, read into a namespace-aware tree.
 * WebDAV names elements by namespace and local name (RFC 4918 §8.2), and
 * servers pick any prefix, or none ("D:href", "d:href", `<href xmlns="DAV:">`),
 * so a reader that matches prefixes, or drops them, misreads some servers.
 *
 * Written here rather than taken from npm: a multistatus needs elements,
 * character data, CDATA and namespaces, nothing more, and a reader that
 * refuses any document type declaration cannot be made to expand entities
 * (the "billion laughs") or to fetch anything, whatever the server sends.
 * A general parser would still need a namespace layer on top of it.
 */

/** One element: its namespace URI ("" when it has none), local name, child elements and the character data directly inside it. */
export interface XmlElement {
  readonly namespace: string;
  readonly name: string;
  readonly children: readonly XmlElement[];
  /** Character data and CDATA directly inside, in order, entities decoded and line ends normalised to LF (XML 1.0 §2.11). */
  readonly text: string;
}

/** Text that is not well-formed XML, or that uses what this reader refuses (a DOCTYPE, an undeclared prefix). */
export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "XmlError";
  }
}

const PREDEFINED: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
const NAME = /[A-Za-z_:][-A-Za-z0-9_.:\u00B7-\uFFFF]*/y;
const ATTRIBUTE = /\s+([A-Za-z_:][-A-Za-z0-9_.:\u00B7-\uFFFF]*)\s*=\s*("[^"<]*"|'[^'<]*')/y;
const TAG_END = /\s*(\/?)>/y;
const XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace";

interface OpenElement {
  readonly qualifiedName: string;
  readonly namespace: string;
  readonly name: string;
  readonly children: XmlElement[];
  readonly scope: ReadonlyMap<string, string>;
  text: string;
}

/** The root element of `source`. Throws XmlError for text that is not a well-formed document this reader accepts. */
export function readXml(source: string): XmlElement {
  const text = source.replace(/\r\n?/g, "\n");
  const stack: OpenElement[] = [];
  let root: XmlElement | undefined;
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (at < text.length) {
    const open = text.indexOf("<", at);
    const end = open === -1 ? text.length : open;
    if (end > at) {
      const data = text.slice(at, end);
      const parent = stack.at(-1);
      if (parent !== undefined) parent.text += decodeEntities(data);
      else if (data.trim() !== "") throw new XmlError("character data outside the root element");
    }
    if (open === -1) break;
    if (text.startsWith("<!--", open)) at = after(text, "-->", open + 4, "a comment");
    else if (text.startsWith("<?", open)) at = after(text, "?>", open + 2, "a processing instruction");
    else if (text.startsWith("<![CDATA[", open)) {
      const close = text.indexOf("]]>", open + 9);
      if (close === -1) throw new XmlError("a CDATA section is not closed");
      const parent = stack.at(-1);
      if (parent === undefined) throw new XmlError("a CDATA section outside the root element");
      parent.text += text.slice(open + 9, close);
      at = close + 3;
    } else if (text.startsWith("<!", open)) {
      throw new XmlError("a document type or markup declaration is refused");
    } else if (text.startsWith("</", open)) {
      NAME.lastIndex = open + 2;
      const name = NAME.exec(text)?.[0];
      const closing = stack.pop();
      if (name === undefined || closing === undefined || closing.qualifiedName !== name) {
        throw new XmlError(`an end tag </${name ?? ""}> does not close the open element`);
      }
      TAG_END.lastIndex = NAME.lastIndex;
      if (TAG_END.exec(text)?.[1] !== "") throw new XmlError(`the end tag </${name}> is not well-formed`);
      at = TAG_END.lastIndex;
      const element: XmlElement = { namespace: closing.namespace, name: closing.name, children: closing.children, text: closing.text };
      const parent = stack.at(-1);
      if (parent !== undefined) parent.children.push(element);
      else root = element;
    } else {
      if (root !== undefined) throw new XmlError("a second root element");
      const { element, selfClosing, next } = startTag(text, open, stack.at(-1)?.scope ?? ROOT_SCOPE);
      at = next;
      if (!selfClosing) stack.push(element);
      else {
        const done: XmlElement = { namespace: element.namespace, name: element.name, children: [], text: "" };
        const parent = stack.at(-1);
        if (parent !== undefined) parent.children.push(done);
        else root = done;
      }
    }
  }
  if (stack.length > 0) throw new XmlError(`the element <${stack.at(-1)?.qualifiedName}> is not closed`);
  if (root === undefined) throw new XmlError("no root element");
  return root;
}

const ROOT_SCOPE: ReadonlyMap<string, string> = new Map([
  ["xml", XML_NAMESPACE],
  ["", ""],
]);

/** A start tag at `open`: the element with its namespace resolved, whether it closes itself, and where the tag ends. */
function startTag(
  text: string,
  open: number,
  parentScope: ReadonlyMap<string, string>,
): { element: OpenElement; selfClosing: boolean; next: number } {
  NAME.lastIndex = open + 1;
  const qualifiedName = NAME.exec(text)?.[0];
  if (qualifiedName === undefined) throw new XmlError("a start tag without a name");
  let at = NAME.lastIndex;
  let scope = parentScope;
  for (;;) {
    ATTRIBUTE.lastIndex = at;
    const attribute = ATTRIBUTE.exec(text);
    if (attribute === null) break;
    at = ATTRIBUTE.lastIndex;
    const [, name, quoted] = attribute;
    if (name === "xmlns" || name.startsWith("xmlns:")) {
      if (scope === parentScope) scope = new Map(parentScope);
      (scope as Map<string, string>).set(name === "xmlns" ? "" : name.slice(6), decodeEntities(quoted.slice(1, -1)));
    }
  }
  TAG_END.lastIndex = at;
  const end = TAG_END.exec(text);
  if (end === null) throw new XmlError(`the start tag <${qualifiedName}> is not well-formed`);
  const colon = qualifiedName.indexOf(":");
  const prefix = colon === -1 ? "" : qualifiedName.slice(0, colon);
  const namespace = scope.get(prefix);
  if (namespace === undefined) throw new XmlError(`the prefix "${prefix}" is not declared`);
  return {
    element: { qualifiedName, namespace, name: qualifiedName.slice(colon + 1), children: [], scope, text: "" },
    selfClosing: end[1] === "/",
    next: TAG_END.lastIndex,
  };
}

function after(text: string, marker: string, from: number, what: string): number {
  const close = text.indexOf(marker, from);
  if (close === -1) throw new XmlError(`${what} is not closed`);
  return close + marker.length;
}

/** Character data with its references replaced: the five predefined entities and numeric references, nothing else. */
function decodeEntities(data: string): string {
  if (!data.includes("&")) return data;
  return data.replace(/&([^;&\s]*);?/g, (whole, reference: string) => {
    if (!whole.endsWith(";")) throw new XmlError("an & that starts no reference");
    const predefined = PREDEFINED[reference];
    if (predefined !== undefined) return predefined;
    const code = /^#x[0-9A-Fa-f]+$/.test(reference)
      ? Number.parseInt(reference.slice(2), 16)
      : /^#[0-9]+$/.test(reference)
        ? Number.parseInt(reference.slice(1), 10)
        : Number.NaN;
    if (!Number.isInteger(code) || code > 0x10ffff || code === 0) throw new XmlError(`an unknown reference &${reference};`);
    return String.fromCodePoint(code);
  });
}

/** Text as XML character data (and attribute values): `&`, `<`, `>` and quotes escaped. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The first child of `element` named `name` in `namespace`. */
export function childOf(element: XmlElement, namespace: string, name: string): XmlElement | undefined {
  return element.children.find((child) => child.namespace === namespace && child.name === name);
}

/** Every child of `element` named `name` in `namespace`, in document order. */
export function childrenOf(element: XmlElement, namespace: string, name: string): XmlElement[] {
  return element.children.filter((child) => child.namespace === namespace && child.name === name);
}

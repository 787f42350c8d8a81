/**
 * The XML reader and the WebDAV answers read with it: elements are named by
 * namespace whatever prefix a server picks, character data comes back
 * decoded, and what could make a reader expand or fetch anything (a
 * DOCTYPE) is refused.
 */
import { describe, expect, it } from "vitest";
import { errorConditions, MultistatusError, propertyOf, readMultistatus } from "../../src/feeds/caldav-multistatus.js";
import { childOf, escapeXml, readXml, XmlError } from "../../src/feeds/caldav-xml.js";

const CALDAV = "urn:ietf:params:xml:ns:caldav";

describe("the XML reader", () => {
  it("names elements by namespace, whether the server writes a prefix, another prefix or a default namespace", () => {
    for (const text of [
      '<D:multistatus xmlns:D="DAV:"><D:href>/a</D:href></D:multistatus>',
      '<x:multistatus xmlns:x="DAV:"><x:href>/a</x:href></x:multistatus>',
      '<multistatus xmlns="DAV:"><href>/a</href></multistatus>',
    ]) {
      const root = readXml(text);
      expect([root.namespace, root.name]).toEqual(["DAV:", "multistatus"]);
      expect(childOf(root, "DAV:", "href")?.text).toBe("/a");
    }
  });

  it("tells apart two elements of the same local name in different namespaces", () => {
    const root = readXml('<a xmlns="DAV:" xmlns:c="urn:c"><c:href>other</c:href><href>dav</href></a>');
    expect(childOf(root, "DAV:", "href")?.text).toBe("dav");
    expect(childOf(root, "urn:c", "href")?.text).toBe("other");
  });

  it("scopes a namespace declaration to its element", () => {
    const root = readXml('<a xmlns="urn:outer"><b xmlns="urn:inner"/><c/></a>');
    expect(root.children.map((child) => `${child.namespace} ${child.name}`)).toEqual(["urn:inner b", "urn:outer c"]);
  });

  it("decodes the predefined entities, numeric references and CDATA, and normalises CRLF to LF", () => {
    const root = readXml('<?xml version="1.0"?>\r\n<t>a &lt;b&gt; &amp; &quot;&apos; &#233;&#x1F600;\r\nnext<![CDATA[<raw> & ]]></t>');
    expect(root.text).toBe("a <b> & \"' é😀\nnext<raw> & ");
  });

  it("skips comments and processing instructions", () => {
    expect(readXml("<!-- before --><?pi x?><t><!-- inside -->text</t><!-- after -->").text).toBe("text");
  });

  it.each([
    ["a DOCTYPE (no entity can be expanded)", '<!DOCTYPE t [<!ENTITY x "y">]><t>&x;</t>'],
    ["an unknown entity", "<t>&nbsp;</t>"],
    ["a bare ampersand", "<t>a & b</t>"],
    ["an undeclared prefix", "<D:t/>"],
    ["mismatched tags", "<a><b></a></b>"],
    ["an element left open", "<a><b></b>"],
    ["two roots", "<a/><b/>"],
    ["text outside the root", "<a/>stray"],
    ["no element at all", "just text"],
  ])("refuses %s", (_case, text) => {
    expect(() => readXml(text)).toThrow(XmlError);
  });

  it("escapes text so that it reads back unchanged", () => {
    const text = `/cal/a&b <"it's">.ics`;
    expect(readXml(`<t a="${escapeXml(text)}">${escapeXml(text)}</t>`).text).toBe(text);
  });
});

describe("a WebDAV multistatus", () => {
  const body = `<?xml version="1.0" encoding="utf-8"?>
<d:multistatus xmlns:d="DAV:" xmlns:c="${CALDAV}">
  <d:response>
    <d:href>/cal/a.ics</d:href>
    <d:propstat><d:prop><d:getetag>"1"</d:getetag><c:calendar-data>BEGIN:VCALENDAR&#13;
END:VCALENDAR&#13;
</c:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
    <d:propstat><d:prop><d:displayname/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
  </d:response>
  <d:response><d:href>/cal/gone.ics</d:href><d:href>/cal/also-gone.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>
  <d:sync-token>http://example.com/sync/2</d:sync-token>
</d:multistatus>`;

  it("gives each href its status or its properties, and the sync token", () => {
    const multistatus = readMultistatus(body);
    expect(multistatus.syncToken).toBe("http://example.com/sync/2");
    expect(multistatus.responses.map((response) => [response.href, response.status])).toEqual([
      ["/cal/a.ics", undefined],
      ["/cal/gone.ics", 404],
      ["/cal/also-gone.ics", 404],
    ]);
    const [first] = multistatus.responses;
    expect(propertyOf(first, "DAV:", "getetag")?.text).toBe('"1"');
    expect(propertyOf(first, CALDAV, "calendar-data")?.text).toBe("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
  });

  it("gives no property that came with a status other than 200", () => {
    expect(propertyOf(readMultistatus(body).responses[0], "DAV:", "displayname")).toBeUndefined();
  });

  it("refuses a body that is not XML, or not a multistatus, without quoting it", () => {
    expect(() => readMultistatus("<html><body>secret words")).toThrow(MultistatusError);
    expect(() => readMultistatus('<error xmlns="DAV:"/>')).toThrow(MultistatusError);
    expect(() => readMultistatus("<html><body>secret words")).not.toThrow(/secret/);
  });

  it("reads the conditions of a DAV:error body, and none from anything else", () => {
    expect(errorConditions('<D:error xmlns:D="DAV:"><D:valid-sync-token/></D:error>')).toEqual(new Set(["valid-sync-token"]));
    expect(errorConditions('<error xmlns="DAV:"><supported-report/></error>')).toEqual(new Set(["supported-report"]));
    expect(errorConditions("Forbidden")).toEqual(new Set());
    expect(errorConditions("<html/>")).toEqual(new Set());
  });
});

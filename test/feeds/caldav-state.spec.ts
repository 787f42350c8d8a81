/**
 * The state a CalDAV reader keeps between polls, saved as JSON and read
 * back after a restart: a state of the right shape is taken as it is, any
 * other is refused (the next poll is then a first read), and a state saved
 * for another collection URL is not used.
 */
import { describe, expect, it } from "vitest";
import { CalDavCollection, type CalDavState, readCalDavState } from "../../src/feeds/caldav-collection.js";

const saved: CalDavState = {
  format: 1,
  collection: "https://dav.example.com/alice/team/",
  syncToken: "http://example.com/sync/7",
  syncRefused: false,
  resources: [{ href: "/alice/team/a.ics", etag: '"a1"', text: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n" }],
  unread: [{ href: "/alice/team/x.ics", etag: '"x1"', problem: "not_icalendar", detail: "the text does not begin with BEGIN:VCALENDAR" }],
};

const options = (collection: string) => ({ collection: new URL(collection), maxBytes: 1024, timeoutMs: 1000 });

describe("a saved CalDAV state", () => {
  it("reads back from JSON as it was saved", () => {
    expect(readCalDavState(JSON.parse(JSON.stringify(saved)))).toEqual(saved);
  });

  it.each<[string, unknown]>([
    ["not an object", "state"],
    ["another format", { ...saved, format: 2 }],
    ["a token that is not a string", { ...saved, syncToken: 7 }],
    ["resources that are not a list", { ...saved, resources: {} }],
    ["a resource without text", { ...saved, resources: [{ href: "/a.ics" }] }],
    ["an unknown problem", { ...saved, unread: [{ href: "/x.ics", problem: "gremlins", detail: "" }] }],
    ["a problem named by an inherited key", { ...saved, unread: [{ href: "/x.ics", problem: "toString", detail: "" }] }],
  ])("is refused when it is %s", (_case, value) => {
    expect(readCalDavState(value)).toBeUndefined();
  });

  it("is taken by a reader of the same collection URL", () => {
    expect(new CalDavCollection(options(saved.collection), saved).state()).toEqual(saved);
  });

  it("is not used by a reader of another collection URL", () => {
    const other = new CalDavCollection(options("https://dav.example.com/alice/other/"), saved).state();
    expect(other).toMatchObject({ collection: "https://dav.example.com/alice/other/", resources: [], unread: [], syncRefused: false });
    expect(other.syncToken).toBeUndefined();
  });
});

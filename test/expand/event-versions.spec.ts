/**
 * Each event of a snapshot has a version (src/expand/event-versions.ts):
 * what ChangesSince compares. A version changes when what a search shows of
 * the event changes, and only then: not when another event moves in the
 * feed, nor when the feed is read again later.
 */
import { describe, expect, it } from "vitest";
import { versionChanges, versionDigest } from "../../src/expand/event-versions.js";
import type { EventComponent } from "../../src/ics/parse-calendar.js";
import { ianaZone } from "../../src/time/zones.js";
import { feed, snapshotOf } from "../support/feeds.js";
import { workerBuild } from "../support/worker-build.js";

const readAt = Date.UTC(2026, 10, 29);
const standup = ["UID:standup", "DTSTART:20261130T090000Z", "DURATION:PT15M", "RRULE:FREQ=WEEKLY;BYDAY=MO", "SUMMARY:Stand-up"];
const review = ["UID:review", "DTSTART:20261201T100000Z", "DTEND:20261201T110000Z", "SUMMARY:Review"];
const lunch = ["UID:lunch", "DTSTART:20261202T120000Z", "DTEND:20261202T130000Z", "SUMMARY:Lunch"];

const versionsOf = (...events: string[][]) => snapshotOf(feed(["X-WR-TIMEZONE:UTC"], ...events), readAt).versions;
const changed = (before: string[][], after: string[][]) =>
  versionChanges(versionsOf(...before), versionsOf(...after)).map((change) => ({
    summary: (change.after ?? change.before)!.summary,
    kind: change.before === undefined ? "added" : change.after === undefined ? "removed" : "changed",
  }));

describe("event versions", () => {
  it("are one per event, a series with its overrides counting once", () => {
    const override = ["UID:standup", "RECURRENCE-ID:20261207T090000Z", "DTSTART:20261207T100000Z", "DURATION:PT15M", "SUMMARY:Stand-up"];
    const table = versionsOf(standup, override, review);
    expect(table.size).toBe(2);
    const series = [0, 1].map((i) => table.at(i)).find((version) => version.recurring)!;
    expect(series).toMatchObject({ summary: "Stand-up", start: Date.UTC(2026, 10, 30, 9), end: Number.POSITIVE_INFINITY });
  });

  it("do not change when another event is added before them in the feed, or when the feed is read later", () => {
    expect(changed([review, lunch], [standup, review, lunch])).toEqual([{ summary: "Stand-up", kind: "added" }]);
    const later = snapshotOf(feed(["X-WR-TIMEZONE:UTC"], standup, review), readAt + 40 * 86_400_000).versions;
    expect(versionChanges(versionsOf(standup, review), later)).toEqual([]);
  });

  it("say an event moved, with its times before and after", () => {
    const moved = ["UID:review", "DTSTART:20261201T140000Z", "DTEND:20261201T150000Z", "SUMMARY:Review"];
    const [change] = versionChanges(versionsOf(standup, review), versionsOf(standup, moved));
    expect(change.before).toMatchObject({ start: Date.UTC(2026, 11, 1, 10), end: Date.UTC(2026, 11, 1, 11) });
    expect(change.after).toMatchObject({ start: Date.UTC(2026, 11, 1, 14), end: Date.UTC(2026, 11, 1, 15) });
  });

  it("change a series once when one of its occurrences is moved or excluded", () => {
    const override = ["UID:standup", "RECURRENCE-ID:20261207T090000Z", "DTSTART:20261207T100000Z", "DURATION:PT15M", "SUMMARY:Stand-up"];
    expect(changed([standup], [standup, override])).toEqual([{ summary: "Stand-up", kind: "changed" }]);
    expect(changed([standup], [[...standup, "EXDATE:20261207T090000Z"]])).toEqual([{ summary: "Stand-up", kind: "changed" }]);
  });

  it("are gone for an event cancelled, which then reads as removed", () => {
    expect(changed([standup, review], [standup, [...review, "STATUS:CANCELLED"]])).toEqual([{ summary: "Review", kind: "removed" }]);
  });

  it("digest every field of a component but where it stands, and its zones by name", () => {
    const york = ianaZone("America/New_York")!;
    const at = (local: number) => ({ kind: "date-time" as const, local, zone: york });
    const base: Required<EventComponent> = {
      uid: "standup",
      line: 10,
      summary: "Stand-up",
      location: "Room 1",
      description: "Daily",
      about: { description: "Daily", descriptionCut: false, attendees: [], attendeeCount: 0, links: [], categories: [], rrules: [] },
      status: "CONFIRMED",
      transparent: false,
      lastModified: 1,
      sequence: 0,
      start: at(100),
      end: at(200),
      duration: { days: 0, exactMs: 100 },
      rrules: [{ freq: "WEEKLY" }],
      exrules: [{ freq: "YEARLY" }],
      rdates: [{ start: at(300) }],
      exdates: [at(400)],
      recurrenceId: at(500),
      thisAndFuture: false,
    };
    // One other value per field: a field added to EventComponent must be added here (it does not compile until then).
    const other: { readonly [K in Exclude<keyof EventComponent, "line">]-?: EventComponent[K] } = {
      uid: "standup-2",
      summary: "Stand-down",
      location: "Room 2",
      description: "Weekly",
      about: { ...base.about, categories: ["Work"] },
      status: "TENTATIVE",
      transparent: true,
      lastModified: 2,
      sequence: 1,
      start: { kind: "date-time", local: 100, zone: ianaZone("Europe/Paris") },
      end: { kind: "date", local: 200 },
      duration: { days: 1, exactMs: 100 },
      rrules: [{ freq: "DAILY" }],
      exrules: [],
      rdates: [{ start: at(300), end: at(350) }],
      exdates: [at(400), at(450)],
      recurrenceId: { kind: "date-time", local: 500, zone: undefined },
      thisAndFuture: true,
    };
    const digest = versionDigest([base]);
    for (const [field, value] of Object.entries(other)) {
      expect(versionDigest([{ ...base, [field]: value }]), field).not.toBe(digest);
    }
    expect(versionDigest([{ ...base, line: 99 }])).toBe(digest);
    expect(versionDigest([{ ...base, start: { ...at(100), zone: { name: york.name, offsetAt: () => 0 } } }])).toBe(digest);
    expect(versionDigest([base, { ...base, recurrenceId: at(600) }])).toBe(versionDigest([{ ...base, recurrenceId: at(600) }, base]));
  });

  it("cross threads packed and read the same", () => {
    const text = feed(["X-WR-TIMEZONE:UTC"], standup, review, lunch);
    const built = snapshotOf(text, readAt);
    const before = [0, 1, 2].map((i) => built.versions.at(i));
    const unpacked = workerBuild(text, { readAt });
    expect([0, 1, 2].map((i) => unpacked.versions.at(i))).toEqual(before);
  });
});

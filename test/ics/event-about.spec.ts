/**
 * What GetEvent reads beyond a search result (ics/event-about.ts), through
 * real feed text: values a producer typed oddly are read as empty rather
 * than failing the feed, CLASS as RFC 5545 reads it (unknown values are
 * PRIVATE), and links found in one pass whatever text follows them.
 */
import { describe, expect, it } from "vitest";
import { ics, snapshotOf, vevent } from "../support/feeds.js";

const readAt = Date.UTC(2026, 9, 1);

function aboutOf(...lines: string[]) {
  const snapshot = snapshotOf(
    ics(...vevent("UID:e@calq.test", "DTSTART:20261002T020000Z", "DURATION:PT1H", "SUMMARY:e", ...lines)),
    readAt,
  );
  return snapshot.index.items[0].details;
}

describe("what an event keeps for GetEvent", () => {
  it("reads a property typed as a rule (VALUE=RECUR) where text is expected as empty, and keeps the event", () => {
    const details = aboutOf("ATTENDEE;VALUE=RECUR:FREQ=DAILY", "CATEGORIES;VALUE=RECUR:FREQ=DAILY", "CLASS;VALUE=RECUR:FREQ=DAILY");
    expect(details.summary).toBe("e");
    expect(details.about?.attendees).toEqual([{ name: "", address: "", participation: "", role: "" }]);
    expect(details.about?.categories).toEqual([]);
  });

  it("reads CLASS as RFC 5545 does: absent or PUBLIC is public, CONFIDENTIAL stays, any other value is PRIVATE", () => {
    expect(aboutOf("DESCRIPTION:x").about?.classification).toBeUndefined();
    expect(aboutOf("DESCRIPTION:x").classified).toBeUndefined();
    expect(aboutOf("CLASS:public").about?.classification).toBe("PUBLIC");
    expect(aboutOf("CLASS:CONFIDENTIAL").about?.classification).toBe("CONFIDENTIAL");
    for (const value of ["PRIVATE", "X-SECRET", "privat"]) {
      const details = aboutOf(`CLASS:${value}`);
      expect(details.about?.classification, value).toBe("PRIVATE");
      expect(details.classified, value).toBe(true);
    }
  });

  it("keeps a PRIVATE series' CLASS on an override that writes none, and lets one that writes PUBLIC say so", () => {
    const snapshot = snapshotOf(
      ics(
        ...vevent(
          "UID:s@calq.test",
          "DTSTART:20261005T020000Z",
          "DURATION:PT1H",
          "RRULE:FREQ=DAILY;COUNT=5",
          "CLASS:PRIVATE",
          "SUMMARY:Therapy",
        ),
        ...vevent(
          "UID:s@calq.test",
          "RECURRENCE-ID:20261006T020000Z",
          "DTSTART:20261006T050000Z",
          "DURATION:PT1H",
          "SUMMARY:Therapy moved",
        ),
        ...vevent(
          "UID:s@calq.test",
          "RECURRENCE-ID:20261007T020000Z",
          "DTSTART:20261007T050000Z",
          "DURATION:PT1H",
          "CLASS:PUBLIC",
          "SUMMARY:Open session",
        ),
      ),
      readAt,
    );
    const bySummary = new Map(snapshot.index.items.map((occurrence) => [occurrence.details.summary, occurrence.details]));
    expect(bySummary.get("Therapy")?.classified).toBe(true);
    expect(bySummary.get("Therapy moved")?.classified).toBe(true);
    expect(bySummary.get("Therapy moved")?.about?.classification).toBe("PRIVATE");
    expect(bySummary.get("Open session")?.classified).toBeUndefined();
    expect(bySummary.get("Open session")?.about?.classification).toBe("PUBLIC");
  });

  it("finds a link followed by a long run of punctuation in one pass, without the punctuation", () => {
    const details = aboutOf(`DESCRIPTION:see https://a.example/x${".".repeat(300_000)}y and https://b.example/j?id=1.`);
    expect(details.about?.links).toEqual([{ url: "https://b.example/j?id=1", source: "description" }]);
  });

  it("writes a series' rules in one normal form, FREQ first and the parts in a fixed order, whatever order the feed wrote", () => {
    const details = aboutOf("RRULE:BYDAY=MO,WE;INTERVAL=2;COUNT=5;FREQ=WEEKLY;WKST=SU");
    expect(details.about?.rrules).toEqual(["FREQ=WEEKLY;COUNT=5;INTERVAL=2;BYDAY=MO,WE;WKST=SU"]);
    const same = aboutOf("RRULE:FREQ=WEEKLY;WKST=SU;BYDAY=MO,WE;COUNT=5;INTERVAL=2");
    expect(same.about?.rrules).toEqual(details.about?.rrules);
  });
});

/**
 * Real producers' exports (docs/feeds.md): Google Calendar, Outlook/Exchange, Apple Calendar and
 * Nextcloud, written in test/fixtures/producers with each producer's habits (folding at 75 octets, CRLF or LF,
 * a BOM, Windows zone names, Outlook's and a customised VTIMEZONE, X- properties, alarms), plus a UID shared
 * by two calendars and SEQUENCE changes within one feed and between reloads.
 *
 * Every feed is read the way `calq serve` reads it, from the file through CalendarStore, and searched with
 * searchPage. Expected instants were worked out by hand from the zone rules (W. Europe Standard Time is
 * Europe/Berlin; SE Asia Standard Time is Asia/Bangkok, UTC+7 without DST), never pasted from calq's output.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type CalendarConfig, DEFAULT_REFRESH_MS } from "../../src/config/config-model.js";
import type { Occurrence } from "../../src/expand/occurrence.js";
import type { Snapshot } from "../../src/ingest/snapshot.js";
import { type MatchMode, type Window, windowRelation } from "../../src/search/match.js";
import { occurrenceMessage } from "../../src/server/occurrence-message.js";
import { CalendarStore } from "../../src/store/calendar-store.js";
import { formatInZone } from "../../src/time/civil.js";
import { ianaZone } from "../../src/time/zones.js";
import { searchAll } from "../support/feeds.js";

const PRODUCERS = fileURLToPath(new URL("../fixtures/producers/", import.meta.url));
const READ_AT = Date.UTC(2026, 10, 29);
const RETENTION_MS = 15 * 60_000;

interface FeedSetup {
  readonly calendarId?: string;
  /** The zone calq.yaml would configure for the calendar. */
  readonly timezone?: string;
  readonly readAt?: number;
}

/** A calendar of calq.yaml whose source is the file at `path`. */
function calendar(id: string, path: string, timezone?: string): CalendarConfig {
  return { id, source: { kind: "file", path }, refreshMs: DEFAULT_REFRESH_MS, timezone, name: id, readers: [] };
}

/** The snapshot `calq serve` would build from a fixture: read from the file by CalendarStore. */
async function load(file: string, { calendarId = "cal", timezone, readAt = READ_AT }: FeedSetup = {}): Promise<Snapshot> {
  const store = new CalendarStore([calendar(calendarId, join(PRODUCERS, file), timezone)], {
    retentionMs: RETENTION_MS,
    now: () => readAt,
  });
  const outcome = await store.reload(calendarId);
  if (outcome.outcome !== "loaded") throw new Error(`${file} did not load: ${JSON.stringify(outcome)}`);
  return outcome.snapshot;
}

function raw(file: string): Buffer {
  return readFileSync(join(PRODUCERS, file));
}

function window(start: string, endExclusive: string): Window {
  const window = { start: Date.parse(start), endExclusive: Date.parse(endExclusive) };
  if (Number.isNaN(window.start) || Number.isNaN(window.endExclusive)) throw new Error(`bad window ${start} ${endExclusive}`);
  return window;
}

function search(snapshot: Snapshot, start: string, endExclusive: string, mode: MatchMode = "startWithin"): Occurrence[] {
  return searchAll(snapshot, window(start, endExclusive), mode);
}

function withSummary(occurrences: readonly Occurrence[], summary: string): Occurrence[] {
  return occurrences.filter((occurrence) => occurrence.details.summary === summary);
}

function iso(instant: number): string {
  return new Date(instant).toISOString();
}

/** [local start in `zoneName`, start, end] of each occurrence. */
function times(occurrences: readonly Occurrence[], zoneName: string): [string, string, string][] {
  const zone = ianaZone(zoneName)!;
  return occurrences.map((occurrence) => [formatInZone(occurrence.start, zone), iso(occurrence.start), iso(occurrence.end)]);
}

/** The contract message of an occurrence, as a caller in `requestZone` would get it (any window holding it). */
function message(snapshot: Snapshot, occurrence: Occurrence, requestZone: string) {
  return occurrenceMessage(occurrence, {
    calendarId: snapshot.calendarId,
    calendarZone: snapshot.zone,
    requestZone: ianaZone(requestZone)!,
    withholdClassified: false,
    window: { start: occurrence.start, endExclusive: occurrence.end + 1 },
  });
}

/** start_date and end_date_exclusive of an all-day occurrence, and its instants. */
function allDay(snapshot: Snapshot, occurrence: Occurrence, requestZone = "UTC") {
  const rendered = message(snapshot, occurrence, requestZone);
  return {
    allDay: rendered.allDay,
    startDate: rendered.startDate,
    endDateExclusive: rendered.endDateExclusive,
    start: iso(occurrence.start),
    end: iso(occurrence.end),
  };
}

function codes(snapshot: Snapshot): string[] {
  return snapshot.diagnostics.map((diagnostic) => diagnostic.code);
}

describe("Google Calendar export (X-WR-TIMEZONE, UTC and floating times, CRLF, folded at 75 octets)", () => {
  const file = "google-team.ics";
  const uids = {
    standup: "5q1v8c3n7d0k2m4p6r9t1w3y5z@google.com",
    partnerCall: "2h6j9l3n5p8r0t2v4x6z8b1d3f@google.com",
    companyDay: "0c4e8g2i6k0m4o8q2s6u0w4y8a@google.com",
    coffee: "9s3u7w1y5a9c3e7g1i5k9m3o7q@google.com",
    workshop: "7b1d5f9h3j7l1n5p9r3t7v1x5z@google.com",
  };
  const nameOf = (uid: string) => Object.entries(uids).find(([, value]) => value === uid)?.[0] ?? uid;

  it("is CRLF text with a fold that splits a UTF-8 character, as a careless producer writes it", () => {
    const bytes = raw(file);
    expect(bytes.includes("\r\n")).toBe(true);
    expect(/(?<!\r)\n/.test(bytes.toString("latin1"))).toBe(false);
    // "lịch": the three octets of "ị" (e1 bb 8b) are cut after the second by CRLF SPACE.
    expect(bytes.includes(Buffer.from([0x6c, 0xe1, 0xbb, 0x0d, 0x0a, 0x20, 0x8b, 0x63, 0x68]))).toBe(true);
  });

  it("takes the calendar's zone from X-WR-TIMEZONE and reports nothing", async () => {
    const snapshot = await load(file);
    expect(snapshot.zoneSource).toBe("feed");
    expect(snapshot.zone.name).toBe("Asia/Ho_Chi_Minh");
    expect(snapshot.diagnostics).toEqual([]);
    expect(snapshot.eventCount).toBe(6);
  });

  it("serves 28 September to 7 October with the weekly series' EXDATE left out and its override moved", async () => {
    const snapshot = await load(file);
    const found = search(snapshot, "2026-09-28T00:00:00+07:00", "2026-10-08T00:00:00+07:00");
    expect(found.map((occurrence) => [...times([occurrence], "Asia/Ho_Chi_Minh")[0], nameOf(occurrence.details.uid)])).toEqual([
      ["2026-09-28T09:30:00+07:00", "2026-09-28T02:30:00.000Z", "2026-09-28T03:00:00.000Z", "standup"],
      ["2026-10-02T00:00:00+07:00", "2026-10-01T17:00:00.000Z", "2026-10-02T17:00:00.000Z", "companyDay"],
      ["2026-10-02T08:30:00+07:00", "2026-10-02T01:30:00.000Z", "2026-10-02T02:30:00.000Z", "partnerCall"],
      ["2026-10-03T09:00:00+07:00", "2026-10-03T02:00:00.000Z", "2026-10-03T03:30:00.000Z", "coffee"],
      ["2026-10-05T14:00:00+07:00", "2026-10-05T07:00:00.000Z", "2026-10-05T07:30:00.000Z", "standup"],
      ["2026-10-06T09:00:00+07:00", "2026-10-06T02:00:00.000Z", "2026-10-06T03:30:00.000Z", "workshop"],
      ["2026-10-07T09:30:00+07:00", "2026-10-07T02:30:00.000Z", "2026-10-07T03:00:00.000Z", "standup"],
    ]);
  });

  it("shows the moved standup only at its new time, with the original slot as recurrence_id and in its event_id", async () => {
    const snapshot = await load(file);
    const [moved] = search(snapshot, "2026-10-05T00:00:00+07:00", "2026-10-06T00:00:00+07:00");
    const rendered = message(snapshot, moved, "Asia/Ho_Chi_Minh");
    expect(rendered.summary).toBe("Họp đứng đầu ngày (dời sang chiều)");
    expect(rendered.startLocal).toBe("2026-10-05T14:00:00+07:00");
    expect(rendered.recurrenceId).toBe("2026-10-05T02:30:00Z");
    expect(rendered.eventId).toMatch(/_20261005T023000Z$/);
    expect(rendered.eventTimezone).toBe("Asia/Ho_Chi_Minh");
  });

  it("gives the all-day event its dates in the calendar's zone, also to a caller in Los Angeles", async () => {
    const snapshot = await load(file);
    const [companyDay] = withSummary(search(snapshot, "2026-10-01T00:00:00Z", "2026-10-03T00:00:00Z"), "Ngày hội công ty");
    expect(allDay(snapshot, companyDay, "America/Los_Angeles")).toEqual({
      allDay: true,
      startDate: "2026-10-02",
      endDateExclusive: "2026-10-03",
      start: "2026-10-01T17:00:00.000Z",
      end: "2026-10-02T17:00:00.000Z",
    });
  });

  it("unfolds escaped and folded text, restoring a UTF-8 character split across a fold (RFC 5545 §3.1)", async () => {
    const snapshot = await load(file);
    const summaries = search(snapshot, "2026-10-06T00:00:00+07:00", "2026-10-07T00:00:00+07:00").map((o) => o.details.summary);
    expect(summaries).toEqual(["Hội thảo kỹ thuật: kiến trúc dịch vụ tìm kiếm lịch – múi giờ, sự kiện cả ngày và trường hợp biên"]);
  });

  it("reads escaped commas in LOCATION", async () => {
    const snapshot = await load(file);
    const [coffee] = search(snapshot, "2026-10-03T00:00:00+07:00", "2026-10-04T00:00:00+07:00");
    expect(coffee.details.location).toBe("Cộng Cà Phê, Nguyễn Huệ");
  });

  it("with a zone configured for the calendar, reads the floating and all-day events in it and leaves TZID and UTC times alone", async () => {
    const snapshot = await load(file, { timezone: "Europe/Berlin" });
    expect(snapshot.zoneSource).toBe("config");
    expect(snapshot.diagnostics).toEqual([]);
    const found = search(snapshot, "2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z");
    expect(found.map((occurrence) => [nameOf(occurrence.details.uid), iso(occurrence.start), iso(occurrence.end)])).toEqual([
      ["companyDay", "2026-10-01T22:00:00.000Z", "2026-10-02T22:00:00.000Z"],
      ["partnerCall", "2026-10-02T01:30:00.000Z", "2026-10-02T02:30:00.000Z"],
      ["coffee", "2026-10-03T07:00:00.000Z", "2026-10-03T08:30:00.000Z"],
    ]);
    const [standup] = search(snapshot, "2026-09-28T00:00:00Z", "2026-09-29T00:00:00Z");
    expect(iso(standup.start)).toBe("2026-09-28T02:30:00.000Z");
  });
});

describe("Outlook/Exchange export (Windows zone names, Outlook's VTIMEZONEs, a customised zone, X-MS-OLK-*)", () => {
  const file = "outlook-exchange.ics";
  const anchors = [
    { name: "materialised (loaded 2026-11-29)", readAt: READ_AT },
    { name: "expanded on demand (loaded 2040-01-01)", readAt: Date.UTC(2040, 0, 1) },
  ];

  it("has no X-WR-TIMEZONE, so without configuration the calendar falls back to UTC and says so, once", async () => {
    const snapshot = await load(file);
    expect(snapshot.zoneSource).toBe("default");
    expect(snapshot.zone.name).toBe("UTC");
    expect(snapshot.diagnostics).toEqual([expect.objectContaining({ code: "NO_CALENDAR_ZONE" })]);
    expect(snapshot.diagnostics[0].uid).toBeUndefined();
    expect(snapshot.eventCount).toBe(5);
  });

  it("with Europe/Berlin configured, takes it and reports nothing", async () => {
    const snapshot = await load(file, { timezone: "Europe/Berlin" });
    expect(snapshot.zoneSource).toBe("config");
    expect(snapshot.zone.name).toBe("Europe/Berlin");
    expect(snapshot.diagnostics).toEqual([]);
  });

  for (const anchor of anchors) {
    it(`keeps a W. Europe weekly series at 10:00 across the last Sunday of October, UNTIL inclusive (${anchor.name})`, async () => {
      const snapshot = await load(file, { readAt: anchor.readAt });
      const found = withSummary(search(snapshot, "2026-10-12T00:00:00Z", "2026-11-16T00:00:00Z"), "Jour fixe Plattform");
      expect(times(found, "Europe/Berlin")).toEqual([
        ["2026-10-14T10:00:00+02:00", "2026-10-14T08:00:00.000Z", "2026-10-14T09:00:00.000Z"],
        ["2026-10-21T10:00:00+02:00", "2026-10-21T08:00:00.000Z", "2026-10-21T09:00:00.000Z"],
        ["2026-10-28T10:00:00+01:00", "2026-10-28T09:00:00.000Z", "2026-10-28T10:00:00.000Z"],
        ["2026-11-04T10:00:00+01:00", "2026-11-04T09:00:00.000Z", "2026-11-04T10:00:00.000Z"],
      ]);
      expect(new Set(found.map((occurrence) => occurrence.details.eventTimezone))).toEqual(new Set(["Europe/Berlin"]));
    });
  }

  it("reads the folded 112-digit Outlook UID whole", async () => {
    const snapshot = await load(file);
    const [first] = withSummary(search(snapshot, "2026-10-14T00:00:00Z", "2026-10-15T00:00:00Z"), "Jour fixe Plattform");
    expect(first.details.uid).toBe(
      "040000008200E00074C5B7101A82E00800000000D07A3B6E2F41DD01000000000000000010000000A4C2E95B7F0D3A4C8E61B2D9F3057C4A",
    );
  });

  it("places SE Asia Standard Time at UTC+7 (Asia/Bangkok)", async () => {
    const snapshot = await load(file);
    const found = withSummary(search(snapshot, "2026-10-02T00:00:00+07:00", "2026-10-03T00:00:00+07:00"), "Abstimmung Lieferant Bangkok");
    expect(found.map((occurrence) => occurrence.details.eventTimezone)).toEqual(["Asia/Bangkok"]);
    expect(times(found, "Asia/Bangkok")).toEqual([["2026-10-02T09:00:00+07:00", "2026-10-02T02:00:00.000Z", "2026-10-02T02:30:00.000Z"]]);
  });

  it("uses the rules of the feed's own 'Customized Time Zone' (+04 until the first Sunday of October, then +03)", async () => {
    const snapshot = await load(file);
    const found = withSummary(search(snapshot, "2026-09-21T00:00:00Z", "2026-10-19T00:00:00Z"), "Weekly mit Außenstelle");
    expect(found.map((occurrence) => [iso(occurrence.start), iso(occurrence.end), occurrence.details.eventTimezone])).toEqual([
      ["2026-09-25T05:00:00.000Z", "2026-09-25T05:30:00.000Z", "Customized Time Zone"],
      ["2026-10-02T05:00:00.000Z", "2026-10-02T05:30:00.000Z", "Customized Time Zone"],
      ["2026-10-09T06:00:00.000Z", "2026-10-09T06:30:00.000Z", "Customized Time Zone"],
    ]);
  });

  it("reads Outlook all-day events (DATE values, X-MICROSOFT-CDO-ALLDAYEVENT) as days of the calendar's zone", async () => {
    const defaulted = await load(file);
    const berlin = await load(file, { timezone: "Europe/Berlin" });
    const trip = (snapshot: Snapshot) =>
      withSummary(search(snapshot, "2026-10-11T00:00:00Z", "2026-10-14T00:00:00Z", "overlap"), "Betriebsausflug");
    const leave = (snapshot: Snapshot) =>
      withSummary(search(snapshot, "2026-10-23T00:00:00Z", "2026-10-28T00:00:00Z", "overlap"), "Urlaub");
    expect(trip(defaulted).map((occurrence) => allDay(defaulted, occurrence))).toEqual([
      {
        allDay: true,
        startDate: "2026-10-12",
        endDateExclusive: "2026-10-13",
        start: "2026-10-12T00:00:00.000Z",
        end: "2026-10-13T00:00:00.000Z",
      },
    ]);
    expect(trip(berlin).map((occurrence) => allDay(berlin, occurrence))).toEqual([
      {
        allDay: true,
        startDate: "2026-10-12",
        endDateExclusive: "2026-10-13",
        start: "2026-10-11T22:00:00.000Z",
        end: "2026-10-12T22:00:00.000Z",
      },
    ]);
    expect(trip(berlin)[0].details.transparent).toBe(true);
    // Three days across the end of DST: 24 + 24 + 25 hours.
    expect(leave(berlin).map((occurrence) => allDay(berlin, occurrence))).toEqual([
      {
        allDay: true,
        startDate: "2026-10-24",
        endDateExclusive: "2026-10-27",
        start: "2026-10-23T22:00:00.000Z",
        end: "2026-10-26T23:00:00.000Z",
      },
    ]);
  });
});

describe("Apple Calendar export (LF line endings, Europe/Paris VTIMEZONE, VALARM, X-APPLE-STRUCTURED-LOCATION)", () => {
  const file = "apple-paris.ics";

  it("is LF-only text", () => {
    const bytes = raw(file);
    expect(bytes.includes("\n")).toBe(true);
    expect(bytes.includes("\r")).toBe(false);
  });

  it("takes Europe/Paris from X-WR-TIMEZONE, reports nothing and reads four events", async () => {
    const snapshot = await load(file);
    expect(snapshot.zoneSource).toBe("feed");
    expect(snapshot.zone.name).toBe("Europe/Paris");
    expect(snapshot.diagnostics).toEqual([]);
    expect(snapshot.eventCount).toBe(4);
  });

  it("reads the dinner with the VEVENT's UID (not its alarm's) and the escaped newline of its LOCATION", async () => {
    const snapshot = await load(file);
    const found = search(snapshot, "2026-10-24T00:00:00+02:00", "2026-10-25T00:00:00+02:00");
    expect(times(found, "Europe/Paris")).toEqual([["2026-10-24T19:30:00+02:00", "2026-10-24T17:30:00.000Z", "2026-10-24T19:00:00.000Z"]]);
    expect(found[0].details).toMatchObject({
      uid: "3F9A1C7E-52B4-4D8A-9E06-7C1B2D4F6A80",
      summary: "Dîner chez Camille",
      location: "Le Petit Comptoir\n12 Rue de la Roquette, 75011 Paris, France",
      eventTimezone: "Europe/Paris",
    });
  });

  it("keeps the weekly piano lesson at 18:00 across the end of DST and stops at Apple's end-of-day UNTIL", async () => {
    const snapshot = await load(file);
    const found = withSummary(search(snapshot, "2026-10-19T00:00:00+02:00", "2026-11-30T00:00:00+01:00"), "Cours de piano (Léa)");
    expect(times(found, "Europe/Paris")).toEqual([
      ["2026-10-20T18:00:00+02:00", "2026-10-20T16:00:00.000Z", "2026-10-20T17:00:00.000Z"],
      ["2026-10-27T18:00:00+01:00", "2026-10-27T17:00:00.000Z", "2026-10-27T18:00:00.000Z"],
      ["2026-11-03T18:00:00+01:00", "2026-11-03T17:00:00.000Z", "2026-11-03T18:00:00.000Z"],
      ["2026-11-10T18:00:00+01:00", "2026-11-10T17:00:00.000Z", "2026-11-10T18:00:00.000Z"],
    ]);
  });

  it("gives the all-day holiday the Paris day after the clocks went back", async () => {
    const snapshot = await load(file);
    const [holiday] = withSummary(search(snapshot, "2026-10-31T00:00:00Z", "2026-11-02T00:00:00Z", "overlap"), "Toussaint");
    expect(allDay(snapshot, holiday, "Asia/Ho_Chi_Minh")).toEqual({
      allDay: true,
      startDate: "2026-11-01",
      endDateExclusive: "2026-11-02",
      start: "2026-10-31T23:00:00.000Z",
      end: "2026-11-01T23:00:00.000Z",
    });
  });

  it("reads DTEND equal to DTSTART as an instant that a window starting at it matches and one ending at it does not", async () => {
    const snapshot = await load(file);
    for (const mode of ["overlap", "startWithin"] as const) {
      const [departure] = search(snapshot, "2026-10-31T07:00:00Z", "2026-10-31T07:30:00Z", mode);
      expect([departure.details.summary, iso(departure.start), iso(departure.end)]).toEqual([
        "Départ TGV pour Lyon",
        "2026-10-31T07:00:00.000Z",
        "2026-10-31T07:00:00.000Z",
      ]);
      expect(windowRelation(departure, window("2026-10-31T07:00:00Z", "2026-10-31T07:30:00Z"))).toBe("instant");
      expect(search(snapshot, "2026-10-31T06:00:00Z", "2026-10-31T07:00:00Z", mode)).toEqual([]);
    }
  });
});

describe("Nextcloud export (BOM, UNTIL in UTC, EXDATE list, cancelled override)", () => {
  const file = "nextcloud-team.ics";

  it("starts with a UTF-8 byte-order mark", () => {
    expect([...raw(file).subarray(0, 4)]).toEqual([0xef, 0xbb, 0xbf, "B".charCodeAt(0)]);
  });

  it("with Europe/Berlin configured, takes it and reports nothing", async () => {
    const snapshot = await load(file, { timezone: "Europe/Berlin" });
    expect(snapshot.zoneSource).toBe("config");
    expect(snapshot.diagnostics).toEqual([]);
  });

  it("without configuration, falls back to UTC with one NO_CALENDAR_ZONE and reads the all-day days in UTC", async () => {
    const snapshot = await load(file);
    expect(snapshot.zoneSource).toBe("default");
    expect(codes(snapshot)).toEqual(["NO_CALENDAR_ZONE"]);
    const [offsite] = withSummary(search(snapshot, "2026-10-14T00:00:00Z", "2026-10-18T00:00:00Z", "overlap"), "Team-Offsite Leipzig");
    expect(allDay(snapshot, offsite)).toEqual({
      allDay: true,
      startDate: "2026-10-15",
      endDateExclusive: "2026-10-17",
      start: "2026-10-15T00:00:00.000Z",
      end: "2026-10-17T00:00:00.000Z",
    });
  });

  it("leaves out both EXDATEs of the list and the cancelled occurrence, and ends at UNTIL inclusive", async () => {
    const snapshot = await load(file, { timezone: "Europe/Berlin" });
    const found = withSummary(search(snapshot, "2026-10-01T00:00:00+02:00", "2026-12-01T00:00:00+01:00"), "Sprint-Review");
    expect(times(found, "Europe/Berlin")).toEqual([
      ["2026-10-06T14:00:00+02:00", "2026-10-06T12:00:00.000Z", "2026-10-06T13:00:00.000Z"],
      ["2026-11-03T14:00:00+01:00", "2026-11-03T13:00:00.000Z", "2026-11-03T14:00:00.000Z"],
    ]);
  });

  it("reads the two-day all-day offsite as Berlin days", async () => {
    const snapshot = await load(file, { timezone: "Europe/Berlin" });
    const [offsite] = withSummary(search(snapshot, "2026-10-14T00:00:00Z", "2026-10-18T00:00:00Z", "overlap"), "Team-Offsite Leipzig");
    expect(allDay(snapshot, offsite)).toEqual({
      allDay: true,
      startDate: "2026-10-15",
      endDateExclusive: "2026-10-17",
      start: "2026-10-14T22:00:00.000Z",
      end: "2026-10-16T22:00:00.000Z",
    });
  });

  it("reads a start at 02:30 on the fall-back night as the first (CEST) 02:30, so the window lasts two hours", async () => {
    const snapshot = await load(file, { timezone: "Europe/Berlin" });
    const found = withSummary(search(snapshot, "2026-10-24T00:00:00Z", "2026-10-26T00:00:00Z"), "Wartungsfenster Datenbank");
    expect(times(found, "Europe/Berlin")).toEqual([["2026-10-25T02:30:00+02:00", "2026-10-25T00:30:00.000Z", "2026-10-25T02:30:00.000Z"]]);
  });
});

describe("one UID in two calendars (an invitation accepted in a work and a home calendar)", () => {
  async function both() {
    const store = new CalendarStore(
      ["work", "home"].map((id) => calendar(id, join(PRODUCERS, `dup-uid-${id}.ics`))),
      { retentionMs: RETENTION_MS, now: () => READ_AT },
    );
    await store.loadAll();
    return { work: store.view("work")!.snapshot!, home: store.view("home")!.snapshot! };
  }

  it("gives each calendar its own copy, at its own time, with no duplicate reported in either", async () => {
    const { work, home } = await both();
    const day = ["2026-10-08T00:00:00+07:00", "2026-10-09T00:00:00+07:00"] as const;
    expect(times(search(work, ...day), "Asia/Ho_Chi_Minh")).toEqual([
      ["2026-10-08T10:00:00+07:00", "2026-10-08T03:00:00.000Z", "2026-10-08T04:00:00.000Z"],
    ]);
    expect(times(search(home, ...day), "Asia/Ho_Chi_Minh")).toEqual([
      ["2026-10-08T09:00:00+07:00", "2026-10-08T02:00:00.000Z", "2026-10-08T03:00:00.000Z"],
    ]);
    expect([work.diagnostics, home.diagnostics]).toEqual([[], []]);
  });

  it("names each occurrence's own calendar; the event_id is the UID's digest in both (README), so calendar_id tells them apart", async () => {
    const { work, home } = await both();
    const day = ["2026-10-08T00:00:00+07:00", "2026-10-09T00:00:00+07:00"] as const;
    const [fromWork] = search(work, ...day).map((occurrence) => message(work, occurrence, "Asia/Ho_Chi_Minh"));
    const [fromHome] = search(home, ...day).map((occurrence) => message(home, occurrence, "Asia/Ho_Chi_Minh"));
    expect([fromWork.calendarId, fromHome.calendarId]).toEqual(["work", "home"]);
    expect(fromWork.uid).toBe("3m7p1s5v9y3b7e1h5k9n3q7t1w@google.com");
    expect(fromHome.uid).toBe(fromWork.uid);
    expect(fromHome.eventId).toBe(fromWork.eventId);
  });
});

describe("SEQUENCE changes", () => {
  it("after a reload to v2 (SEQUENCE 1), the moved event is at its new time only and keeps its event_id", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calq-producers-"));
    try {
      const source = join(dir, "project.ics");
      let now = READ_AT;
      const store = new CalendarStore([calendar("project", source)], { retentionMs: RETENTION_MS, now: () => now });
      const day = ["2026-10-02T00:00:00+07:00", "2026-10-03T00:00:00+07:00"] as const;

      copyFileSync(join(PRODUCERS, "seq-reload-v1.ics"), source);
      expect((await store.reload("project")).outcome).toBe("loaded");
      const v1 = store.view("project")!.snapshot!;
      expect(v1.diagnostics).toEqual([]);
      const [before] = search(v1, ...day);
      expect([before.details.summary, iso(before.start), iso(before.end)]).toEqual([
        "Duyệt thiết kế",
        "2026-10-02T07:00:00.000Z",
        "2026-10-02T08:00:00.000Z",
      ]);

      copyFileSync(join(PRODUCERS, "seq-reload-v2.ics"), source);
      now += 60_000;
      expect((await store.reload("project")).outcome).toBe("loaded");
      const v2 = store.view("project")!.snapshot!;
      expect(v2.diagnostics).toEqual([]);
      const after = search(v2, ...day);
      expect(after.map((occurrence) => [occurrence.details.summary, iso(occurrence.start), iso(occurrence.end)])).toEqual([
        ["Duyệt thiết kế", "2026-10-02T09:00:00.000Z", "2026-10-02T10:00:00.000Z"],
      ]);
      expect(search(v2, "2026-10-02T07:00:00Z", "2026-10-02T09:00:00Z", "overlap")).toEqual([]);
      expect(message(v2, after[0], "UTC").eventId).toBe(message(v1, before, "UTC").eventId);

      // A paged search that began on v1 still reads v1.
      const [kept] = search(store.snapshot("project", v1.id)!, ...day);
      expect(iso(kept.start)).toBe("2026-10-02T07:00:00.000Z");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("after a reload to v2, the weekly 1:1 moved from Thursday to Friday appears only on Friday, under its Thursday slot", async () => {
    const week = ["2026-10-08T00:00:00+07:00", "2026-10-10T00:00:00+07:00"] as const;
    const v1 = await load("seq-reload-v1.ics");
    const v2 = await load("seq-reload-v2.ics");
    const [thursday] = search(v1, ...week);
    expect(times([thursday], "Asia/Ho_Chi_Minh")).toEqual([
      ["2026-10-08T10:00:00+07:00", "2026-10-08T03:00:00.000Z", "2026-10-08T03:30:00.000Z"],
    ]);
    const moved = search(v2, ...week);
    expect(times(moved, "Asia/Ho_Chi_Minh")).toEqual([
      ["2026-10-09T15:00:00+07:00", "2026-10-09T08:00:00.000Z", "2026-10-09T08:30:00.000Z"],
    ]);
    const [movedMessage, thursdayMessage] = [message(v2, moved[0], "UTC"), message(v1, thursday, "UTC")];
    expect(movedMessage.recurrenceId).toBe("2026-10-08T03:00:00Z");
    expect(movedMessage.eventId).toBe(thursdayMessage.eventId);
    // The slots around it are untouched.
    expect(times(search(v2, "2026-10-15T00:00:00+07:00", "2026-10-16T00:00:00+07:00"), "Asia/Ho_Chi_Minh")).toEqual([
      ["2026-10-15T10:00:00+07:00", "2026-10-15T03:00:00.000Z", "2026-10-15T03:30:00.000Z"],
    ]);
  });

  it("within one feed, of two copies of a UID the higher SEQUENCE wins wherever it stands, and the other is reported", async () => {
    const snapshot = await load("seq-duplicate.ics", { timezone: "Europe/Berlin" });
    const found = search(snapshot, "2026-10-05T00:00:00+02:00", "2026-10-07T00:00:00+02:00");
    expect(found.map((occurrence) => [occurrence.details.summary, iso(occurrence.start), iso(occurrence.end)])).toEqual([
      ["Architekturrunde (verschoben auf 10 Uhr)", "2026-10-05T08:00:00.000Z", "2026-10-05T09:00:00.000Z"],
      ["Kundentermin Hamburg (neue Zeit)", "2026-10-06T13:00:00.000Z", "2026-10-06T14:00:00.000Z"],
    ]);
    // The dropped copies: the second of the first UID (line 33), the first of the second (line 44).
    const reported = snapshot.diagnostics.map(({ code, uid, line }) => [code, uid, line]).sort((a, b) => Number(a[2]) - Number(b[2]));
    expect(reported).toEqual([
      ["DUPLICATE_UID", "040000008200E00074C5B7101A82E00800000000A1B2C3D4E5F6DD01000000000000000010000000", 33],
      ["DUPLICATE_UID", "040000008200E00074C5B7101A82E008000000007F8E9D0C1B2ADD01000000000000000010000000", 44],
    ]);
  });
});

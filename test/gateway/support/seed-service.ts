/**
 * A real calq service on a loopback port serving the demo calendars of data/
 * (the seed's Friday 2026-10-02 in Ho Chi Minh City, the New York fold, Binh's
 * private calendar, which An sees busy-only) plus a calendar whose feed never
 * loads and a team calendar of invitations An answered, with the demo tokens,
 * An's working hours and address, and a clock the test controls. The gateway
 * tests reach it only as the gateway does: over the network.
 */
import { readFileSync } from "node:fs";
import { ics, vevent } from "../../support/feeds.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

export const AN_TOKEN = "demo-an-token";
export const BINH_TOKEN = "demo-binh-token";
export const HCM = "Asia/Ho_Chi_Minh";

/** The seed's question: "my meetings on Friday morning", 09:00-12:00 in Ho Chi Minh City, as tool arguments. */
export const FRIDAY_MORNING = {
  calendar_id: "primary",
  start: "2026-10-02T09:00:00+07:00",
  end_exclusive: "2026-10-02T12:00:00+07:00",
  timezone: HCM,
  match_mode: "overlap",
  limit: null,
  cursor: null,
  text_query: null,
  status: null,
  transparency: null,
  my_participation: null,
  categories: null,
};

export interface SeedService {
  readonly served: TestServer;
  /** The service's clock; tests may move it. Starts on Wednesday 2026-09-30, 08:00 in Ho Chi Minh City. */
  readonly clock: { now: number };
}

export async function startSeedService(): Promise<SeedService> {
  const clock = { now: Date.UTC(2026, 8, 30, 1) };
  const read = (name: string) => readFileSync(`data/${name}.ics`, "utf8");
  const served = await startTestServer({
    calendars: {
      work: read("work"),
      "new-york": read("new-york"),
      "binh-private": read("binh-private"),
      team: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent(
          "UID:pitch@calq.demo",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T140000",
          "DURATION:PT1H",
          "SUMMARY:Vendor pitch",
          "ATTENDEE;CN=An;PARTSTAT=DECLINED:mailto:an@calq.demo",
        ),
        ...vevent(
          "UID:planning@calq.demo",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T150000",
          "DURATION:PT1H",
          "SUMMARY:Sprint planning",
          "CATEGORIES:Planning",
          "ATTENDEE;CN=An;PARTSTAT=ACCEPTED:mailto:an@calq.demo",
        ),
      ),
    },
    config: {
      calendars: [
        { id: "work", name: "An's work calendar", source: "work.ics", timezone: HCM, readers: ["an"] },
        { id: "new-york", name: "New York office", source: "new-york.ics", timezone: "America/New_York", readers: ["an"] },
        {
          id: "binh-private",
          name: "Binh's private calendar",
          source: "binh-private.ics",
          readers: ["binh"],
          free_busy_readers: ["an"],
        },
        { id: "never-loaded", source: "missing.ics", readers: ["an"] },
        { id: "team", name: "Team invitations", source: "team.ics", readers: ["an"] },
      ],
      principals: [
        {
          id: "an",
          primary: "work",
          timezone: HCM,
          tokens: [AN_TOKEN],
          working_hours: { start: "09:00", end_exclusive: "17:00" },
          emails: ["an@calq.demo"],
        },
        { id: "binh", primary: "binh-private", tokens: [BINH_TOKEN], working_hours: { start: "09:00", end_exclusive: "17:00" } },
      ],
    },
    now: () => clock.now,
  });
  return { served, clock };
}

/**
 * A real calq service on a loopback port serving the demo calendars of data/
 * (the seed's Friday 2026-10-02 in Ho Chi Minh City, the New York fold, Binh's
 * private calendar) plus a calendar whose feed never loads, with the demo
 * tokens and a clock the test controls. The gateway tests reach it only as
 * the gateway does: over the network.
 */
import { readFileSync } from "node:fs";
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
    calendars: { work: read("work"), "new-york": read("new-york"), "binh-private": read("binh-private") },
    config: {
      calendars: [
        { id: "work", name: "An's work calendar", source: "work.ics", timezone: HCM, readers: ["an"] },
        { id: "new-york", name: "New York office", source: "new-york.ics", timezone: "America/New_York", readers: ["an"] },
        { id: "binh-private", name: "Binh's private calendar", source: "binh-private.ics", readers: ["binh"] },
        { id: "never-loaded", source: "missing.ics", readers: ["an"] },
      ],
      principals: [
        { id: "an", primary: "work", timezone: HCM, tokens: [AN_TOKEN] },
        { id: "binh", primary: "binh-private", tokens: [BINH_TOKEN] },
      ],
    },
    now: () => clock.now,
  });
  return { served, clock };
}

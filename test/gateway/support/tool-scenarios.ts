/**
 * What every MCP transport of the gateway must do the same way, run by both
 * end-to-end specs (stdio and Streamable HTTP) against their own gateway and
 * seed service: the seed's query in both modes, paging with the cursor,
 * all-day marks, every refusal code with the contract's instruction, and the
 * schema refusing a caller argument.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, expect, it } from "vitest";
import { ALL_TOOLS_BUDGET, PER_TOOL_BUDGET, SEARCH_TOOL, SEARCH_TOOL_BUDGET, toolCost } from "../../../bench/tool-cost.js";
import { buildToolCatalog } from "../../../src/gateway/tool-schemas.js";
import { AN_TOKEN, BINH_TOKEN, FRIDAY_MORNING, HCM, type SeedService } from "./seed-service.js";
import { callTool, errorCode, eventsOf } from "./tool-results.js";

/** How a spec reaches its gateway: the seed service behind it, and a real MCP client as the holder of a token. */
export interface GatewayUnderTest {
  seed(): SeedService;
  connect(token: string): Promise<Client>;
}

/**
 * The search refusals, one per calq.v1.Reason a request can cause through the
 * tool: code, change to the Friday query, field named. (INVALID_LIMIT cannot
 * be: the schema holds limit to the service's bounds, tested below.)
 */
export const SEARCH_REFUSALS: readonly [code: string, change: Record<string, unknown>, field: string][] = [
  ["invalid_interval", { end_exclusive: "2026-10-02T08:00:00+07:00" }, "end_exclusive"],
  ["invalid_timestamp", { start: "Friday 9am" }, "start"],
  ["unknown_timezone", { timezone: "ICT" }, "timezone"],
  ["timezone_offset_mismatch", { start: "2026-10-02T09:00:00Z" }, "start"],
  [
    "ambiguous_timezone",
    { calendar_id: "new-york", timezone: "America/New_York", start: "2026-11-01T01:30:00", end_exclusive: "2026-11-01T03:00:00" },
    "start",
  ],
  [
    "nonexistent_local_time",
    { calendar_id: "new-york", timezone: "America/New_York", start: "2026-03-08T02:30:00", end_exclusive: "2026-03-08T04:00:00" },
    "start",
  ],
  ["invalid_cursor", { cursor: "not-a-cursor" }, "cursor"],
  ["calendar_not_accessible", { calendar_id: "binh-private" }, ""],
  ["provider_unavailable", { calendar_id: "never-loaded" }, ""],
];

/** find_meeting_times arguments: An and Binh (busy-only to An) on Friday 09:00-17:00, an hour at a time, tentative taken. */
const MEETING = {
  required_calendar_ids: ["primary", "binh-private"],
  optional_calendar_ids: null,
  start: "2026-10-02T09:00",
  end_exclusive: "2026-10-02T17:00",
  timezone: HCM,
  duration_minutes: 60,
  step_minutes: 60,
  buffer_before_minutes: null,
  buffer_after_minutes: null,
  tentative: "busy",
  min_optional_percent: null,
  working_hours_start: null,
  working_hours_end: null,
  working_days: null,
  limit: null,
};

/** Registers the shared scenarios in the enclosing describe block. */
export function toolScenarios(gateway: GatewayUnderTest): void {
  let an: Client;
  beforeAll(async () => {
    an = await gateway.connect(AN_TOKEN);
  });

  it("answers the seed's Friday-morning query with the 08:30-09:30 meeting crossing the window's start", async () => {
    const result = await callTool(an, "search_calendar_events", FRIDAY_MORNING);
    const events = eventsOf(result);
    expect(events.map((event) => event.summary)).toEqual(["Design review", "Architecture workshop"]);
    expect(events[0]).toMatchObject({
      start_local: "2026-10-02T08:30:00+07:00",
      end_local: "2026-10-02T09:30:00+07:00",
      window_relation: "crosses_start",
    });
    expect(events[1].window_relation).toBe("crosses_end");
    expect(result.text).toContain("- Fri 2026-10-02 08:30-09:30 +07:00 Design review @ Room 3.2 [crosses_start]");
    expect(result.text).toContain("No more pages.");
  });

  it("answers search_across_calendars with each occurrence led by its calendar, and the same refusals as one calendar", async () => {
    const { calendar_id: _one, ...window } = FRIDAY_MORNING;
    const result = await callTool(an, "search_across_calendars", { ...window, calendar_ids: ["new-york", "primary"], start: "2026-10-02" });
    const events = eventsOf(result) as unknown as { calendar_id: string; summary: string }[];
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((event) => event.calendar_id))).toEqual(new Set(["work"]));
    expect(result.text).toMatch(/^Calendars new-york, work, window \[2026-10-02, /);
    expect(result.text).toContain("- work: Fri 2026-10-02 08:30-09:30 +07:00 Design review @ Room 3.2 [inside]");
    const forbidden = await callTool(an, "search_across_calendars", { ...window, calendar_ids: ["work", "binh-private"] });
    expect(errorCode(forbidden)).toBe("calendar_not_accessible");
    const twice = await callTool(an, "search_across_calendars", { ...window, calendar_ids: ["primary", "work"] });
    expect(errorCode(twice)).toBe("invalid_calendar_ids");
  });

  it("answers get_event with the meeting link, organizer and attendees of an event a search found", async () => {
    const [review] = eventsOf(await callTool(an, "search_calendar_events", FRIDAY_MORNING)) as unknown as { event_id: string }[];
    const result = await callTool(an, "get_event", { calendar_id: "primary", event_id: review.event_id, timezone: null });
    expect(result.text).toBe(
      [
        `work: Fri 2026-10-02 08:30-09:30 +07:00 Design review @ Room 3.2 id ${review.event_id}`,
        "Organizer: An <an@calq.demo>",
        "Attendees: Binh <binh@calq.demo> (accepted), Chi <chi@calq.demo> (tentative)",
        "Link (description): https://meet.example/design-review",
        "Description:\nReview of the booking flow.\nJoin online: https://meet.example/design-review",
      ].join("\n"),
    );
    const missing = await callTool(an, "get_event", { calendar_id: "primary", event_id: "AAAAAAAAAAAAAAAA", timezone: null });
    expect(errorCode(missing)).toBe("event_not_found");
  });

  it("answers query_free_busy with the merged busy time of Friday, in local times", async () => {
    const friday = { calendar_ids: ["primary"], start: "2026-10-02T08:00", end_exclusive: "2026-10-02T18:00", timezone: HCM };
    const result = await callTool(an, "query_free_busy", friday);
    // 08:00-09:00 and 08:30-09:30 overlap; 11:30-12:30 and 12:00-13:00 too; the 17:00 reminder lasts no time.
    expect(result.text).toContain("- 2026-10-02T08:00:00+07:00 to 2026-10-02T09:30:00+07:00 (end excluded)\n");
    expect(result.text).toContain("- 2026-10-02T11:30:00+07:00 to 2026-10-02T13:00:00+07:00 (end excluded)\n");
    expect((result.structured as { combined: unknown[] }).combined).toHaveLength(2);
    const twice = await callTool(an, "query_free_busy", { ...friday, calendar_ids: ["primary", "work"] });
    expect(errorCode(twice)).toBe("invalid_calendar_ids");
  });

  it("answers find_free_slots with the first free hours of Friday morning, local times and offsets", async () => {
    const result = await callTool(an, "find_free_slots", {
      calendar_ids: ["primary"],
      start: "2026-10-02T08:00",
      end_exclusive: "2026-10-02T13:00",
      timezone: HCM,
      duration_minutes: 60,
      step_minutes: 30,
      tentative: "busy",
      working_hours_start: null,
      working_hours_end: null,
      working_days: null,
      limit: 3,
    });
    // Busy 08:00-09:30 and 11:30-13:00: the free hours start at 09:30, 10:00 and 10:30.
    expect(result.text).toBe(
      "Free slots in Asia/Ho_Chi_Minh, each end excluded:\n" +
        "- 2026-10-02T09:30:00+07:00 to 2026-10-02T10:30:00+07:00\n" +
        "- 2026-10-02T10:00:00+07:00 to 2026-10-02T11:00:00+07:00\n" +
        "- 2026-10-02T10:30:00+07:00 to 2026-10-02T11:30:00+07:00",
    );
  });

  it("refuses find_free_slots working hours that end before they start, naming the code and the field", async () => {
    const result = await callTool(an, "find_free_slots", {
      calendar_ids: ["primary"],
      start: "2026-10-02",
      end_exclusive: "2026-10-03",
      timezone: HCM,
      duration_minutes: 30,
      step_minutes: null,
      tentative: "free",
      working_hours_start: "17:00",
      working_hours_end: "09:00",
      working_days: null,
      limit: null,
    });
    expect(errorCode(result)).toBe("invalid_slot_query");
    expect(result.text).toContain("working_hours_end");
  });

  it("leaves the 08:30 meeting out with start_within", async () => {
    const events = eventsOf(await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, match_mode: "start_within" }));
    expect(events.map((event) => event.summary)).toEqual(["Architecture workshop"]);
  });

  it("pages with the cursor: the pages together are the unpaged result, and the text says how to go on", async () => {
    const request = { ...FRIDAY_MORNING, start: "2026-09-01", end_exclusive: "2026-11-01" };
    const whole = eventsOf(await callTool(an, "search_calendar_events", { ...request, limit: 100 }));
    const paged: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await callTool(an, "search_calendar_events", { ...request, limit: 3, cursor });
      paged.push(...eventsOf(page).map((event) => event.event_id));
      cursor = (page.structured as { next_cursor: string }).next_cursor || null;
      if (cursor !== null) expect(page.text).toContain(`call search_calendar_events again with the same arguments and cursor "${cursor}"`);
      pages++;
    } while (cursor !== null);
    expect(whole.length).toBeGreaterThan(6);
    expect(paged).toEqual(whole.map((event) => event.event_id));
    expect(pages).toBe(Math.ceil(whole.length / 3));
  });

  it("marks all-day events by their dates, not by instants in the request zone", async () => {
    const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, start: "2026-09-01", end_exclusive: "2026-09-02" });
    expect(result.text).toContain("- all day Tue 2026-09-01 to Wed 2026-09-02 National Day holiday [crosses_end]");
  });

  for (const [code, change, field] of SEARCH_REFUSALS) {
    it(`refuses with ${code} and the contract's instruction`, async () => {
      const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, ...change });
      expect(errorCode(result)).toBe(code);
      const instruction = buildToolCatalog().errors.find((entry) => entry.code === code)!.instruction;
      expect(result.text).toContain(`What to do: ${instruction}`);
      if (field !== "") expect(result.text).toContain(`Fields: ${field}`);
    });
  }

  it("names both instants of a fold so the model can pick one or ask", async () => {
    const fold = SEARCH_REFUSALS.find(([code]) => code === "ambiguous_timezone")![1];
    const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, ...fold });
    expect(result.text).toContain("earlier=2026-11-01T01:30:00-04:00, later=2026-11-01T01:30:00-05:00");
  });

  it("gives the same refusal for an unknown calendar and a forbidden one", async () => {
    const forbidden = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, calendar_id: "binh-private" });
    const unknown = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, calendar_id: "no-such-calendar" });
    expect(unknown.text).toBe(forbidden.text);
    expect(forbidden.text).not.toContain("Binh");
  });

  it("refuses an expired cursor with cursor_expired", async () => {
    const { clock } = gateway.seed();
    const first = await callTool(an, "search_calendar_events", {
      ...FRIDAY_MORNING,
      start: "2026-09-01",
      end_exclusive: "2026-11-01",
      limit: 2,
    });
    const cursor = (first.structured as { next_cursor: string }).next_cursor;
    clock.now += 16 * 60_000;
    try {
      const later = await callTool(an, "search_calendar_events", {
        ...FRIDAY_MORNING,
        start: "2026-09-01",
        end_exclusive: "2026-11-01",
        limit: 2,
        cursor,
      });
      expect(errorCode(later)).toBe("cursor_expired");
    } finally {
      clock.now -= 16 * 60_000;
    }
  });

  it("refuses a user_id or calendar_owner argument by the schema, before the service is asked", async () => {
    for (const extra of [{ user_id: "binh" }, { calendar_owner: "binh" }]) {
      const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, ...extra });
      expect(errorCode(result)).toBe("invalid_arguments");
      expect(result.text).toContain(`\`${Object.keys(extra)[0]}\`: not allowed`);
    }
    expect(errorCode(await callTool(an, "list_calendars", { user_id: "binh" }))).toBe("invalid_arguments");
  });

  it("refuses a limit above the service's maximum by the schema, before the service is asked", async () => {
    const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, limit: 101 });
    expect(errorCode(result)).toBe("invalid_arguments");
    expect(result.text).toContain("`limit`: must be <= 100");
    expect(eventsOf(await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, limit: 100 })).length).toBeGreaterThan(0);
  });

  it("refuses a match mode outside the closed enum, and a missing field, without fixing them up", async () => {
    const upper = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, match_mode: "MATCH_MODE_OVERLAP" });
    expect(errorCode(upper)).toBe("invalid_arguments");
    expect(upper.text).toContain('`match_mode`: must be one of "overlap", "start_within"');
    const { cursor: _, ...withoutCursor } = FRIDAY_MORNING;
    expect(errorCode(await callTool(an, "search_calendar_events", withoutCursor))).toBe("invalid_arguments");
  });

  it("tells the caller's time zone and the service's current time", async () => {
    const result = await callTool(an, "get_user_context", {});
    expect(result.structured).toEqual({
      principal_id: "an",
      timezone: "Asia/Ho_Chi_Minh",
      current_time: "2026-09-30T01:00:00Z",
      primary_calendar_id: "work",
      today: "2026-09-30",
      today_weekday: "Wednesday",
      week_start_weekday: "Monday",
      this_week_start: "2026-09-28",
      next_week_start: "2026-10-05",
      week_after_next_start: "2026-10-12",
    });
    expect(result.text).toContain("Recorded time zone: Asia/Ho_Chi_Minh (local time now Wed 2026-09-30 08:00 +07:00).");
    expect(result.text).toContain(
      "Today: Wednesday 2026-09-30. Weeks start on Monday: this week is 2026-09-28 to 2026-10-05 (end excluded), next week 2026-10-05 to 2026-10-12.",
    );
  });

  it("says 'none recorded' and to ask the user when the caller has no zone", async () => {
    const binh = await gateway.connect(BINH_TOKEN);
    const result = await callTool(binh, "get_user_context", {});
    expect((result.structured as { timezone: string }).timezone).toBe("");
    expect(result.text).toContain("Recorded time zone: none recorded.");
    expect(result.text).toContain("ask the user for their zone; never invent a place");
  });

  it("lists every tool within the token budgets, counted on the JSON tools/list sends", async () => {
    const { tools } = await an.listTools();
    expect(tools.map((tool) => tool.name)).toContain("find_meeting_times");
    const costs = tools.map((tool) => toolCost({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
    for (const cost of costs) expect(cost.total, cost.tool).toBeLessThanOrEqual(PER_TOOL_BUDGET);
    expect(costs.find((cost) => cost.tool === SEARCH_TOOL)!.total).toBeLessThanOrEqual(SEARCH_TOOL_BUDGET);
    expect(costs.reduce((sum, cost) => sum + cost.total, 0)).toBeLessThanOrEqual(ALL_TOOLS_BUDGET);
  });

  it("answers find_meeting_times with Binh seen busy-only: ranked by optional attendees free, each standing in its own zone", async () => {
    const result = await callTool(an, "find_meeting_times", { ...MEETING, optional_calendar_ids: ["new-york"] });
    const structured = result.structured as {
      candidates: {
        start_local: string;
        start_local_weekday: string;
        attendees: { calendar_id: string; availability: string; start_local: string }[];
      }[];
      fit_count: number;
      attendees: { calendar_id: string; working_hours_source: string; timezone: string }[];
    };
    // An is busy until 09:30 and 11:30-13:00, Binh at 10:00; New York's nightly batch runs 13:30-14:00 here.
    expect(structured.candidates.map((time) => time.start_local)).toEqual([
      "2026-10-02T14:00:00+07:00",
      "2026-10-02T15:00:00+07:00",
      "2026-10-02T16:00:00+07:00",
      "2026-10-02T13:00:00+07:00",
    ]);
    expect(structured.fit_count).toBe(4);
    expect(structured.candidates[0].start_local_weekday).toBe("Friday");
    expect(structured.attendees.map((attendee) => [attendee.calendar_id, attendee.working_hours_source, attendee.timezone])).toEqual([
      ["work", "settings", HCM],
      ["binh-private", "settings", HCM],
      ["new-york", "none", "America/New_York"],
    ]);
    expect(structured.candidates[3].attendees[2]).toEqual({
      calendar_id: "new-york",
      availability: "busy",
      start_local: "2026-10-02T02:00:00-04:00",
    });
    expect(result.text).toContain("Meeting times in Asia/Ho_Chi_Minh, best first (4 fit in all; each end excluded):");
    expect(result.text).toContain("- Fri 2026-10-02 13:00-14:00 +07:00; optional free 0 of 1 (new-york busy at 02:00)");
    // Busy-only: the times, never the doctor's appointment.
    expect(result.text).not.toContain("Doctor");
  });

  it("says why no meeting time fits, with the first fit after the window and the time missing the fewest", async () => {
    const result = await callTool(an, "find_meeting_times", { ...MEETING, end_exclusive: "2026-10-02T12:00" });
    const structured = result.structured as {
      no_fit_reason: string;
      first_fit_after_window?: { start_local: string };
      fewest_missing?: { start_local: string; unavailable_required: string[] };
    };
    expect(structured.no_fit_reason).toBe("no_common_free_time");
    expect(structured.first_fit_after_window?.start_local).toBe("2026-10-02T13:00:00+07:00");
    expect(structured.fewest_missing).toMatchObject({ start_local: "2026-10-02T09:00:00+07:00", unavailable_required: ["work"] });
    expect(result.text).toContain("Nothing fits: no_common_free_time. Every required attendee is within working hours at some candidate");
    expect(result.text).toContain("First fit after the window: Fri 2026-10-02 13:00-14:00 +07:00");
    expect(result.text).toContain(
      "Closest in the window: Fri 2026-10-02 09:00-10:00 +07:00 (work busy at 09:00); required but not free: work",
    );
    const refused = await callTool(an, "find_meeting_times", {
      ...MEETING,
      required_calendar_ids: ["work"],
      optional_calendar_ids: ["primary"],
    });
    expect(errorCode(refused)).toBe("invalid_calendar_ids");
  });

  it("shows a busy-only calendar in list_calendars and its busy time in query_free_busy, but refuses its events", async () => {
    const listed = (await callTool(an, "list_calendars", {})).structured as { calendars: { id: string; busy_only: boolean }[] };
    expect(listed.calendars.find((calendar) => calendar.id === "binh-private")?.busy_only).toBe(true);
    expect(listed.calendars.find((calendar) => calendar.id === "work")?.busy_only).toBe(false);
    const busy = await callTool(an, "query_free_busy", {
      calendar_ids: ["binh-private"],
      start: "2026-10-02",
      end_exclusive: "2026-10-03",
      timezone: HCM,
    });
    expect(busy.text).toContain("- 2026-10-02T10:00:00+07:00 to 2026-10-02T11:00:00+07:00 (end excluded)");
    const forbidden = await callTool(an, "get_event", { calendar_id: "binh-private", event_id: "x", timezone: null });
    const unknown = await callTool(an, "get_event", { calendar_id: "no-such-calendar", event_id: "x", timezone: null });
    expect(errorCode(forbidden)).toBe("calendar_not_accessible");
    expect(forbidden.text).toBe(unknown.text);
  });

  it("hides what the caller declined, finds what they accepted, and filters by category", async () => {
    const team = { ...FRIDAY_MORNING, calendar_id: "team", start: "2026-10-02", end_exclusive: "2026-10-03" };
    const summaries = async (filters: Record<string, unknown>) =>
      eventsOf(await callTool(an, "search_calendar_events", { ...team, ...filters })).map((event) => event.summary);
    expect(await summaries({})).toEqual(["Vendor pitch", "Sprint planning"]);
    expect(await summaries({ my_participation: "not_declined" })).toEqual(["Sprint planning"]);
    expect(await summaries({ my_participation: "accepted" })).toEqual(["Sprint planning"]);
    expect(await summaries({ my_participation: "declined" })).toEqual(["Vendor pitch"]);
    expect(await summaries({ categories: ["planning"] })).toEqual(["Sprint planning"]);
    const { calendar_id: _one, ...window } = team;
    const across = await callTool(an, "search_across_calendars", {
      ...window,
      calendar_ids: ["team", "primary"],
      my_participation: "not_declined",
    });
    expect(eventsOf(across).map((event) => event.summary)).not.toContain("Vendor pitch");
    const binh = await gateway.connect(BINH_TOKEN);
    const unknown = await callTool(binh, "search_calendar_events", { ...FRIDAY_MORNING, my_participation: "accepted" });
    expect(errorCode(unknown)).toBe("caller_addresses_unknown");
  });

  it("gives each result its local weekday, and an all-day event its last day, included", async () => {
    const result = await callTool(an, "search_calendar_events", { ...FRIDAY_MORNING, start: "2026-09-01", end_exclusive: "2026-09-02" });
    const [holiday] = (result.structured as { events: Record<string, unknown>[] }).events;
    expect(holiday).toMatchObject({
      all_day: true,
      start_date: "2026-09-01",
      start_date_weekday: "Tuesday",
      // Two days, 2026-09-01 and 2026-09-02: the last one is named, not the exclusive end.
      last_date: "2026-09-02",
      last_date_weekday: "Wednesday",
      start_local_weekday: "Tuesday",
    });
  });

  it("answers unauthenticated when the caller's token is wrong", async () => {
    const stranger = await gateway.connect("not-a-token");
    expect(errorCode(await callTool(stranger, "list_calendars", {}))).toBe("unauthenticated");
  });
}

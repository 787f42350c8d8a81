import { describe, expect, it } from "vitest";
import { renderResult } from "../../src/gateway/render.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";

const { tools } = buildToolCatalog();
const search = tools.find((tool) => tool.name === "search_calendar_events")!;

const occurrence = {
  event_id: "nGx0zLr2fVQk5pWe",
  summary: "Night shift",
  location: "",
  start_local: "2026-10-31T22:00:00-04:00",
  end_local: "2026-11-01T06:00:00-05:00",
  all_day: false,
  start_date: "",
  end_date_exclusive: "",
  window_relation: "spans",
  status: "tentative",
};

function render(events: object[], nextCursor = "", partial = false) {
  return renderResult(search, { start: "2026-11-01T00:00:00-04:00", end_exclusive: "2026-11-01T03:00:00-05:00" }, {
    events,
    next_cursor: nextCursor,
    query: { calendar_id: "new-york", timezone: "America/New_York", match_mode: "overlap" },
    stale: false,
    partial,
  } as never);
}

describe("the text beside a search result", () => {
  it("shows an occurrence across midnight and a DST change with both dates and both offsets", () => {
    expect(render([occurrence])).toBe(
      [
        "Calendar new-york, window [2026-11-01T00:00:00-04:00, 2026-11-01T03:00:00-05:00) in America/New_York, mode overlap: 1 occurrence(s) on this page.",
        "- Sat 2026-10-31 22:00-Sun 2026-11-01 06:00 -04:00/-05:00 Night shift (tentative) [spans] id nGx0zLr2fVQk5pWe",
        "No more pages.",
      ].join("\n"),
    );
  });

  it("shows a one-day all-day event by its date alone, and says what an empty answer means", () => {
    const holiday = {
      ...occurrence,
      summary: "Holiday",
      all_day: true,
      start_date: "2026-11-01",
      end_date_exclusive: "2026-11-02",
      status: "confirmed",
    };
    expect(render([holiday])).toContain("- all day Sun 2026-11-01 Holiday [spans]");
    expect(render([])).toContain("Nothing in this calendar matches this window in this mode. No more pages.");
  });

  it("says that a partial page is not everything, even when it is empty", () => {
    const text = render([], "abc.def", true);
    expect(text).toContain("The search stopped before it filled this page");
    expect(text).toContain('cursor "abc.def"');
    expect(text).not.toContain("Nothing in this calendar matches");
    expect(render([occurrence])).not.toContain("stopped before");
  });

  it("says how to get the next page", () => {
    expect(render([occurrence], "abc.def")).toContain(
      'More pages: call search_calendar_events again with the same arguments and cursor "abc.def".',
    );
  });
});

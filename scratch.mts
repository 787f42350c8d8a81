import { readFileSync } from "node:fs";
import { buildSnapshot } from "./src/store/snapshot.ts";
import { defaultLimits } from "./src/store/calendar-store.ts";
import { searchPage } from "./src/search/search-occurrences.ts";
import { eventIdOf, recurrenceIdOf } from "./src/expand/occurrence.ts";
import { formatInZone } from "./src/time/civil.ts";
import { resolveWindow } from "./src/time/request-window.ts";
for (const [file, q] of [["work", ["2026-10-02T09:00:00+07:00","2026-10-02T12:00:00+07:00","Asia/Ho_Chi_Minh"]], ["work", ["2026-09-01","2026-11-01","Asia/Ho_Chi_Minh"]], ["new-york", ["2026-10-31","2026-11-03","America/New_York"]], ["new-york", ["2026-03-07","2026-03-10","America/New_York"]]] as const) {
  const snap = buildSnapshot(readFileSync(`data/${file}.ics`, "utf8"), { calendarId: file, limits: defaultLimits(Date.now()), readAt: Date.now() });
  console.log(file, snap.index.size, snap.tails.length, snap.diagnostics);
  const w = resolveWindow({ start: q[0], endExclusive: q[1], timezone: q[2] }, 366*86400000);
  const page = searchPage(snap, { window: w, mode: "overlap", limit: 50 });
  for (const o of page.occurrences) console.log("  ", formatInZone(o.start, w.zone), formatInZone(o.end, w.zone), o.details.summary, eventIdOf(o), recurrenceIdOf(o));
}

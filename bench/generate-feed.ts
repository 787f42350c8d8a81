/**
 * The benchmark feed: 10,000 single events and 200 recurring series in
 * America/New_York (weekday, weekly and monthly rules with EXDATEs), spread
 * around `anchor`. Deterministic for a given seed.
 */

/** A small deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (value: number) => String(value).padStart(2, "0");

/** "YYYYMMDDTHHMMSS" of a wall-clock number (ms, read as UTC fields). */
function wall(local: number): string {
  const d = new Date(local);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00`;
}

export interface FeedShape {
  readonly singles: number;
  readonly series: number;
}

export function generateFeed(anchor: number, shape: FeedShape = { singles: 10_000, series: 200 }, seed = 42): string {
  const next = random(seed);
  const day = 86_400_000;
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calq//bench//EN", "X-WR-TIMEZONE:America/New_York"];
  const startOfDay = (offsetDays: number) => {
    const d = new Date(anchor + offsetDays * day);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  };
  for (let i = 0; i < shape.singles; i++) {
    // Within a year either side of the anchor, on the quarter hour between 07:00 and 19:45.
    const start = startOfDay(Math.floor(next() * 730) - 365) + (28 + Math.floor(next() * 52)) * 15 * 60_000;
    const minutes = [15, 30, 45, 60, 90, 120][Math.floor(next() * 6)];
    lines.push(
      "BEGIN:VEVENT",
      `UID:single-${i}@bench.calq`,
      "DTSTAMP:20260101T000000Z",
      `DTSTART;TZID=America/New_York:${wall(start)}`,
      `DTEND;TZID=America/New_York:${wall(start + minutes * 60_000)}`,
      `SUMMARY:Meeting ${i}`,
      "END:VEVENT",
    );
  }
  const rules = ["FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "FREQ=WEEKLY;BYDAY=TU", "FREQ=MONTHLY;BYDAY=2TH", "FREQ=MONTHLY;BYMONTHDAY=15"];
  for (let i = 0; i < shape.series; i++) {
    const start = startOfDay(-Math.floor(next() * 365)) + (32 + Math.floor(next() * 40)) * 15 * 60_000;
    const rule = rules[i % rules.length];
    const exdates: string[] = [];
    for (let k = 0; k < 4; k++) exdates.push(`EXDATE;TZID=America/New_York:${wall(start + (7 + 7 * Math.floor(next() * 40)) * day)}`);
    lines.push(
      "BEGIN:VEVENT",
      `UID:series-${i}@bench.calq`,
      "DTSTAMP:20260101T000000Z",
      `DTSTART;TZID=America/New_York:${wall(start)}`,
      "DURATION:PT30M",
      `RRULE:${rule}`,
      ...exdates,
      `SUMMARY:Series ${i}`,
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR", "");
  return lines.join("\r\n");
}

/**
 * The hostile feed of the hostile-clients benchmark: `count` zero-duration events that each
 * recur every hour without end (0.8 MB for 10,000), starting on the minutes of one day
 * before `anchor`. Far more series than the feed cap can materialise, so
 * most are expanded per query.
 */
export function generateHourlySeries(anchor: number, count = 10_000): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calq//bench//EN", "X-WR-TIMEZONE:UTC"];
  const day = Date.UTC(new Date(anchor).getUTCFullYear(), new Date(anchor).getUTCMonth(), new Date(anchor).getUTCDate()) - 86_400_000;
  for (let i = 0; i < count; i++) {
    lines.push("BEGIN:VEVENT", `UID:h${i}`, `DTSTART:${wall(day + (i % 1440) * 60_000)}Z`, "RRULE:FREQ=HOURLY", "END:VEVENT");
  }
  lines.push("END:VCALENDAR", "");
  return lines.join("\r\n");
}

/**
 * The tables `calq busy` and `calq slots` print (and `calq meet`, in
 * meeting-table.ts): intervals as local wall times in the request's zone,
 * as the service sent them.
 *
 * A week of intervals repeats the same date and offset on every row, which
 * hides the one row where they change; so a row shows its day only when it
 * differs from the row above, a start its offset on the first row and when
 * it differs from the start above, and an end its date and offset only when
 * they differ from its own start's. Across a fall-back the change is then
 * the one thing printed: 01:15 -04:00 to 01:45 -05:00 lasts 90 minutes.
 */
import {
  type BusyInterval,
  BusyKind,
  type FindFreeSlotsResponse,
  type QueryFreeBusyResponse,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { MAX_SLOTS } from "../page-size.js";
import { type LocalTime, parseLocal } from "./local-time.js";

const KINDS: Record<BusyKind, string> = {
  [BusyKind.UNSPECIFIED]: "",
  [BusyKind.BUSY]: "busy",
  [BusyKind.TENTATIVE]: "tentative",
};

/** What `calq busy` prints: each calendar's busy time, then, for several calendars, all of them combined. */
export function renderFreeBusy(response: QueryFreeBusyResponse): string {
  const lines = [`busy time of ${response.calendars.length} calendar(s), times in ${response.timezone}, ends excluded`];
  for (const calendar of response.calendars) {
    const notes = [
      calendar.stale ? " (stale: the last reload failed, showing the last good data)" : "",
      calendar.complete ? "" : " (incomplete: the server read only part of this calendar; more time may be busy)",
    ].join("");
    lines.push("", `${calendar.calendarId}: ${busySummary(calendar.busy)}${notes}`, ...busyTable(calendar.busy));
  }
  // With one calendar, the combined time is that calendar's again.
  if (response.calendars.length > 1) {
    const incomplete = response.calendars.some((calendar) => !calendar.complete) ? " (incomplete: see above)" : "";
    lines.push("", `all calendars combined: ${busySummary(response.combined)}${incomplete}`, ...busyTable(response.combined));
  }
  return `${lines.join("\n")}\n`;
}

function busySummary(busy: readonly BusyInterval[]): string {
  return busy.length === 0 ? "free for the whole window" : `${busy.length} busy interval(s); time not listed is free`;
}

function busyTable(busy: readonly BusyInterval[]): string[] {
  return intervalTable(
    ["KIND"],
    busy.map((interval) => ({ startLocal: interval.startLocal, endLocal: interval.endLocal, cells: [KINDS[interval.kind]] })),
  );
}

/**
 * What `calq slots` prints: the free slots in start order, or why there are
 * none; when there are as many as were asked for (`limit`), a last line says
 * that later ones may follow.
 */
export function renderFreeSlots(response: FindFreeSlotsResponse, limit: number): string {
  const incomplete = response.complete ? "" : " (incomplete: a calendar was read only in part; a slot shown may not be free in it)";
  if (response.slots.length === 0) {
    return `no free slot in ${response.timezone} fits the window (and the working hours, if given)${incomplete}\n`;
  }
  const lines = [
    `${response.slots.length} free slot(s), times in ${response.timezone}, ends excluded${incomplete}`,
    ...intervalTable(
      [],
      response.slots.map((slot) => ({ startLocal: slot.startLocal, endLocal: slot.endLocal, cells: [] })),
    ),
  ];
  if (response.slots.length >= limit) {
    lines.push(`the first ${limit} only: later slots may be free too; raise --limit (up to ${MAX_SLOTS}) or start the window later`);
  }
  return `${lines.join("\n")}\n`;
}

/** One interval to show: its local start and end as the service sent them, and the cells after them. */
export interface IntervalRow {
  readonly startLocal: string;
  readonly endLocal: string;
  readonly cells: readonly string[];
}

const INTERVAL_HEADER = ["DAY", "START", "END (excl.)"];

/** An aligned table of intervals, the header first; no lines at all for no intervals. */
export function intervalTable(extraHeader: readonly string[], intervals: readonly IntervalRow[]): string[] {
  if (intervals.length === 0) return [];
  let above: LocalTime | undefined;
  const rows = intervals.map(({ startLocal, endLocal, cells }) => {
    const start = parseLocal(startLocal);
    const end = parseLocal(endLocal);
    if (start === undefined || end === undefined) {
      above = undefined;
      return ["", startLocal, endLocal, ...cells];
    }
    const day = above?.date === start.date ? "" : `${start.weekday} ${start.date}`;
    const startCell = above?.offset === start.offset ? start.time : `${start.time} ${start.offset}`;
    const endCell = [
      end.date === start.date ? "" : `${end.weekday} ${end.date} `,
      end.time,
      end.offset === start.offset ? "" : ` ${end.offset}`,
    ];
    above = start;
    return [day, startCell, endCell.join(""), ...cells];
  });
  const header = [...INTERVAL_HEADER, ...extraHeader];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((cells) => cells[column].length)));
  return [header, ...rows].map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join("  ")
      .trimEnd(),
  );
}

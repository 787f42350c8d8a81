/**
 * What `calq meet` prints, in the style of `calq slots` (free-busy-table.ts):
 * the attendees and where their working hours come from, then the meeting
 * times best first, with how many optional attendees are free and who is
 * not, and why; or why nothing fits, with the first fit after the window
 * and the time missing the fewest required attendees.
 */
import {
  Availability,
  type FindMeetingTimesResponse,
  type MeetingTime,
  NoFitReason,
  WorkingHoursSource,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { intervalTable } from "./free-busy-table.js";

/** An enum value as words: NO_COMMON_FREE_TIME as "no common free time". */
function words(name: string | undefined): string {
  return (name ?? "").toLowerCase().replaceAll("_", " ");
}

export function renderMeetingTimes(response: FindMeetingTimesResponse): string {
  const optional = response.attendees.filter((attendee) => !attendee.required).length;
  const lines = [
    ...aligned([
      ["ATTENDEE", "ATTENDANCE", "ZONE", "WORKING HOURS FROM"],
      ...response.attendees.map((attendee) => [
        attendee.calendarId,
        attendee.required ? "required" : "optional",
        attendee.timezone,
        `${words(WorkingHoursSource[attendee.workingHoursSource])}${attendee.stale ? " (stale data)" : ""}`,
      ]),
    ]),
    "",
  ];
  const incomplete = response.complete ? "" : " (incomplete: only the start of the window was looked at; --json says up to when)";
  if (response.noFitReason === NoFitReason.UNSPECIFIED) {
    lines.push(
      `${response.candidates.length} of ${response.fitCount} meeting time(s) that fit, best first, times in ${response.timezone}, ends excluded${incomplete}`,
      ...meetingTable(response.candidates, optional),
    );
  } else {
    lines.push(`no meeting time fits: ${words(NoFitReason[response.noFitReason])}${incomplete}`);
    if (response.firstFitAfterWindow !== undefined) {
      lines.push("", "first fit after the window:", ...meetingTable([response.firstFitAfterWindow], optional));
    } else {
      lines.push("", "no time fits within 14 days after the window either");
    }
    if (response.fewestMissing !== undefined) {
      lines.push("", "closest in the window:", ...meetingTable([response.fewestMissing], optional));
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Meeting times as rows of the interval table, with the optional attendees free and who is not free. */
function meetingTable(times: readonly MeetingTime[], optional: number): string[] {
  return intervalTable(
    optional === 0 ? ["NOT FREE"] : ["OPTIONAL FREE", "NOT FREE"],
    times.map((time) => {
      const away = time.attendees
        .filter((attendee) => attendee.availability !== Availability.FREE)
        .map((attendee) => `${attendee.calendarId} ${words(Availability[attendee.availability])}`)
        .join(", ");
      return {
        startLocal: time.startLocal,
        endLocal: time.endLocal,
        cells: optional === 0 ? [away] : [`${time.optionalFree}/${optional}`, away],
      };
    }),
  );
}

/** Rows of cells as aligned columns, two spaces apart. */
function aligned(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((cells) => cells[column].length)));
  return rows.map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join("  ")
      .trimEnd(),
  );
}

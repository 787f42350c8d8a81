/**
 * The short text a model reads beside a tool's structured result: local
 * times in the request's zone, all-day events by their dates, how each
 * occurrence sits against the window, and how to get the next page.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ToolDefinition, ToolName } from "./tool-schemas.js";

/** The text rendering of a successful result of `tool`, given the arguments it was called with. */
export function renderResult(tool: ToolDefinition, args: Record<string, unknown>, result: JsonObject): string {
  switch (tool.name as ToolName) {
    case "search_calendar_events":
      return renderSearch(args, result as unknown as SearchResult);
    case "search_across_calendars":
      return renderSearchAcross(args, result as unknown as SearchAcrossResult);
    case "get_event":
      return renderEvent(result as unknown as EventResult);
    case "list_calendars":
      return renderCalendars(result as unknown as CalendarList);
    case "get_user_context":
      return renderUserContext(tool, result as unknown as UserContext);
    case "query_free_busy":
      return renderFreeBusy(result as unknown as FreeBusyResult);
    case "find_free_slots":
      return renderFreeSlots(result as unknown as FreeSlotsResult);
  }
}

interface FreeSlotsResult {
  slots: { start_local: string; end_local: string }[];
  timezone: string;
  complete: boolean;
}

/** The slots as local wall times with their offsets (two slots can share a wall time across a fall-back). */
function renderFreeSlots(result: FreeSlotsResult): string {
  const lines =
    result.slots.length === 0
      ? ["No free slot of that length fits the window (and working hours, if given)."]
      : [
          `Free slots in ${result.timezone}, each end excluded:`,
          ...result.slots.map((slot) => `- ${slot.start_local} to ${slot.end_local}`),
        ];
  if (!result.complete) lines.push("A calendar was read only in part: confirm a slot before booking it.");
  return lines.join("\n");
}

interface BusyInterval {
  start_local: string;
  end_local: string;
  kind: string;
}

interface FreeBusyResult {
  timezone: string;
  calendars: { calendar_id: string; busy: BusyInterval[]; stale: boolean; complete: boolean }[];
  combined: BusyInterval[];
}

/** Busy time as local wall times with their offsets; what is not listed is free in every calendar asked. */
function renderFreeBusy(result: FreeBusyResult): string {
  const interval = (busy: BusyInterval) =>
    `${busy.start_local} to ${busy.end_local} (end excluded)${busy.kind === "tentative" ? ", tentative" : ""}`;
  const lines = [
    `Busy time in ${result.timezone}, all calendars together; any time not listed is free in every calendar asked:`,
    ...(result.combined.length === 0 ? ["- none: free for the whole window"] : result.combined.map((busy) => `- ${interval(busy)}`)),
  ];
  for (const calendar of result.calendars) {
    const notes = [
      calendar.stale ? "stale: its last reload failed" : "",
      calendar.complete ? "" : "read only in part: more may be busy",
    ].filter((note) => note !== "");
    lines.push(`${calendar.calendar_id}: ${calendar.busy.length} busy interval(s)${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`);
  }
  return lines.join("\n");
}

interface Occurrence {
  event_id: string;
  details_withheld?: boolean;
  summary: string;
  location: string;
  start_local: string;
  end_local: string;
  all_day: boolean;
  start_date: string;
  end_date_exclusive: string;
  window_relation?: string;
  status: string;
}

interface SearchResult {
  events: Occurrence[];
  next_cursor: string;
  query?: { calendar_id: string; timezone: string; match_mode: string };
  stale: boolean;
  /** Absent from results of servers older than issue 10. */
  partial?: boolean;
}

function renderSearch(args: Record<string, unknown>, result: SearchResult): string {
  const query = result.query!;
  return renderPage(
    `Calendar ${query.calendar_id}, window [${String(args.start)}, ${String(args.end_exclusive)}) in ${query.timezone}, mode ${query.match_mode}: ` +
      `${result.events.length} occurrence(s) on this page.`,
    result.events.map(renderOccurrence),
    result.stale ? "The feed's last reload failed; these results may miss recent changes." : undefined,
    { ...result, tool: "search_calendar_events", nothing: "Nothing in this calendar matches this window in this mode." },
  );
}

interface SearchAcrossResult {
  events: (Occurrence & { calendar_id: string })[];
  next_cursor: string;
  query?: { calendar_ids: string[]; timezone: string; match_mode: string };
  calendars: { calendar_id: string; stale: boolean }[];
  partial: boolean;
}

/** Like a search of one calendar, each occurrence led by its calendar's id. */
function renderSearchAcross(args: Record<string, unknown>, result: SearchAcrossResult): string {
  const query = result.query!;
  const stale = result.calendars.filter((calendar) => calendar.stale).map((calendar) => calendar.calendar_id);
  return renderPage(
    `Calendars ${query.calendar_ids.join(", ")}, window [${String(args.start)}, ${String(args.end_exclusive)}) in ${query.timezone}, ` +
      `mode ${query.match_mode}: ${result.events.length} occurrence(s) on this page, in start order.`,
    result.events.map((event) => `${event.calendar_id}: ${renderOccurrence(event)}`),
    stale.length > 0 ? `The last reload of ${stale.join(", ")} failed; results may miss recent changes there.` : undefined,
    { ...result, tool: "search_across_calendars", nothing: "Nothing in these calendars matches this window in this mode." },
  );
}

/** A page of either search: its heading, one line per occurrence, a stale note, whether it is partial, and how to go on. */
function renderPage(
  heading: string,
  occurrences: readonly string[],
  staleNote: string | undefined,
  page: { next_cursor: string; partial?: boolean; tool: string; nothing: string },
): string {
  const lines = [heading, ...occurrences.map((line) => `- ${line}`)];
  if (staleNote !== undefined) lines.push(staleNote);
  if (page.partial === true) lines.push(PARTIAL_NOTE);
  lines.push(
    page.next_cursor === ""
      ? occurrences.length === 0
        ? `${page.nothing} No more pages.`
        : "No more pages."
      : `More pages: call ${page.tool} again with the same arguments and cursor "${page.next_cursor}".`,
  );
  return lines.join("\n");
}

const PARTIAL_NOTE =
  "The search stopped before it filled this page (its time budget or the deadline ran out). The occurrences above are exact and in order, but this is not everything: continue with the cursor below before concluding anything.";

function renderOccurrence(event: Occurrence): string {
  const when = event.all_day ? allDayDates(event) : localSpan(event.start_local, event.end_local);
  const title = event.details_withheld === true ? "(private)" : event.summary === "" ? "(no title)" : event.summary;
  const where = event.location === "" ? "" : ` @ ${event.location}`;
  const status = event.status === "tentative" ? " (tentative)" : "";
  const relation = event.window_relation === undefined || event.window_relation === "unspecified" ? "" : ` [${event.window_relation}]`;
  return `${when} ${title}${where}${status}${relation} id ${event.event_id}`;
}

interface EventResult {
  event: Occurrence & { calendar_id: string };
  description: string;
  description_truncated: boolean;
  organizer?: { name: string; address: string };
  attendees: { person: { name: string; address: string }; participation?: string }[];
  attendee_count: number;
  links: { url: string; source: string }[];
  categories: string[];
  details_withheld: boolean;
  recurrence_rules: string[];
  recurrence_text: string;
  stale: boolean;
}

/** One event for a follow-up question: when, where, who, the links, and how it recurs. */
function renderEvent(result: EventResult): string {
  const person = (someone: { name: string; address: string }) =>
    someone.name === "" ? someone.address : `${someone.name} <${someone.address}>`;
  const lines = [`${result.event.calendar_id}: ${renderOccurrence(result.event)}`];
  if (result.details_withheld) lines.push("A private event: only its time is shown to you.");
  if (result.recurrence_text !== "") lines.push(`Repeats ${result.recurrence_text} (${result.recurrence_rules.join("; ")}).`);
  if (result.organizer !== undefined) lines.push(`Organizer: ${person(result.organizer)}`);
  if (result.attendee_count > 0) {
    const shown = result.attendees.map((attendee) => `${person(attendee.person)} (${attendee.participation ?? "unknown"})`);
    const more = result.attendee_count - result.attendees.length;
    lines.push(`Attendees: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`);
  }
  for (const link of result.links) lines.push(`Link (${link.source}): ${link.url}`);
  if (result.categories.length > 0) lines.push(`Categories: ${result.categories.join(", ")}`);
  if (result.description !== "") lines.push(`Description${result.description_truncated ? " (cut)" : ""}:\n${result.description}`);
  if (result.stale) lines.push("The feed's last reload failed; this may miss recent changes.");
  return lines.join("\n");
}

/** "Fri 2026-10-02 08:30-09:30 +07:00", with the end's date when it is another day. */
function localSpan(startLocal: string, endLocal: string): string {
  const [startDate, startTime, offset] = splitLocal(startLocal);
  const [endDate, endTime, endOffset] = splitLocal(endLocal);
  const end = endDate === startDate ? endTime : `${weekday(endDate)} ${endDate} ${endTime}`;
  const offsets = endOffset === offset ? offset : `${offset}/${endOffset}`;
  return `${weekday(startDate)} ${startDate} ${startTime}-${end} ${offsets}`;
}

/** "all day Tue 2026-09-01 to Wed 2026-09-02" (the last day, not the exclusive end). */
function allDayDates(event: Occurrence): string {
  const last = addDays(event.end_date_exclusive, -1);
  return last === event.start_date
    ? `all day ${weekday(event.start_date)} ${event.start_date}`
    : `all day ${weekday(event.start_date)} ${event.start_date} to ${weekday(last)} ${last}`;
}

/** "2026-10-02T08:30:00+07:00" → ["2026-10-02", "08:30", "+07:00"]; seconds shown only when not zero. */
function splitLocal(rfc3339: string): [string, string, string] {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2}(?::\d{2})?)$/.exec(rfc3339);
  if (match === null) return [rfc3339, "", ""];
  const seconds = match[3] === undefined || match[3] === ":00" ? "" : match[3];
  return [match[1], `${match[2]}${seconds}`, match[4] === "Z" ? "UTC" : match[4]];
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

function weekday(date: string): string {
  return WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()];
}

function addDays(date: string, days: number): string {
  const value = new Date(`${date}T00:00:00Z`);
  value.setUTCDate(value.getUTCDate() + days);
  return value.toISOString().slice(0, 10);
}

interface CalendarList {
  calendars: { id: string; display_name: string; timezone: string; primary: boolean; stale: boolean }[];
}

function renderCalendars(result: CalendarList): string {
  if (result.calendars.length === 0) return "No calendars are readable by this caller.";
  return result.calendars
    .map((calendar) => {
      const name = calendar.display_name === "" ? "" : ` "${calendar.display_name}"`;
      const marks = [calendar.timezone, ...(calendar.primary ? ["primary"] : []), ...(calendar.stale ? ["stale"] : [])];
      return `- ${calendar.id}${name} (${marks.join(", ")})`;
    })
    .join("\n");
}

interface UserContext {
  principal_id: string;
  timezone: string;
  current_time: string;
  primary_calendar_id: string;
}

/** When no zone is recorded, it says so explicitly, followed by the contract's own instruction for that case. */
function renderUserContext(tool: ToolDefinition, result: UserContext): string {
  const zone =
    result.timezone === ""
      ? `Recorded time zone: none recorded. ${(tool.outputSchema as { properties: { timezone: { description: string } } }).properties.timezone.description}`
      : `Recorded time zone: ${result.timezone} (local time now ${localNow(result.current_time, result.timezone)}).`;
  return [
    `Current time: ${result.current_time}.`,
    zone,
    `Caller: ${result.principal_id}; primary calendar: ${result.primary_calendar_id === "" ? "none" : result.primary_calendar_id}.`,
  ].join("\n");
}

/** The instant as a wall-clock time with weekday in `zone`, e.g. "Wed 2026-09-30 08:00 +07:00". */
function localNow(instant: string, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      weekday: "short",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset",
    })
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  const offset = parts.timeZoneName === "GMT" ? "+00:00" : parts.timeZoneName.replace("GMT", "");
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${offset}`;
}

/**
 * The short text a model reads beside a tool's structured result: local
 * times in the request's zone, all-day events by their dates, how each
 * occurrence sits against the window, and how to get the next page. It reads
 * the service's response as gen/'s message types, so a field renamed in the
 * proto fails to compile here rather than rendering nothing.
 */
import { type DescEnum, type DescMessage, type FileRegistry, isMessage, type Message, type MessageShape, toJson } from "@bufbuild/protobuf";
import { type Timestamp, TimestampSchema } from "@bufbuild/protobuf/wkt";
import {
  AvailabilitySchema,
  type BusyInterval,
  BusyKind,
  ChangeKind,
  type EventOccurrence,
  EventStatus,
  FindFreeSlotsResponseSchema,
  FindMeetingTimesResponseSchema,
  GetCallerContextResponseSchema,
  GetEventResponseSchema,
  LinkSourceSchema,
  ListCalendarsResponseSchema,
  ListChangesResponseSchema,
  MatchModeSchema,
  type MeetingTime,
  NoFitReason,
  NoFitReasonSchema,
  PartialReason,
  ParticipationSchema,
  type Person,
  QueryFreeBusyResponseSchema,
  SearchEventsAcrossCalendarsResponseSchema,
  SearchEventsResponseSchema,
  type TimeSpan,
  WindowRelation,
  WindowRelationSchema,
  WorkingHoursSourceSchema,
} from "../../gen/calq/v1/calendar_service_pb.js";
import { loadContractRegistry, proseOf } from "./descriptors.js";
import { enumToolName } from "./tool-json.js";
import type { JsonSchema, ToolDefinition, ToolName } from "./tool-schemas.js";

/** What a renderer knows of the call besides the response. */
interface Call {
  readonly tool: ToolDefinition;
  readonly args: Record<string, unknown>;
}

type Renderer = (response: Message, call: Call) => string;

/** A renderer for responses of `schema`; any other message is a bug in the caller, and throws. */
function rendering<Desc extends DescMessage>(schema: Desc, render: (response: MessageShape<Desc>, call: Call) => string): Renderer {
  return (response, call) => {
    if (!isMessage(response, schema)) throw new Error(`${call.tool.name} was answered with ${response.$typeName}, not ${schema.typeName}`);
    return render(response, call);
  };
}

/** Each tool's renderer, for the response type of its method. */
const RENDERERS: Readonly<Record<ToolName, Renderer>> = {
  search_calendar_events: rendering(SearchEventsResponseSchema, renderSearch),
  search_across_calendars: rendering(SearchEventsAcrossCalendarsResponseSchema, renderSearchAcross),
  get_event: rendering(GetEventResponseSchema, renderEvent),
  list_calendars: rendering(ListCalendarsResponseSchema, renderCalendars),
  get_user_context: rendering(GetCallerContextResponseSchema, renderUserContext),
  query_free_busy: rendering(QueryFreeBusyResponseSchema, renderFreeBusy),
  find_free_slots: rendering(FindFreeSlotsResponseSchema, renderFreeSlots),
  list_changes: rendering(ListChangesResponseSchema, renderChanges),
  find_meeting_times: rendering(FindMeetingTimesResponseSchema, renderMeetingTimes),
};

/** The text rendering of a successful result of `tool`: the service's response, given the arguments the tool was called with. */
export function renderResult(tool: ToolDefinition, args: Record<string, unknown>, response: Message): string {
  return RENDERERS[tool.name](response, { tool, args });
}

/** An enum value as the tools spell it (tool-json.ts): `crosses_start`, `accepted`. */
function toolWord(desc: DescEnum, value: number): string {
  const known = desc.value[value];
  return known === undefined ? String(value) : enumToolName(known);
}

/** The slots as local wall times with their offsets (two slots can share a wall time across a fall-back). */
function renderFreeSlots(result: MessageShape<typeof FindFreeSlotsResponseSchema>): string {
  const lines =
    result.slots.length === 0
      ? ["No free slot of that length fits the window (and working hours, if given)."]
      : [`Free slots in ${result.timezone}, each end excluded:`, ...result.slots.map((slot) => `- ${slot.startLocal} to ${slot.endLocal}`)];
  if (result.completeUntil !== undefined) {
    lines.push(
      `Slots were looked for only before ${localInstant(result.completeUntil, result.timezone)} (${stopWords(result.partialReason)}); ` +
        "every slot above is free. For later slots, call again with start at that time.",
    );
  }
  return lines.join("\n");
}

/**
 * Meeting times best first, each with who is not free; when nothing fits,
 * why (in the contract's words for that reason), the first fit after the
 * window and the time missing the fewest required attendees.
 */
function renderMeetingTimes(result: MessageShape<typeof FindMeetingTimesResponseSchema>): string {
  const attendees = result.attendees.map(
    (attendee) =>
      `${attendee.calendarId} (${attendee.required ? "required" : "optional"}, ${attendee.timezone}, working hours: ${toolWord(WorkingHoursSourceSchema, attendee.workingHoursSource)}${attendee.stale ? ", stale" : ""})`,
  );
  const optional = result.attendees.filter((attendee) => !attendee.required).length;
  const lines = [`Attendees: ${attendees.join(", ")}.`];
  if (result.noFitReason === NoFitReason.UNSPECIFIED) {
    lines.push(
      `Meeting times in ${result.timezone}, best first (${result.fitCount} fit in all; each end excluded):`,
      ...result.candidates.map((time) => `- ${meetingLine(time, optional)}`),
    );
  } else {
    lines.push(
      `Nothing fits: ${toolWord(NoFitReasonSchema, result.noFitReason)}. ${enumValueProse(NoFitReasonSchema.typeName, result.noFitReason)}`,
    );
    if (result.firstFitAfterWindow !== undefined)
      lines.push(`First fit after the window: ${meetingLine(result.firstFitAfterWindow, optional)}`);
    else lines.push("No time fits within 14 days after the window either.");
    if (result.fewestMissing !== undefined) {
      lines.push(
        `Closest in the window: ${meetingLine(result.fewestMissing, optional)}; required but not free: ${result.fewestMissing.unavailableRequired.join(", ")}`,
      );
    }
  }
  if (result.completeUntil !== undefined) {
    lines.push(
      `Times were looked for only before ${localInstant(result.completeUntil, result.timezone)} (${stopWords(result.partialReason)}); ` +
        "for later times, call again with start at that time.",
    );
  }
  return lines.join("\n");
}

/** One meeting time: when, how many optional attendees are free, and who is not free and why, in their own local time. */
function meetingLine(time: MeetingTime, optional: number): string {
  const away = time.attendees
    .filter((attendee) => attendee.availability !== AVAILABLE)
    .map(
      (attendee) =>
        `${attendee.calendarId} ${toolWord(AvailabilitySchema, attendee.availability)} at ${splitLocal(attendee.startLocal)[1]}`,
    );
  const optionalNote = optional === 0 ? "" : `; optional free ${time.optionalFree} of ${optional}`;
  return `${localSpan(time.startLocal, time.endLocal)}${optionalNote}${away.length === 0 ? "" : ` (${away.join(", ")})`}`;
}

/** An attendee's availability number when free. */
const AVAILABLE = AvailabilitySchema.values.find((value) => value.localName === "FREE")!.number;

/** The contract's comment of an enum value (gen/calq.binpb keeps comments; gen/'s code does not). */
function enumValueProse(enumName: string, value: number): string {
  contract ??= loadContractRegistry();
  const desc = contract.getEnum(enumName)?.values.find((candidate) => candidate.number === value);
  return desc === undefined ? "" : proseOf(desc);
}

/** The contract with its comments, read once when first needed. */
let contract: FileRegistry | undefined;

/** Why a read stopped before its window's end, in words. */
function stopWords(reason: PartialReason): string {
  switch (reason) {
    case PartialReason.DEADLINE:
      return "the call's deadline";
    case PartialReason.ANSWER_SIZE:
      return "the most one answer holds";
    default:
      return "the work one call may do";
  }
}

/** Busy time as local wall times with their offsets; what is not listed is free in every calendar asked. */
function renderFreeBusy(result: MessageShape<typeof QueryFreeBusyResponseSchema>): string {
  const interval = (busy: BusyInterval) =>
    `${busy.startLocal} to ${busy.endLocal} (end excluded)${busy.kind === BusyKind.TENTATIVE ? ", tentative" : ""}`;
  const lines = [
    `Busy time in ${result.timezone}, all calendars together; any time not listed is free in every calendar asked:`,
    ...(result.combined.length === 0 ? ["- none: free for the whole window"] : result.combined.map((busy) => `- ${interval(busy)}`)),
  ];
  if (result.completeUntil !== undefined) {
    lines.push(
      `Busy time is known only before ${localInstant(result.completeUntil, result.timezone)} (${stopWords(result.partialReason)}); ` +
        "nothing is known after it: call again with start at that time for the rest.",
    );
  }
  for (const calendar of result.calendars) {
    const notes = [calendar.stale ? "stale: its last reload failed" : ""].filter((note) => note !== "");
    lines.push(`${calendar.calendarId}: ${calendar.busy.length} busy interval(s)${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`);
  }
  return lines.join("\n");
}

function renderSearch(result: MessageShape<typeof SearchEventsResponseSchema>, { args }: Call): string {
  return renderPage(
    `Calendar ${result.query?.calendarId ?? ""}, window [${String(args.start)}, ${String(args.end_exclusive)}) in ${result.query?.timezone ?? ""}, ` +
      `mode ${toolWord(MatchModeSchema, result.query?.matchMode ?? 0)}: ${result.events.length} occurrence(s) on this page.`,
    result.events.map(renderOccurrence),
    result.stale ? "The feed's last reload failed; these results may miss recent changes." : undefined,
    { ...result, tool: "search_calendar_events", nothing: "Nothing in this calendar matches this window in this mode." },
  );
}

/** Like a search of one calendar, each occurrence led by its calendar's id. */
function renderSearchAcross(result: MessageShape<typeof SearchEventsAcrossCalendarsResponseSchema>, { args }: Call): string {
  const stale = result.calendars.filter((calendar) => calendar.stale).map((calendar) => calendar.calendarId);
  return renderPage(
    `Calendars ${(result.query?.calendarIds ?? []).join(", ")}, window [${String(args.start)}, ${String(args.end_exclusive)}) in ${result.query?.timezone ?? ""}, ` +
      `mode ${toolWord(MatchModeSchema, result.query?.matchMode ?? 0)}: ${result.events.length} occurrence(s) on this page, in start order.`,
    result.events.map((event) => `${event.calendarId}: ${renderOccurrence(event)}`),
    stale.length > 0 ? `The last reload of ${stale.join(", ")} failed; results may miss recent changes there.` : undefined,
    { ...result, tool: "search_across_calendars", nothing: "Nothing in these calendars matches this window in this mode." },
  );
}

/** A page of either search: its heading, one line per occurrence, a stale note, whether it is partial, and how to go on. */
function renderPage(
  heading: string,
  occurrences: readonly string[],
  staleNote: string | undefined,
  page: { readonly nextCursor: string; readonly partial: boolean; readonly tool: ToolName; readonly nothing: string },
): string {
  const lines = [heading, ...occurrences.map((line) => `- ${line}`)];
  if (staleNote !== undefined) lines.push(staleNote);
  if (page.partial) lines.push(PARTIAL_NOTE);
  lines.push(
    page.nextCursor === ""
      ? occurrences.length === 0
        ? `${page.nothing} No more pages.`
        : "No more pages."
      : `More pages: call ${page.tool} again with the same arguments and cursor "${page.nextCursor}".`,
  );
  return lines.join("\n");
}

const PARTIAL_NOTE =
  "The search stopped before it filled this page (its work budget or the deadline ran out). The occurrences above are exact and in order, but this is not everything: continue with the cursor below before concluding anything.";

function renderOccurrence(event: EventOccurrence): string {
  const when = event.allDay ? allDayDates(event) : localSpan(event.startLocal, event.endLocal);
  const title = event.detailsWithheld ? "(private)" : event.summary === "" ? "(no title)" : event.summary;
  const where = event.location === "" ? "" : ` @ ${event.location}`;
  const status = event.status === EventStatus.TENTATIVE ? " (tentative)" : "";
  const relation = event.windowRelation === WindowRelation.UNSPECIFIED ? "" : ` [${toolWord(WindowRelationSchema, event.windowRelation)}]`;
  return `${when} ${title}${where}${status}${relation} id ${event.eventId}`;
}

/** One event for a follow-up question: when, where, who, the links, and how it recurs. */
function renderEvent(result: MessageShape<typeof GetEventResponseSchema>): string {
  const person = (someone: Person | undefined) =>
    someone === undefined ? "" : someone.name === "" ? someone.address : `${someone.name} <${someone.address}>`;
  const lines = result.event === undefined ? [] : [`${result.event.calendarId}: ${renderOccurrence(result.event)}`];
  if (result.detailsWithheld) lines.push("A private event: only its time is shown to you.");
  if (result.recurrenceText !== "") lines.push(`Repeats ${result.recurrenceText} (${result.recurrenceRules.join("; ")}).`);
  if (result.organizer !== undefined) lines.push(`Organizer: ${person(result.organizer)}`);
  if (result.attendeeCount > 0) {
    const shown = result.attendees.map(
      (attendee) => `${person(attendee.person)} (${toolWord(ParticipationSchema, attendee.participation)})`,
    );
    const more = result.attendeeCount - result.attendees.length;
    lines.push(`Attendees: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`);
  }
  for (const link of result.links) lines.push(`Link (${toolWord(LinkSourceSchema, link.source)}): ${link.url}`);
  if (result.categories.length > 0) lines.push(`Categories: ${result.categories.join(", ")}`);
  if (result.description !== "") lines.push(`Description${result.descriptionTruncated ? " (cut)" : ""}:\n${result.description}`);
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
function allDayDates(event: EventOccurrence): string {
  const last = addDays(event.endDateExclusive, -1);
  return last === event.startDate
    ? `all day ${weekday(event.startDate)} ${event.startDate}`
    : `all day ${weekday(event.startDate)} ${event.startDate} to ${weekday(last)} ${last}`;
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

function renderCalendars(result: MessageShape<typeof ListCalendarsResponseSchema>): string {
  if (result.calendars.length === 0) return "No calendars are readable by this caller.";
  return result.calendars
    .map((calendar) => {
      const name = calendar.displayName === "" ? "" : ` "${calendar.displayName}"`;
      const marks = [calendar.timezone, ...(calendar.primary ? ["primary"] : []), ...(calendar.stale ? ["stale"] : [])];
      return `- ${calendar.id}${name} (${marks.join(", ")})`;
    })
    .join("\n");
}

/** Each change with its kind and spans, then how to go on: the next page, or the token to keep. */
function renderChanges(result: MessageShape<typeof ListChangesResponseSchema>, { args }: Call): string {
  const span = (time: TimeSpan | undefined) =>
    time === undefined ? "" : `${time.startLocal} to ${time.endLocal === "" ? "no end" : time.endLocal}`;
  const lines =
    args.change_token === null || args.change_token === undefined || args.change_token === ""
      ? ["No changes are listed on a first call: keep the change_token below and send it next time to learn what changed after now."]
      : result.changes.length === 0
        ? ["Nothing changed in these calendars since that token."]
        : result.changes.map((change) => {
            const what = `${change.calendarId}: ${change.summary === "" ? "(details withheld)" : `"${change.summary}"`}${change.recurring ? " (a series)" : ""}`;
            switch (change.kind) {
              case ChangeKind.ADDED:
                return `- added ${what}, ${span(change.after)}; event_id ${change.eventId}`;
              case ChangeKind.REMOVED:
                return `- removed ${what}, was ${span(change.before)}; event_id ${change.eventId}`;
              default:
                return `- changed ${what}, was ${span(change.before)}, now ${span(change.after)}; event_id ${change.eventId}`;
            }
          });
  if (result.nextPageToken !== "")
    lines.push(`More changes follow: call again with the same change_token and page_token "${result.nextPageToken}".`);
  if (result.changeToken !== "") lines.push(`change_token for next time: "${result.changeToken}"`);
  return lines.join("\n");
}

/** When no zone is recorded, it says so explicitly, followed by the contract's own instruction for that case. */
function renderUserContext(result: MessageShape<typeof GetCallerContextResponseSchema>, { tool }: Call): string {
  const now = result.currentTime === undefined ? "unknown" : rfc3339(result.currentTime);
  const zone =
    result.timezone === ""
      ? `Recorded time zone: none recorded. ${propertyDescription(tool.outputSchema, "timezone")}`
      : `Recorded time zone: ${result.timezone}${result.currentTime === undefined ? "" : ` (local time now ${localNow(result.currentTime, result.timezone)})`}.`;
  const days =
    result.today === ""
      ? []
      : [
          `Today: ${result.todayWeekday} ${result.today}. Weeks start on ${result.weekStartWeekday}: this week is ${result.thisWeekStart} to ${result.nextWeekStart} (end excluded), next week ${result.nextWeekStart} to ${result.weekAfterNextStart}.`,
        ];
  const change = result.nextOffsetChange;
  if (change?.time !== undefined) {
    days.push(
      `Next UTC offset change in ${result.timezone}: at ${rfc3339(change.time)} wall clocks go from ${change.localBefore} to ${change.localAfter}.`,
    );
  }
  return [
    `Current time: ${now}.`,
    zone,
    ...days,
    `Caller: ${result.principalId}; primary calendar: ${result.primaryCalendarId === "" ? "none" : result.primaryCalendarId}.`,
  ].join("\n");
}

/** A Timestamp as the tools' JSON writes it: RFC 3339 in UTC ("2026-09-30T01:00:00Z"). */
function rfc3339(instant: Timestamp): string {
  return String(toJson(TimestampSchema, instant));
}

/** The description of one property of a tool's schema; empty when it has none. */
function propertyDescription(schema: JsonSchema, name: string): string {
  const properties = schema.properties;
  const property: unknown = typeof properties === "object" && properties !== null ? Reflect.get(properties, name) : undefined;
  return typeof property === "object" && property !== null && "description" in property && typeof property.description === "string"
    ? property.description
    : "";
}

/** The instant as a wall-clock time with weekday in `zone`, e.g. "Wed 2026-09-30 08:00 +07:00". */
function localNow(instant: Timestamp, zone: string): string {
  const parts = zoneParts(instant, zone);
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.offset}`;
}

/** The instant as RFC 3339 with `zone`'s offset, as a request's `start` may send it, e.g. "2026-09-30T08:00:00+07:00". */
function localInstant(instant: Timestamp, zone: string): string {
  const parts = zoneParts(instant, zone);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${parts.offset}`;
}

/** The fields of an instant's wall-clock time in `zone`, and its offset as "+07:00". */
function zoneParts(instant: Timestamp, zone: string): Record<string, string> {
  const parts: Record<string, string> = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      weekday: "short",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset",
    })
      .formatToParts(new Date(rfc3339(instant)))
      .map((part) => [part.type, part.value]),
  );
  return { ...parts, offset: parts.timeZoneName === "GMT" ? "+00:00" : parts.timeZoneName.replace("GMT", "") };
}

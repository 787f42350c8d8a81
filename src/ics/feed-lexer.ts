/**
 * Feed text to content lines grouped by component, before ical.js sees any
 * of it (docs/imperfect-feeds.md). ical.js fails a whole text on one line it cannot lex (a
 * stray line of a DESCRIPTION, an unbalanced quote, an X- property without a
 * colon); here such a line costs only itself. The component boundaries found
 * here are the ones every later stage uses, so each diagnostic's line is the
 * line of its component's BEGIN in the feed, whatever else the feed holds.
 *
 * Boundaries as producers write them:
 * - text after END:VCALENDAR (a cache comment) is ignored, with a warning;
 * - a component outside any VCALENDAR, or in a second one, is read, with a
 *   warning;
 * - a component whose END is missing ends at the next BEGIN of a component
 *   that only stands in a VCALENDAR (VEVENT, VTIMEZONE, ...), with a warning;
 * - a component the text ends inside is left out (FEED_TRUNCATED);
 * - whitespace before BEGIN:VCALENDAR, a misspelled last END:VCALENDAR and
 *   an empty parameter are read as what they obviously are, with a warning.
 *
 * The caps of feed-bounds.ts are applied here, as each line comes, so what
 * a cap leaves out is never held nor handed to ical.js
 * (docs/imperfect-feeds.md, "Bounds").
 */

import { type DiagnosticCode, type DiagnosticSink, diagnostic } from "./diagnostic.js";
import {
  MAX_COMPONENT_DEPTH,
  MAX_EXDATES_PER_EVENT,
  MAX_PROPERTIES_PER_COMPONENT,
  MAX_RDATES_PER_EVENT,
  MAX_TIMEZONE_TRANSITIONS,
} from "./feed-bounds.js";
import { splitLine, withoutEmptyParameters } from "./lenient-values.js";

/** One logical (unfolded) content line and the 1-based feed line it starts on. */
export interface ContentLine {
  readonly text: string;
  readonly line: number;
}

/** A top-level component: its name (upper case), its BEGIN line, and every line between BEGIN and END, nested ones included. */
export interface LexedComponent {
  readonly name: string;
  readonly line: number;
  readonly lines: readonly ContentLine[];
}

/**
 * Feed text: the whole of it, or pieces of it in feed order, each with the
 * line it starts on, so a build that reads only some components (the ones a
 * reload changed, docs/decisions.md, "Rebuilds in proportion to the change")
 * reports the lines of the whole feed. Each piece holds whole lines.
 */
export type FeedText = string | readonly TextPiece[];

/** Some whole lines of a feed, and the 1-based line of the first. */
export interface TextPiece {
  readonly text: string;
  readonly firstLine: number;
}

/**
 * Where a top-level component stood: its BEGIN line and the line of its
 * own END, undefined when something else closed it (a missing END). Given
 * for every component the lexer closes, those a cap refused included.
 */
export interface ComponentBounds {
  readonly name: string;
  readonly line: number;
  readonly endLine?: number;
}

/**
 * A content line RFC 5545 §3.1 can lex: a name, parameters whose values are
 * quoted or free of `";:,`, then a colon. The value may be anything.
 */
const CONTENT_LINE = /^[A-Za-z0-9-]+(?:;[A-Za-z0-9-]+=(?:"[^"]*"|[^";:,]*)(?:,(?:"[^"]*"|[^";:,]*))*)*:/;

/** BEGIN or END of a component, and its name. */
const BOUNDARY = /^(BEGIN|END):([A-Za-z0-9-]+)\s*$/i;
/** What ical.js takes for BEGIN or END, whatever follows the colon. */
const LOOSE_BOUNDARY = /^(BEGIN|END):/i;
const CALENDAR_BEGIN = /^BEGIN:VCALENDAR\s*$/i;
/** BEGIN:VCALENDAR with whitespace before it, as some exporters indent it. */
const INDENTED_CALENDAR = /^\s+BEGIN:VCALENDAR\s*$/i;

/** Components that only ever stand directly in a VCALENDAR (RFC 5545 §3.6): one never opens inside another. */
const TOP_LEVEL = new Set(["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "VAVAILABILITY"]);

/** A top-level component being read, and what the caps have counted of it. */
interface OpenComponent {
  readonly name: string;
  readonly line: number;
  lines: ContentLine[];
  /** The open components, this one first; never deeper than MAX_COMPONENT_DEPTH allows. */
  readonly stack: string[];
  /** Components opened past MAX_COMPONENT_DEPTH and not yet closed: their lines are skipped. */
  tooDeep: number;
  /** Properties kept, RDATE and EXDATE values apart (MAX_PROPERTIES_PER_COMPONENT). */
  properties: number;
  rdates: number;
  exdates: number;
  /** A VTIMEZONE's listed transitions: each observance's DTSTART and RDATE values. */
  transitions: number;
  /** Set once a cap refuses the whole component: its later lines are not kept, and it is not given. */
  refused: boolean;
  /** Whether RDATES_CAPPED or NESTING_CAPPED was reported for it (once each). */
  rdatesCut: boolean;
  nestingCut: boolean;
}

function opened(name: string, line: number): OpenComponent {
  return {
    name,
    line,
    lines: [],
    stack: [name],
    tooDeep: 0,
    properties: 0,
    rdates: 0,
    exdates: 0,
    transitions: 0,
    refused: false,
    rdatesCut: false,
    nestingCut: false,
  };
}

/**
 * Splits the text into components, each given as soon as it ends (so a
 * reader that is done with one lets it go); returns the VCALENDAR's own
 * properties (of every VCALENDAR, in order). What it cannot use, and what a
 * cap cuts, is reported into `diagnostics`; where each component stood, to
 * `bounds` when given.
 */
export function* lexFeed(
  text: FeedText,
  diagnostics: DiagnosticSink,
  bounds?: (component: ComponentBounds) => void,
): Generator<LexedComponent, readonly ContentLine[]> {
  const calendarLines: ContentLine[] = [];
  let calendarCapped = false;
  let phase: "before" | "inside" | "after" = "before";
  let open: OpenComponent | undefined;
  let textAfterReported = false;
  /** Whitespace (blank lines, spaces) seen before anything else. */
  let leadingWhitespace = false;
  let seenText = false;
  const placeOf = (component: OpenComponent) => ({ uid: uidOf(component.lines), line: component.line });
  /** Closes the open component (at the line of its own END, when that closed it); gives it unless a cap refused it. */
  const close = (endLine?: number): LexedComponent | undefined => {
    const closing = open;
    open = undefined;
    if (closing === undefined) return undefined;
    bounds?.({ name: closing.name, line: closing.line, endLine });
    return closing.refused ? undefined : { name: closing.name, line: closing.line, lines: closing.lines };
  };
  const refuse = (component: OpenComponent, code: DiagnosticCode, message: string) => {
    const tzid = component.name === "VTIMEZONE" ? tzidOf(component.lines) : undefined;
    const named = tzid === undefined ? message : `VTIMEZONE ${tzid}: ${message}`;
    diagnostics.push(diagnostic(code, named, placeOf(component)));
    component.refused = true;
    component.lines = [];
  };

  /** Reads one logical line; gives the component it closes, if any. */
  const take = (content: ContentLine): LexedComponent | undefined => {
    const { line } = content;
    let row = content.text;
    // The lines a cap already refused or cut are dropped first: a million of them cost no more than this.
    if (open !== undefined && (open.refused || open.rdatesCut)) {
      const initial = row.charCodeAt(0) | 0x20;
      if (initial !== 0x62 && initial !== 0x65 && (open.refused || (open.stack.length === 1 && listedName(row) === "RDATE"))) return;
    }
    if (phase === "before" && open === undefined && !seenText) {
      // Blank rows before the first line are not lines at all: the first one's number tells.
      if (line > 1) leadingWhitespace = true;
      if (row.trim() === "") {
        leadingWhitespace = true;
        return;
      }
      seenText = true;
      if (INDENTED_CALENDAR.test(row)) {
        leadingWhitespace = true;
        row = row.trim();
        content = { text: row, line };
      }
      if (leadingWhitespace && CALENDAR_BEGIN.test(row)) {
        diagnostics.push(diagnostic("LENIENT_SYNTAX", "whitespace before BEGIN:VCALENDAR was ignored", { line }));
      }
    }
    // Only a line starting with B or E can open or close a component.
    const initial = row.charCodeAt(0) | 0x20;
    const boundary = initial === 0x62 || initial === 0x65 ? BOUNDARY.exec(row) : null;
    // "End: 5pm" (a description's line that lost its fold): ical.js would close a component at it.
    const strayBoundary = boundary === null && (initial === 0x62 || initial === 0x65) && LOOSE_BOUNDARY.test(row);
    if (!strayBoundary && !CONTENT_LINE.test(row)) {
      // DTSTART;;VALUE=DATE:...: an empty parameter is dropped, the line kept.
      const mended = withoutEmptyParameters(row);
      if (mended !== undefined && CONTENT_LINE.test(mended)) {
        diagnostics.push(
          diagnostic(
            "LENIENT_SYNTAX",
            `line ${line} has an empty parameter (";;" or ";:"); it was ignored`,
            open === undefined ? { line } : placeOf(open),
          ),
        );
        row = mended;
        content = { text: row, line };
      }
    }
    if (strayBoundary || !CONTENT_LINE.test(row)) {
      if (open === undefined && phase !== "inside") {
        if (phase === "after" && !textAfterReported) {
          textAfterReported = true;
          diagnostics.push(diagnostic("TEXT_AFTER_END", "text after END:VCALENDAR was ignored", { line }));
        }
        return;
      }
      if (open?.refused === true || (open?.tooDeep ?? 0) > 0) return;
      diagnostics.push(
        diagnostic(
          "UNREADABLE_LINE",
          strayBoundary
            ? `line ${line} reads as ${row.slice(0, row.indexOf(":")).toUpperCase()} but names no component (a line of text that lost its fold?); only that line was left out`
            : `line ${line} could not be read (no name and colon, or an unbalanced quote); only that line was left out`,
          open === undefined ? { line } : placeOf(open),
        ),
      );
      return;
    }
    const begin = boundary !== null && boundary[1].length === 5 ? boundary[2].toUpperCase() : undefined;
    const end = boundary !== null && boundary[1].length === 3 ? boundary[2].toUpperCase() : undefined;
    if (begin === "VCALENDAR" && open === undefined) {
      if (phase === "after") {
        diagnostics.push(diagnostic("OUTSIDE_CALENDAR", "a second VCALENDAR follows the first; its components were read too", { line }));
      }
      phase = "inside";
      return;
    }
    if (end === "VCALENDAR") {
      if (open !== undefined && !open.refused) {
        diagnostics.push(
          diagnostic("UNREADABLE_LINE", `END:${open.name} is missing; the component was closed at END:VCALENDAR`, placeOf(open)),
        );
      }
      phase = "after";
      return open === undefined ? undefined : close();
    }
    if (open === undefined) {
      if (begin !== undefined) {
        if (phase !== "inside") {
          diagnostics.push(
            diagnostic("OUTSIDE_CALENDAR", `BEGIN:${begin} is outside any VCALENDAR; the component was read anyway`, { line }),
          );
        }
        open = opened(begin, line);
      } else if (phase === "inside") {
        if (end !== undefined) return;
        if (calendarLines.length < MAX_PROPERTIES_PER_COMPONENT) calendarLines.push(content);
        else if (!calendarCapped) {
          calendarCapped = true;
          diagnostics.push(
            diagnostic(
              "PROPERTIES_CAPPED",
              `the VCALENDAR has more than ${MAX_PROPERTIES_PER_COMPONENT} properties of its own; those from line ${line} on were ignored`,
              { line },
            ),
          );
        }
      } else if (phase === "after" && !textAfterReported) {
        textAfterReported = true;
        diagnostics.push(diagnostic("TEXT_AFTER_END", "text after END:VCALENDAR was ignored", { line }));
      }
      return;
    }
    if (begin !== undefined && TOP_LEVEL.has(begin)) {
      // BEGIN:VEVENT inside a VEVENT (or any component): the open one's END was lost.
      if (!open.refused) {
        diagnostics.push(
          diagnostic("UNREADABLE_LINE", `END:${open.name} is missing; the component was closed at the next BEGIN:${begin}`, placeOf(open)),
        );
      }
      const closed = close();
      open = opened(begin, line);
      return closed;
    }
    if (open.tooDeep > 0) {
      if (begin !== undefined) open.tooDeep++;
      else if (end !== undefined) open.tooDeep--;
      return;
    }
    if (begin !== undefined) {
      // The VCALENDAR, the open stack, then this one.
      if (open.stack.length + 2 > MAX_COMPONENT_DEPTH) {
        open.tooDeep = 1;
        if (!open.nestingCut && !open.refused) {
          open.nestingCut = true;
          diagnostics.push(
            diagnostic(
              "NESTING_CAPPED",
              `BEGIN:${begin} on line ${line} nests components more than ${MAX_COMPONENT_DEPTH} deep; it was left out with everything in it`,
              placeOf(open),
            ),
          );
        }
        return;
      }
      open.stack.push(begin);
      if (open.name === "VTIMEZONE" && open.stack.length === 2 && !open.refused) {
        // Each observance's DTSTART is one transition.
        countTransitions(open, 1);
      }
      if (!open.refused) open.lines.push(content);
      return;
    }
    if (end !== undefined) {
      const depth = open.stack.lastIndexOf(end);
      if (depth === -1) {
        if (!open.refused) {
          diagnostics.push(
            diagnostic("UNREADABLE_LINE", `END:${end} on line ${line} matches no BEGIN; only that line was left out`, placeOf(open)),
          );
        }
        return;
      }
      if (depth === 0) return close(line);
      // Nested components whose END was lost end here with their parent.
      if (!open.refused) {
        for (let unclosed = open.stack.length - 1; unclosed > depth; unclosed--) {
          open.lines.push({ text: `END:${open.stack[unclosed]}`, line });
        }
        open.lines.push(content);
      }
      open.stack.length = depth;
      return;
    }
    if (!open.refused) keepProperty(open, content);
  };

  /** Counts a VTIMEZONE's transitions; past the cap, the VTIMEZONE is refused. */
  const countTransitions = (component: OpenComponent, count: number) => {
    component.transitions += count;
    if (component.transitions > MAX_TIMEZONE_TRANSITIONS) {
      refuse(
        component,
        "TIMEZONE_TRANSITIONS_CAPPED",
        `it lists more than ${MAX_TIMEZONE_TRANSITIONS} transitions; it was not used, and its TZID was read as if it were absent`,
      );
    }
  };

  /** Keeps one property of an open component, unless a cap cuts it or refuses the component. */
  const keepProperty = (component: OpenComponent, content: ContentLine) => {
    const listed = listedName(content.text);
    const own = component.stack.length === 1;
    if (listed !== undefined && component.name === "VEVENT" && own) {
      if (listed === "RDATE") {
        const room = MAX_RDATES_PER_EVENT - component.rdates;
        const values = room > 0 ? valuesOf(content.text) : undefined;
        if (values !== undefined && values.length <= room) {
          component.rdates += values.length;
          component.lines.push(content);
          return;
        }
        if (values !== undefined) {
          component.rdates = MAX_RDATES_PER_EVENT;
          component.lines.push({ text: `${values.head}:${values.list.slice(0, room).join(",")}`, line: content.line });
        }
        if (!component.rdatesCut) {
          component.rdatesCut = true;
          diagnostics.push(
            diagnostic(
              "RDATES_CAPPED",
              `the event lists more than ${MAX_RDATES_PER_EVENT} RDATE values; the first ${MAX_RDATES_PER_EVENT} were kept, the rest (from line ${content.line} on) left out`,
              placeOf(component),
            ),
          );
        }
        return;
      }
      component.exdates += valuesOf(content.text).length;
      if (component.exdates > MAX_EXDATES_PER_EVENT) {
        refuse(
          component,
          "EXDATES_CAPPED",
          `the event lists more than ${MAX_EXDATES_PER_EVENT} EXDATE values; it was left out rather than served on dates it excludes`,
        );
        return;
      }
      component.lines.push(content);
      return;
    }
    if (listed === "RDATE" && component.name === "VTIMEZONE" && component.stack.length === 2) {
      countTransitions(component, valuesOf(content.text).length);
      if (!component.refused) component.lines.push(content);
      return;
    }
    if (++component.properties > MAX_PROPERTIES_PER_COMPONENT) {
      refuse(
        component,
        "PROPERTIES_CAPPED",
        `the ${component.name} holds more than ${MAX_PROPERTIES_PER_COMPONENT} properties (line ${content.line} is past the cap); it was left out`,
      );
      return;
    }
    component.lines.push(content);
  };

  /** A misspelled END:VCALENDAR held back: read as END:VCALENDAR only when it is the feed's last line. */
  let misspelledEnd: ContentLine | undefined;
  for (const content of logicalLines(text)) {
    if (misspelledEnd !== undefined) {
      if (content.text.trim() === "") continue;
      const held = take(misspelledEnd);
      misspelledEnd = undefined;
      if (held !== undefined) yield held;
    }
    if (misspelledCalendarEnd(content.text)) {
      misspelledEnd = content;
      continue;
    }
    const closed = take(content);
    if (closed !== undefined) yield closed;
  }
  if (misspelledEnd !== undefined) {
    const { text: written, line } = misspelledEnd;
    diagnostics.push(
      diagnostic("LENIENT_SYNTAX", `"${written.trim().slice(0, 40)}", the feed's last line (line ${line}), was read as END:VCALENDAR`, {
        line,
      }),
    );
    const closed = take({ text: "END:VCALENDAR", line });
    if (closed !== undefined) yield closed;
  }
  if (open !== undefined && !open.refused) {
    diagnostics.push(diagnostic("FEED_TRUNCATED", `the feed ends inside this ${open.name}; it was left out`, placeOf(open)));
  }
  return calendarLines;
}

/** RDATE or EXDATE, when a line is one of them (compared by character: a feed may hold a million of them). */
function listedName(text: string): "RDATE" | "EXDATE" | undefined {
  if (startsWithName(text, "RDATE")) return "RDATE";
  if (startsWithName(text, "EXDATE")) return "EXDATE";
  return undefined;
}

/** Whether the line's name is `name` (upper case), in any case, followed by its parameters or value. */
function startsWithName(text: string, name: string): boolean {
  const next = text.charCodeAt(name.length);
  if (next !== 0x3b && next !== 0x3a) return false;
  for (let i = 0; i < name.length; i++) {
    if ((text.charCodeAt(i) & 0xdf) !== name.charCodeAt(i)) return false;
  }
  return true;
}

/** A list property's name and parameters (`head`) and its comma-separated values. */
function valuesOf(text: string): { readonly head: string; readonly list: readonly string[]; readonly length: number } {
  const split = splitLine(text);
  if (split === undefined) return { head: text, list: [], length: 0 };
  const list = split.value.split(",");
  return { head: `${split.name}${split.params}`, list, length: list.length };
}

/** END:VCALENDAR as it is misspelled (END:VCALENDER, END:VCALENDAR1, END:CALENDAR): a name within two edits of VCALENDAR, not VCALENDAR itself. */
function misspelledCalendarEnd(text: string): boolean {
  if ((text.charCodeAt(0) | 0x20) !== 0x65) return false;
  const name = /^END:([A-Za-z0-9-]{7,11})\s*$/i.exec(text)?.[1].toUpperCase();
  return name !== undefined && name !== "VCALENDAR" && editDistance(name, "VCALENDAR") <= 2;
}

/** Levenshtein distance of two short strings. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * Whether the text closes its last VCALENDAR, as lexFeed reads it: its last
 * VCALENDAR boundary is an END, or its last line is a misspelled
 * END:VCALENDAR. A feed that does not is cut short (feeds/feed-read.ts).
 */
export function closesCalendar(text: string): boolean {
  let last: string | undefined;
  // BEGIN:VCALENDAR may be indented (whitespace before it is read with a warning).
  for (const match of text.matchAll(/^([ \t]*BEGIN|END):VCALENDAR[ \t]*\r?$/gim)) last = match[1].trim().toUpperCase();
  if (last === "END") return true;
  const trimmed = text.trimEnd();
  const lastLine = trimmed.slice(Math.max(trimmed.lastIndexOf("\n"), trimmed.lastIndexOf("\r")) + 1);
  return last === "BEGIN" && misspelledCalendarEnd(lastLine);
}

/** The TZID a VTIMEZONE's lines name, for diagnostics. */
function tzidOf(lines: readonly ContentLine[]): string | undefined {
  for (const { text } of lines) {
    const match = /^TZID(?:;[^:]*)?:(.*)$/i.exec(text);
    if (match !== null) return match[1].trim();
  }
  return undefined;
}

/** The UID of a component's lines, for diagnostics. */
export function uidOf(lines: readonly ContentLine[]): string | undefined {
  for (const { text } of lines) {
    const match = /^UID(?:;[^:]*)?:(.*)$/i.exec(text);
    if (match !== null) return match[1].trim();
  }
  return undefined;
}

/**
 * Unfolds the text (RFC 5545 §3.1) into logical lines, each with the feed
 * line it starts on; blank lines are skipped. Pieces are read one after the
 * other, each numbered from its own first line.
 */
function* logicalLines(text: FeedText): Generator<ContentLine> {
  let current: string | undefined;
  let currentLine = 0;
  /** Whether `current` is blank or whitespace only: nothing folds onto it (an indented BEGIN:VCALENDAR after it is a line of its own). */
  let currentBlank = true;
  const pieces =
    typeof text === "string"
      ? [{ text, firstLine: 1 }]
      : text.map(({ text: part, firstLine }) => ({ text: withoutLastBreak(part), firstLine }));
  for (const piece of pieces) {
    let line = piece.firstLine - 1;
    for (const row of feedRows(piece.text)) {
      line++;
      const indented = row.startsWith(" ") || row.startsWith("\t");
      if (indented && !currentBlank) {
        current += row.slice(1);
        continue;
      }
      if (current !== undefined && current !== "") yield { text: current, line: currentLine };
      current = row;
      currentLine = line;
      currentBlank = row === "" || (indented && row.trim() === "");
    }
  }
  if (current !== undefined && current !== "") yield { text: current, line: currentLine };
}

/** A piece's text without the break that ends its last line: the next piece's first row follows that line, as in the whole text. */
function withoutLastBreak(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  return text.endsWith("\n") || text.endsWith("\r") ? text.slice(0, -1) : text;
}

/**
 * The text's rows between CRLF, LF or CR breaks, one at a time (as
 * `text.split(/\r\n|\n|\r/)` would give them, but never all held at once).
 */
export function* feedRows(text: string): Generator<string> {
  for (let at = 0; ; ) {
    const newline = text.indexOf("\n", at);
    const end = newline === -1 ? text.length : newline;
    const last = end > at && text.charCodeAt(end - 1) === 13 && newline !== -1 ? end - 1 : end;
    const chunk = text.slice(at, last);
    // A CR alone (old Mac line ends) breaks rows too.
    if (chunk.includes("\r")) yield* chunk.split("\r");
    else yield chunk;
    if (newline === -1) return;
    at = newline + 1;
  }
}

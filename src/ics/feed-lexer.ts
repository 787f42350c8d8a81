/**
 * Feed text to content lines grouped by component, before ical.js sees any
 * of it (issue 9). ical.js fails a whole text on one line it cannot lex (a
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
 * - a component the text ends inside is left out (FEED_TRUNCATED).
 */
import { type Diagnostic, diagnostic } from "./diagnostic.js";

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
 * A content line RFC 5545 §3.1 can lex: a name, parameters whose values are
 * quoted or free of `";:,`, then a colon. The value may be anything.
 */
const CONTENT_LINE = /^[A-Za-z0-9-]+(?:;[A-Za-z0-9-]+=(?:"[^"]*"|[^";:,]*)(?:,(?:"[^"]*"|[^";:,]*))*)*:/;

/** BEGIN or END of a component, and its name. */
const BOUNDARY = /^(BEGIN|END):([A-Za-z0-9-]+)\s*$/i;
/** What ical.js takes for BEGIN or END, whatever follows the colon. */
const LOOSE_BOUNDARY = /^(BEGIN|END):/i;

/** Components that only ever stand directly in a VCALENDAR (RFC 5545 §3.6): one never opens inside another. */
const TOP_LEVEL = new Set(["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "VAVAILABILITY"]);

/**
 * Splits the text into components, each given as soon as it ends (so a
 * reader that is done with one lets it go); returns the VCALENDAR's own
 * properties (of every VCALENDAR, in order). What it cannot use is reported
 * into `diagnostics`.
 */
export function* lexFeed(text: string, diagnostics: Diagnostic[]): Generator<LexedComponent, readonly ContentLine[]> {
  const calendarLines: ContentLine[] = [];
  let phase: "before" | "inside" | "after" = "before";
  let open: { name: string; line: number; lines: ContentLine[]; stack: string[] } | undefined;
  let textAfterReported = false;
  function* close(): Generator<LexedComponent> {
    const closing = open;
    open = undefined;
    if (closing !== undefined) yield { name: closing.name, line: closing.line, lines: closing.lines };
  }

  for (const content of logicalLines(text)) {
    const { text: row, line } = content;
    // Only a line starting with B or E can open or close a component.
    const initial = row.charCodeAt(0) | 0x20;
    const boundary = initial === 0x62 || initial === 0x65 ? BOUNDARY.exec(row) : null;
    // "End: 5pm" (a description's line that lost its fold): ical.js would close a component at it.
    const strayBoundary = boundary === null && (initial === 0x62 || initial === 0x65) && LOOSE_BOUNDARY.test(row);
    if (strayBoundary || !CONTENT_LINE.test(row)) {
      if (open === undefined && phase !== "inside") {
        if (phase === "after" && !textAfterReported) {
          textAfterReported = true;
          diagnostics.push(diagnostic("TEXT_AFTER_END", "text after END:VCALENDAR was ignored", { line }));
        }
        continue;
      }
      diagnostics.push(
        diagnostic(
          "UNREADABLE_LINE",
          strayBoundary
            ? `line ${line} reads as ${row.slice(0, row.indexOf(":")).toUpperCase()} but names no component (a line of text that lost its fold?); only that line was left out`
            : `line ${line} could not be read (no name and colon, or an unbalanced quote); only that line was left out`,
          open === undefined ? { line } : { uid: uidOf(open.lines), line: open.line },
        ),
      );
      continue;
    }
    const begin = boundary !== null && boundary[1].length === 5 ? boundary[2].toUpperCase() : undefined;
    const end = boundary !== null && boundary[1].length === 3 ? boundary[2].toUpperCase() : undefined;
    if (begin === "VCALENDAR" && open === undefined) {
      if (phase === "after") {
        diagnostics.push(diagnostic("OUTSIDE_CALENDAR", "a second VCALENDAR follows the first; its components were read too", { line }));
      }
      phase = "inside";
      continue;
    }
    if (end === "VCALENDAR") {
      if (open !== undefined) {
        diagnostics.push(
          diagnostic("UNREADABLE_LINE", `END:${open.name} is missing; the component was closed at END:VCALENDAR`, {
            uid: uidOf(open.lines),
            line: open.line,
          }),
        );
        yield* close();
      }
      phase = "after";
      continue;
    }
    if (open === undefined) {
      if (begin !== undefined) {
        if (phase !== "inside") {
          diagnostics.push(
            diagnostic("OUTSIDE_CALENDAR", `BEGIN:${begin} is outside any VCALENDAR; the component was read anyway`, { line }),
          );
        }
        open = { name: begin, line, lines: [], stack: [begin] };
      } else if (phase === "inside") {
        if (end === undefined) calendarLines.push(content);
      } else if (phase === "after" && !textAfterReported) {
        textAfterReported = true;
        diagnostics.push(diagnostic("TEXT_AFTER_END", "text after END:VCALENDAR was ignored", { line }));
      }
      continue;
    }
    if (begin !== undefined && TOP_LEVEL.has(begin)) {
      // BEGIN:VEVENT inside a VEVENT (or any component): the open one's END was lost.
      diagnostics.push(
        diagnostic("UNREADABLE_LINE", `END:${open.name} is missing; the component was closed at the next BEGIN:${begin}`, {
          uid: uidOf(open.lines),
          line: open.line,
        }),
      );
      yield* close();
      open = { name: begin, line, lines: [], stack: [begin] };
      continue;
    }
    if (begin !== undefined) {
      open.stack.push(begin);
      open.lines.push(content);
      continue;
    }
    if (end !== undefined) {
      const depth = open.stack.lastIndexOf(end);
      if (depth === -1) {
        diagnostics.push(
          diagnostic("UNREADABLE_LINE", `END:${end} on line ${line} matches no BEGIN; only that line was left out`, {
            uid: uidOf(open.lines),
            line: open.line,
          }),
        );
        continue;
      }
      if (depth === 0) {
        yield* close();
        continue;
      }
      // Nested components whose END was lost end here with their parent.
      for (let unclosed = open.stack.length - 1; unclosed > depth; unclosed--) {
        open.lines.push({ text: `END:${open.stack[unclosed]}`, line });
      }
      open.stack.length = depth;
      open.lines.push(content);
      continue;
    }
    open.lines.push(content);
  }
  if (open !== undefined) {
    diagnostics.push(
      diagnostic("FEED_TRUNCATED", `the feed ends inside this ${open.name}; it was left out`, { uid: uidOf(open.lines), line: open.line }),
    );
  }
  return calendarLines;
}

/** The UID of a component's lines, for diagnostics. */
export function uidOf(lines: readonly ContentLine[]): string | undefined {
  for (const { text } of lines) {
    const match = /^UID(?:;[^:]*)?:(.*)$/i.exec(text);
    if (match !== null) return match[1].trim();
  }
  return undefined;
}

/** Unfolds the text (RFC 5545 §3.1) into logical lines, each with the feed line it starts on; blank lines are skipped. */
function* logicalLines(text: string): Generator<ContentLine> {
  let current: string | undefined;
  let currentLine = 0;
  let line = 0;
  for (const row of feedRows(text)) {
    line++;
    if ((row.startsWith(" ") || row.startsWith("\t")) && current !== undefined) {
      current += row.slice(1);
      continue;
    }
    if (current !== undefined && current !== "") yield { text: current, line: currentLine };
    current = row;
    currentLine = line;
  }
  if (current !== undefined && current !== "") yield { text: current, line: currentLine };
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

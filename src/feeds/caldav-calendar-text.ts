/**
 * A CalDAV collection as one feed text. Each calendar object resource is a
 * VCALENDAR of its own (RFC 4791 §4.1); today's ingest reads one feed, so
 * the resources are combined into one VCALENDAR: every VTIMEZONE once (the
 * first by href, per TZID) before every other component, the components in
 * href order, each resource's lines as its producer folded them. The same
 * resources give the same bytes, so an unchanged collection has an
 * unchanged digest.
 *
 * The resources' own calendar properties (PRODID, METHOD, X-WR-*) are left
 * out: they describe one resource, not the calendar.
 */

/** Lines of a resource as one piece of text: each line ends in CRLF. */
export interface TextBlock {
  readonly text: string;
  /** How many lines `text` holds. */
  readonly lines: number;
}

/**
 * A resource's text split into what the combined calendar takes from it,
 * already joined, so combining a collection of thousands of resources
 * joins one or two strings per resource, not every line.
 */
export interface ResourceParts {
  /** VTIMEZONE components, each with its TZID. */
  readonly zones: readonly (TextBlock & { readonly tzid: string })[];
  /** Every other top-level component (VEVENT, VTODO, ...), in the resource's order. */
  readonly body: TextBlock;
}

/** One combined calendar: its text, and which resource each line came from. */
export interface CombinedCalendar {
  readonly text: string;
  /** The href of the resource whose component holds 1-based `line` of `text` (where ingest diagnostics point); undefined for the calendar's own lines. */
  hrefAt(line: number): string | undefined;
}

/** Why a resource's text is not a calendar object resource; safe to show an operator (it never quotes the text). */
export class ResourceTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResourceTextError";
  }
}

const BOUNDARY = /^(BEGIN|END):([A-Za-z0-9-]+)[ \t]*$/i;

/**
 * Splits one resource's iCalendar text. Throws ResourceTextError when it is
 * not one complete VCALENDAR whose components all end.
 */
export function splitResource(text: string): ResourceParts {
  const physical = text.split(/\r\n|\n|\r/);
  const zones: (TextBlock & { tzid: string })[] = [];
  const body: string[] = [];
  let phase: "before" | "inside" | "after" = "before";
  let open: { lines: string[]; stack: string[]; tzid?: string } | undefined;
  for (let at = 0; at < physical.length; ) {
    // A logical line and its continuation lines (RFC 5545 §3.1).
    let end = at + 1;
    while (end < physical.length && (physical[end].startsWith(" ") || physical[end].startsWith("\t"))) end++;
    const lines = physical.slice(at, end);
    at = end;
    const logical = lines.length === 1 ? lines[0] : lines.map((line, index) => (index === 0 ? line : line.slice(1))).join("");
    if (logical.trim() === "" && open === undefined) continue;
    const boundary = BOUNDARY.exec(logical);
    const kind = boundary?.[1].toUpperCase();
    const name = boundary?.[2].toUpperCase();
    if (phase === "before") {
      if (kind !== "BEGIN" || name !== "VCALENDAR") throw new ResourceTextError("the text does not begin with BEGIN:VCALENDAR");
      phase = "inside";
    } else if (phase === "after") {
      throw new ResourceTextError("the text goes on after END:VCALENDAR");
    } else if (open === undefined) {
      if (kind === "END" && name === "VCALENDAR") phase = "after";
      else if (kind === "BEGIN" && name !== undefined) open = { lines: [...lines], stack: [name] };
      else if (kind === "END") throw new ResourceTextError(`END:${name} closes no component`);
    } else {
      open.lines.push(...lines);
      if (kind === "BEGIN" && name !== undefined) open.stack.push(name);
      else if (kind === "END") {
        if (open.stack.pop() !== name) throw new ResourceTextError(`END:${name} does not close the open component`);
        if (open.stack.length === 0) {
          if (open.lines[0].toUpperCase().startsWith("BEGIN:VTIMEZONE")) zones.push({ tzid: open.tzid ?? "", ...block(open.lines) });
          else body.push(...open.lines);
          open = undefined;
        }
      } else if (open.stack.length === 1 && open.tzid === undefined && /^TZID[;:]/i.test(logical)) {
        open.tzid = logical.slice(logical.indexOf(":") + 1).trim();
      }
    }
  }
  if (phase !== "after") throw new ResourceTextError("the text does not end its VCALENDAR with END:VCALENDAR");
  return { zones, body: block(body) };
}

function block(lines: readonly string[]): TextBlock {
  return { text: lines.length === 0 ? "" : `${lines.join("\r\n")}\r\n`, lines: lines.length };
}

/** The calendar's own lines around the components. */
const HEAD = block(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calq//CalDAV collection//EN"]);
const TAIL = block(["END:VCALENDAR"]);

/**
 * One VCALENDAR of `resources`, in href order (code-unit order, so the
 * result does not depend on the order given). Lines end in CRLF.
 */
export function combineResources(resources: Iterable<readonly [href: string, parts: ResourceParts]>): CombinedCalendar {
  const ordered = [...resources].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: string[] = [HEAD.text];
  let nextLine = HEAD.lines + 1;
  /** Where each resource's lines start, ascending: [first line (1-based), href]; the calendar's own lines map to undefined. */
  const starts: [number, string | undefined][] = [];
  const append = (href: string, piece: TextBlock) => {
    if (piece.lines === 0) return;
    starts.push([nextLine, href]);
    out.push(piece.text);
    nextLine += piece.lines;
  };
  const zones = new Set<string>();
  for (const [href, parts] of ordered) {
    for (const zone of parts.zones) {
      if (zones.has(zone.tzid)) continue;
      zones.add(zone.tzid);
      append(href, zone);
    }
  }
  for (const [href, parts] of ordered) append(href, parts.body);
  starts.push([nextLine, undefined]);
  out.push(TAIL.text);
  return {
    text: out.join(""),
    hrefAt(line) {
      let low = 0;
      let high = starts.length - 1;
      let found: string | undefined;
      while (low <= high) {
        const middle = (low + high) >> 1;
        if (starts[middle][0] <= line) {
          found = starts[middle][1];
          low = middle + 1;
        } else high = middle - 1;
      }
      return found;
    },
  };
}

/**
 * An immutable snapshot of one calendar: its feed read, expanded and indexed
 * at one moment. Every page of a search reads one snapshot; a reload makes a
 * new one and never touches the old.
 */
import { randomBytes } from "node:crypto";
import { byKey, type VersionTable, versionTable } from "../expand/event-versions.js";
import { type ExpandedCalendar, type ExpansionLimits, expandCalendarSteps } from "../expand/expand-calendar.js";
import { compareOccurrences, type Occurrence } from "../expand/occurrence.js";
import type { SeriesTail } from "../expand/series-tail.js";
import type { Availability } from "../ics/availability.js";
import { type Diagnostic, diagnostic, inFeedOrder } from "../ics/diagnostic.js";
import type { ComponentBounds, FeedText } from "../ics/feed-lexer.js";
import { parseCalendarSteps } from "../ics/parse-calendar.js";
import { IntervalIndex } from "../index/interval-index.js";
import type { SearchableOccurrences } from "../search/search-occurrences.js";
import { runAtOnce, type Steps } from "../stepwise.js";
import { UTC_ZONE, type ZoneRules } from "../time/zone-rules.js";
import { ianaZone } from "../time/zones.js";
import type { BuildReport } from "./build-report.js";

/** Where a calendar's zone came from: config, else X-WR-TIMEZONE, else UTC (docs/decisions.md, "Calendar zone"). */
export type ZoneSource = "config" | "feed" | "default";

export interface Snapshot extends SearchableOccurrences {
  /** Opaque: the digest of the feed's bytes and how they were read (ingest/content-id.ts), else random per load. */
  readonly id: string;
  readonly calendarId: string;
  /** The calendar's zone: floating times and all-day days are read in it. */
  readonly zone: ZoneRules;
  readonly zoneSource: ZoneSource;
  /** When the feed text was read (epoch ms). */
  readonly dataAsOf: number;
  /** In feed order (inFeedOrder): by line, then those about the whole feed. */
  readonly diagnostics: readonly Diagnostic[];
  readonly eventCount: number;
  /** Each event's version, in key order: what ChangesSince compares between snapshots. */
  readonly versions: VersionTable;
  /**
   * True when the feed was cut (no END:VCALENDAR) and had never loaded
   * whole: its complete components are served, the calendar is shown stale,
   * and the next complete read replaces them (docs/imperfect-feeds.md, the cut-feed row).
   */
  readonly partial?: boolean;
  /** The feed's VAVAILABILITY (RFC 7953): its owner's working hours, as meeting times read them; absent when it has none. */
  readonly availability?: readonly Availability[];
  /** How an ingest worker built it: whole, or from the calendar's previous snapshot (absent for a build on this thread). */
  readonly build?: BuildReport;
}

export interface SnapshotInput {
  readonly calendarId: string;
  /** The zone configured for the calendar, if any (already validated). */
  readonly configuredZone?: string;
  readonly limits: ExpansionLimits;
  readonly readAt: number;
  /** VEVENTs read at most; by default all. */
  readonly maxComponents?: number;
  /** What turning the feed's bytes into text found (e.g. INVALID_UTF8). */
  readonly decoding?: readonly Diagnostic[];
  /**
   * The digest of the bytes and the reading configuration (ingest's
   * snapshotContentId), used as the snapshot's id; without it the id is random.
   */
  readonly contentId?: string;
  /** The text was cut before END:VCALENDAR: build its complete components and mark the snapshot partial. */
  readonly partial?: boolean;
}

/**
 * Feed text handed over to a build: the build takes it out when it starts
 * parsing, so once parsed nothing holds it (a 100k-event feed's text is about
 * 20 MiB) while the build expands and indexes. A caller that passes a plain
 * string keeps its own hold.
 */
export interface HandedText {
  text?: FeedText;
}

function takeText(source: FeedText | HandedText): FeedText {
  if (!isHanded(source)) return source;
  const { text } = source;
  if (text === undefined) throw new Error("feed text handed to a build was already taken");
  source.text = undefined;
  return text;
}

function isHanded(source: FeedText | HandedText): source is HandedText {
  return typeof source === "object" && !Array.isArray(source);
}

/** Parses, expands and indexes feed text, in one go. Throws NotICalendarError for non-iCalendar text. */
export function buildSnapshot(text: string | HandedText, input: SnapshotInput): Snapshot {
  return runAtOnce(buildSteps(text, input));
}

/** The build as steps: pauses while parsing and expanding, and before indexing. */
function* buildSteps(text: string | HandedText, input: SnapshotInput): Steps<Snapshot> {
  const read = yield* readFeedSteps(text, input);
  yield;
  const { expanded } = read;
  const index = new IntervalIndex<Occurrence>(expanded.occurrences, compareOccurrences);
  return {
    // Every cut of a build counts work, not time, and what a cut leaves out of
    // the index is expanded per query with the same answers: the content names it.
    id: input.contentId ?? randomBytes(9).toString("base64url"),
    calendarId: input.calendarId,
    zone: read.zone,
    zoneSource: read.zoneSource,
    dataAsOf: input.readAt,
    diagnostics: diagnosticsOf(read),
    eventCount: expanded.eventCount,
    versions: versionTable(byKey([...expanded.versions])),
    index,
    tails: [...expanded.tails].sort(byUidKey),
    ...(input.partial === true ? { partial: true } : {}),
    ...(read.availability === undefined ? {} : { availability: read.availability }),
  };
}

/**
 * A feed read into its calendar's zone and its events' occurrences, group
 * by group, before indexing: what both a snapshot built here and one packed
 * in an ingest worker are made of.
 */
export interface FeedRead {
  readonly zone: ZoneRules;
  readonly zoneSource: ZoneSource;
  /** What reading the text found, in the order reported: decoding, parsing, then the calendar's zone. */
  readonly readingDiagnostics: readonly Diagnostic[];
  /** ParsedCalendar.sharedReadings. */
  readonly sharedReadings: number;
  /** Where each top-level component stood, and the line and UID of each event read, when asked for. */
  readonly located?: {
    readonly bounds: readonly ComponentBounds[];
    /** Each event's BEGIN line, in feed order (ascending: one event a component). */
    readonly eventLines: Uint32Array;
    readonly eventUids: readonly string[];
  };
  readonly expanded: ExpandedCalendar;
  /** ParsedCalendar.availability: read from the text outside the VEVENTs, so every build reads it whole. */
  readonly availability?: readonly Availability[];
}

/**
 * Parses and expands feed text (all of it, or pieces of it; taken out of a
 * HandedText, so nothing here holds it once parsed); `locate` asks where
 * each component and event stood.
 */
export function* readFeedSteps(text: FeedText | HandedText, input: SnapshotInput, locate = false): Steps<FeedRead> {
  const parsed = yield* parseCalendarSteps(takeText(text), { maxComponents: input.maxComponents, bounds: locate });
  const located =
    parsed.bounds === undefined
      ? undefined
      : {
          bounds: parsed.bounds,
          eventLines: Uint32Array.from(parsed.events, (event) => event.line),
          eventUids: parsed.events.map((event) => event.uid),
        };
  const readingDiagnostics = [...(input.decoding ?? []), ...parsed.diagnostics];
  let zone: ZoneRules;
  let zoneSource: ZoneSource;
  const configured = input.configuredZone === undefined ? undefined : ianaZone(input.configuredZone);
  if (configured !== undefined) {
    zone = configured;
    zoneSource = "config";
  } else if (parsed.declaredZone !== undefined) {
    zone = parsed.declaredZone;
    zoneSource = "feed";
  } else {
    zone = UTC_ZONE;
    zoneSource = "default";
    readingDiagnostics.push(
      diagnostic(
        "NO_CALENDAR_ZONE",
        "neither calq.yaml nor the feed (X-WR-TIMEZONE) gives the calendar a zone; floating times and all-day days are read in UTC",
      ),
    );
  }
  yield;
  const expanded = yield* expandCalendarSteps(parsed.events, zone, input.limits);
  return {
    zone,
    zoneSource,
    readingDiagnostics,
    sharedReadings: parsed.sharedReadings,
    ...(located === undefined ? {} : { located }),
    expanded,
    ...(parsed.availability === undefined ? {} : { availability: parsed.availability }),
  };
}

/** Every diagnostic of a read, in feed order (inFeedOrder). */
export function diagnosticsOf(read: FeedRead): Diagnostic[] {
  return inFeedOrder([...read.readingDiagnostics, ...read.expanded.diagnostics, ...read.expanded.feedDiagnostics]);
}

/** Orders on-demand series by their UID digest: the order a snapshot keeps them in, whatever order they were read in. */
export function byUidKey(a: SeriesTail, b: SeriesTail): number {
  const keyA = a.uidKey ?? "";
  const keyB = b.uidKey ?? "";
  return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
}

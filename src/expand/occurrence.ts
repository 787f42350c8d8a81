/**
 * Occurrences: what expansion produces and the index stores. An occurrence is
 * the half-open interval of instants [start, end); start === end is a
 * zero-duration occurrence (an instant). Everything else it needs for display
 * lives in its event's shared details.
 */
import type { EventAbout } from "../ics/event-about.js";
import { formatDate, formatUtc } from "../time/civil.js";

/**
 * The instants an occurrence may hold: a google.protobuf.Timestamp holds the
 * years 0001 to 9999, and a result also renders its instants in the caller's
 * zone (up to 14 hours either side). An event starting outside
 * [FIRST_INSTANT, LAST_INSTANT] is left out at load; an end after
 * LAST_INSTANT is clamped to it (docs/imperfect-feeds.md: one absurd value never fails a
 * search of its calendar).
 */
export const FIRST_INSTANT = -62_135_510_400_000; // 0001-01-02T00:00:00Z (Date.UTC maps year 1 to 1901)
/** 9999-12-30T00:00:00Z; see FIRST_INSTANT (0001-01-02T00:00:00Z). */
export const LAST_INSTANT = Date.UTC(9999, 11, 30);

/** The facts every occurrence of one event (or one override) shares. */
export interface EventDetails {
  readonly uid: string;
  /** A short stable digest of the UID; the first part of every event_id. */
  readonly uidKey: string;
  readonly summary: string;
  readonly location: string;
  /** Summary, location and description folded for search by words (ics/searchable-text.ts). */
  readonly searchable: string;
  readonly status: "CONFIRMED" | "TENTATIVE" | "";
  readonly transparent: boolean;
  readonly lastModified?: number;
  /** The zone DTSTART is written in; "" for floating and all-day events. */
  readonly eventTimezone: string;
  /** True when the event is made of dates (VALUE=DATE). */
  readonly allDay: boolean;
  /** True when the event belongs to a recurrence set (it has slots). */
  readonly recurring: boolean;
  /** CLASS:PRIVATE or CONFIDENTIAL: callers reading through calendar.read.any see only when it is. */
  readonly classified?: boolean;
  /** What only a look at this one event needs (GetEvent); absent in hand-built test data. */
  readonly about?: EventAbout;
}

/** One occurrence: [start, end) in epoch milliseconds. */
export interface Occurrence {
  readonly start: number;
  readonly end: number;
  /**
   * The recurrence slot: the instant of the original start for timed events,
   * the local date (midnight as a wall-time number) for all-day events.
   * Unused for events that do not recur.
   */
  readonly slot: number;
  readonly details: EventDetails;
}

/**
 * The occurrence's event_id: the UID digest, plus the slot for recurring
 * events ("<digest>_20261002T013000Z", "<digest>_20261002"). Stable across
 * reloads while UID and slot are unchanged; unique within a calendar.
 */
export function eventIdOf(occurrence: Occurrence): string {
  const { details } = occurrence;
  if (!details.recurring) return details.uidKey;
  return `${details.uidKey}_${compactSlot(occurrence)}`;
}

function compactSlot({ slot, details }: Occurrence): string {
  const text = details.allDay ? formatDate(slot) : formatUtc(slot);
  return text.replace(/[-:]/g, "");
}

/** RECURRENCE-ID as the contract renders it; "" for events that do not recur. */
export function recurrenceIdOf({ slot, details }: Occurrence): string {
  if (!details.recurring) return "";
  return details.allDay ? formatDate(slot) : formatUtc(slot);
}

/** Orders occurrences by (start, event_id), event_id compared byte-wise. */
export function compareOccurrences(a: Occurrence, b: Occurrence): number {
  if (a.start !== b.start) return a.start - b.start;
  // An event_id begins with its UID digest, and digests are all of one length:
  // two that differ order their ids alike, with no slot formatted. Indexing
  // sorts tens of thousands of occurrences that share a start this way.
  const keyA = a.details.uidKey;
  const keyB = b.details.uidKey;
  if (keyA !== keyB && keyA.length === keyB.length) return keyA < keyB ? -1 : 1;
  const idA = eventIdOf(a);
  const idB = eventIdOf(b);
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

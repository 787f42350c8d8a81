/**
 * Feed bytes to a packed snapshot, as an ingest worker builds it: from the
 * whole feed, or, given the calendar's previous snapshot, by reading again
 * only the VEVENTs a reload changed and keeping every other event's share
 * of the previous snapshot (docs/decisions.md, "Rebuilds in proportion to
 * the change"). Both ways assemble the snapshot alike
 * (snapshot-assembly.ts), and a build reads the whole feed whenever
 * anything feed-wide changed or could make the result differ, so the two
 * give the same snapshot for the same bytes.
 */
import { uidKeyOf } from "../expand/expand-calendar.js";
import { decodeFeed } from "../ics/decode.js";
import type { Diagnostic } from "../ics/diagnostic.js";
import { MAX_DIAGNOSTICS_PER_CODE } from "../ics/feed-bounds.js";
import { chunkFeed, type FeedChunks, rowsIn, runDigest, runDigestWithoutStamps, textUidOf } from "../ics/feed-chunks.js";
import { closesCalendar, type TextPiece } from "../ics/feed-lexer.js";
import { NotICalendarError } from "../ics/parse-calendar.js";
import { runAtOnce } from "../stepwise.js";
import type { BuildReport, FullBuildReason } from "./build-report.js";
import { type BuildRequest, buildInput, contentIdOf, feedText } from "./feed-text.js";
import type { PackedSnapshot } from "./packed-snapshot.js";
import {
  GROUP_HAS_DIAGNOSTICS,
  LONE_KEY,
  type PackedReuse,
  type Reuse,
  readingDigest,
  type SkeletonGap,
  skeletonDigest,
  skeletonGaps,
} from "./reuse-state.js";
import { sharedUint32 } from "./shared-memory.js";
import { type FeedRead, readFeedSteps, type SnapshotInput } from "./snapshot.js";
import { type Assembled, AssemblyConflict, assembleSnapshot, type FreshGroup, type KeptGroups } from "./snapshot-assembly.js";
import { type StringTable, stringCount, stringReader, stringTable } from "./string-table.js";

/**
 * Feed bytes handed over to a build: it takes them out once it no longer
 * needs them (a whole build, once decoded), so a 100k-event feed's bytes
 * (about 20 MiB) are not held while it parses and expands.
 */
export interface HandedBytes {
  bytes?: Uint8Array;
}

/** Builds the snapshot of the bytes, from `previous` (the calendar's last snapshot built in a worker) when it can. */
export function buildPacked(handed: HandedBytes, request: BuildRequest, previous?: PackedSnapshot): PackedSnapshot {
  if (previous === undefined) return buildWhole(handed, request, "first");
  if ("none" in previous.reuse) return buildWhole(handed, request, previous.reuse.none);
  const rebuilt = rebuild(bytesOf(handed), request, previous, previous.reuse.state);
  return "reason" in rebuilt ? buildWhole(handed, request, rebuilt.reason) : rebuilt.packed;
}

function bytesOf(handed: HandedBytes): Uint8Array {
  if (handed.bytes === undefined) throw new Error("feed bytes handed to a build were already taken");
  return handed.bytes;
}

function takeBytes(handed: HandedBytes): Uint8Array {
  const bytes = bytesOf(handed);
  handed.bytes = undefined;
  return bytes;
}

/** Where the VEVENTs of a feed stand: chunks, their lines and rows, and the runs' digests and rows. */
interface Layout {
  /** FeedChunks' offsets, without the feed's text. */
  readonly chunks: Pick<FeedChunks, "starts" | "ends" | "runEnds">;
  readonly lines: Uint32Array;
  readonly rows: Uint32Array;
  readonly runDigests: readonly string[];
  readonly runStamplessDigests: readonly string[];
  readonly runRows: Uint32Array;
  readonly gaps: readonly (SkeletonGap & { readonly firstLine: number })[];
  readonly skeleton: string;
}

/** Reads the whole feed (`reason`: why), and records what its successor may reuse when it may. */
function buildWhole(handed: HandedBytes, request: BuildRequest, reason: FullBuildReason): PackedSnapshot {
  // Where the VEVENTs stand, from the bytes, before the text is read: then the bytes, and the text once parsed, may go.
  const layout = layoutOfBytes(bytesOf(handed));
  const source: { text?: string; input: SnapshotInput } = feedText(takeBytes(handed), request);
  const read = runAtOnce(readFeedSteps(source, source.input, layout !== undefined));
  const located = layout === undefined ? undefined : locate(read, layout, allChunks(layout));
  const notPlain = located === undefined ? "not_plain" : undefined;
  const fresh = located?.fresh ?? read.expanded.groups.uidKeys.map((key, span) => ({ key, span, readingDiagnostics: [] }));
  const feedDiagnostics = [...(located?.feedDiagnostics ?? read.readingDiagnostics), ...read.expanded.feedDiagnostics];
  const assembled = assembleSnapshot({ expanded: read.expanded, fresh, feedDiagnostics });
  const whyNot =
    notPlain ??
    (source.input.partial === true || source.input.decoding?.some((found) => found.code === "INVALID_UTF8") ? "not_whole" : undefined) ??
    eligibility(read, request, layout!.chunks.starts.length, assembled) ??
    (uniqueKeys(fresh) ? undefined : "unverified");
  const reuse: Reuse =
    whyNot !== undefined
      ? { none: whyNot }
      : { state: reuseState(request, layout!, assembled, (chunk) => assembled.freshPlaces[located!.chunkFresh[chunk]]) };
  return packedOf(request, source.input, read, assembled, { kind: "full", reason }, reuse);
}

/** Every chunk of a layout, in order. */
function allChunks(layout: Layout): number[] {
  return Array.from(layout.chunks.starts.keys());
}

/** The layout of a feed's bytes, when they are of the plain shape (chunkFeed). */
function layoutOfBytes(bytes: Uint8Array): Layout | undefined {
  const chunks = chunkFeed(bytes);
  return chunks === undefined ? undefined : layoutOf(bytes, chunks);
}

/** The layout of a feed read whole: each chunk's rows and line, and each run's digest and rows. */
function layoutOf(bytes: Uint8Array, chunks: FeedChunks): Layout {
  const { view, starts, ends, runEnds } = chunks;
  const count = starts.length;
  const lines = new Uint32Array(count);
  const rows = new Uint32Array(count);
  const runDigests: string[] = [];
  const runStamplessDigests: string[] = [];
  const runRows = new Uint32Array(runEnds.length);
  const gaps = skeletonGaps(chunks);
  const gapLines: (SkeletonGap & { firstLine: number })[] = [];
  let line = 1;
  let at = 0;
  let first = 0;
  let gap = 0;
  for (const [run, end] of runEnds.entries()) {
    for (let chunk = first; chunk < end; chunk++) {
      if (gap < gaps.length && gaps[gap].from === at) gapLines.push({ ...gaps[gap++], firstLine: line });
      line += rowsIn(view, at, starts[chunk]);
      lines[chunk] = line;
      rows[chunk] = rowsIn(view, starts[chunk], ends[chunk]);
      line += rows[chunk];
      at = ends[chunk];
    }
    runDigests.push(runDigest(bytes, starts[first], ends[end - 1]));
    runStamplessDigests.push(runDigestWithoutStamps(bytes, chunks, starts[first], ends[end - 1]));
    runRows[run] = line - lines[first];
    first = end;
  }
  if (gap < gaps.length) gapLines.push({ ...gaps[gap], firstLine: line });
  return {
    chunks: { starts, ends, runEnds },
    lines,
    rows,
    runDigests,
    runStamplessDigests,
    runRows,
    gaps: gapLines,
    skeleton: skeletonDigest(bytes, gaps),
  };
}

/** A read's events and diagnostics placed on the chunks it read. */
interface Located {
  readonly fresh: FreshGroup[];
  /** Per chunk (of the layout): the fresh group it belongs to, -1 for one not read. */
  readonly chunkFresh: Int32Array;
  /** The reading diagnostics that stand on no chunk read. */
  readonly feedDiagnostics: Diagnostic[];
}

/**
 * Places a read's events and diagnostics on the chunks it read (`read`, in
 * feed order); undefined when the lexer did not find exactly those chunks
 * as components, each read inside the VCALENDAR and ended by its own
 * END:VEVENT, every other component by its own END too.
 */
function locate(read: FeedRead, layout: Layout, readChunks: readonly number[]): Located | undefined {
  const { located } = read;
  if (located === undefined) return undefined;
  const vevents = located.bounds.filter((bounds) => bounds.name === "VEVENT");
  if (vevents.length !== readChunks.length || located.bounds.some((bounds) => bounds.endLine === undefined)) return undefined;
  for (const [k, chunk] of readChunks.entries()) {
    const { line, endLine } = vevents[k];
    if (line !== layout.lines[chunk] || endLine !== line + layout.rows[chunk] - 1) return undefined;
  }
  if (read.readingDiagnostics.some((found) => found.code === "OUTSIDE_CALENDAR")) return undefined;
  const chunkFresh = new Int32Array(layout.chunks.starts.length).fill(-1);
  const spanOf = new Map(read.expanded.groups.uids.map((uid, span) => [uid, span]));
  const fresh: FreshGroup[] = [];
  const freshOfSpan = new Map<number, number>();
  const readingOf: Diagnostic[][] = [];
  const byLine = new Map<number, number>();
  for (const chunk of readChunks) {
    const line = layout.lines[chunk];
    const event = lowerBound(located.eventLines, line);
    const uid = event < located.eventUids.length && located.eventLines[event] === line ? located.eventUids[event] : undefined;
    const span = uid === undefined ? -1 : spanOf.get(uid)!;
    let f = span < 0 ? undefined : freshOfSpan.get(span);
    if (f === undefined) {
      f = fresh.length;
      readingOf.push([]);
      fresh.push({ key: span < 0 ? LONE_KEY : read.expanded.groups.uidKeys[span], span, readingDiagnostics: readingOf[f] });
      if (span >= 0) freshOfSpan.set(span, f);
    }
    chunkFresh[chunk] = f;
    byLine.set(line, f);
  }
  // Every event came from a chunk read.
  if (freshOfSpan.size !== read.expanded.groups.uids.length) return undefined;
  const feedDiagnostics: Diagnostic[] = [];
  for (const found of read.readingDiagnostics) {
    const f = found.line === undefined ? undefined : byLine.get(found.line);
    if (f === undefined) feedDiagnostics.push(found);
    else readingOf[f].push(found);
  }
  return { fresh, chunkFresh, feedDiagnostics };
}

/** The first index of `sorted` whose value is >= `value`. */
function lowerBound(sorted: Uint32Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Why a read's snapshot cannot be reused by its successor, if it cannot: a
 * reading shared by several events, a VEVENT without UID, or a feed at or
 * near one of the caps of the whole feed (whose cuts depend on every event).
 */
function eligibility(read: FeedRead, request: BuildRequest, chunkCount: number, assembled: Assembled): FullBuildReason | undefined {
  if (read.sharedReadings > 0) return "shared_reading";
  if (read.readingDiagnostics.some((found) => found.code === "MISSING_UID")) return "missing_uid";
  const { limits } = request;
  let occurrences = 0;
  for (const count of assembled.groups.groupOccurrences) occurrences += count;
  let work = 0;
  for (const units of assembled.groups.groupWork) work += units;
  const nearCap =
    chunkCount > (request.maxComponents ?? Number.POSITIVE_INFINITY) ||
    read.expanded.feedDiagnostics.length > 0 ||
    work >= limits.maxExpansionWork ||
    occurrences > limits.maxOccurrencesPerFeed - limits.maxOccurrencesPerSeries ||
    assembled.itemGroups.diagnosticGroups.length >= MAX_DIAGNOSTICS_PER_CODE;
  return nearCap ? "near_cap" : undefined;
}

/** Whether no two groups share a key (two UIDs whose digests collide are read whole, every time). */
function uniqueKeys(fresh: readonly FreshGroup[]): boolean {
  const keys = new Set<string>();
  for (const { key } of fresh) {
    if (key === LONE_KEY) continue;
    if (keys.has(key)) return false;
    keys.add(key);
  }
  return true;
}

/** The reuse state of an assembly over `layout`; `groupOf` gives each chunk's group in the assembly. */
function reuseState(request: BuildRequest, layout: Layout, assembled: Assembled, groupOf: (chunk: number) => number): PackedReuse {
  const { chunks } = layout;
  const count = chunks.starts.length;
  const chunkGroups = sharedUint32(count);
  for (let chunk = 0; chunk < count; chunk++) chunkGroups[chunk] = groupOf(chunk);
  return {
    reading: readingDigest(request),
    skeleton: layout.skeleton,
    chunkStarts: sharedCopy(chunks.starts),
    chunkEnds: sharedCopy(chunks.ends),
    chunkLines: sharedCopy(layout.lines),
    chunkGroups,
    runEnds: sharedCopy(chunks.runEnds),
    runRows: sharedCopy(layout.runRows),
    runDigests: stringTable(layout.runDigests),
    runStamplessDigests: stringTable(layout.runStamplessDigests),
    ...assembled.groups,
    ...assembled.itemGroups,
  };
}

function sharedCopy(array: Uint32Array): Uint32Array {
  const copy = sharedUint32(array.length);
  copy.set(array);
  return copy;
}

/** The packed snapshot of an assembly. */
function packedOf(
  request: BuildRequest,
  input: SnapshotInput,
  read: FeedRead,
  assembled: Assembled,
  build: BuildReport,
  reuse: Reuse,
): PackedSnapshot {
  return {
    ...assembled.parts,
    // Every cut of a build counts work, not time, and what a cut leaves out of
    // the index is expanded per query with the same answers: the content names it.
    id: input.contentId!,
    calendarId: request.calendarId,
    zone: read.zone.name,
    zoneSource: read.zoneSource,
    dataAsOf: request.readAt,
    partial: input.partial === true,
    build,
    reuse,
    availability: read.availability === undefined ? "" : JSON.stringify(read.availability),
  };
}

/**
 * Builds from the previous snapshot: compares the runs' digests, reads again
 * the chunks of changed runs and every chunk of the UIDs they touch, and
 * keeps the rest. Gives the reason to read the whole feed instead, when
 * anything feed-wide differs or could.
 */
function rebuild(
  bytes: Uint8Array,
  request: BuildRequest,
  previous: PackedSnapshot,
  state: PackedReuse,
): { packed: PackedSnapshot } | { reason: FullBuildReason } {
  if (readingDigest(request) !== state.reading) return { reason: "configuration" };
  const chunks = chunkFeed(bytes);
  if (chunks === undefined) return { reason: "not_plain" };
  const gaps = skeletonGaps(chunks);
  if (skeletonDigest(bytes, gaps) !== state.skeleton) return { reason: "feed_wide" };
  const count = chunks.starts.length;
  if (count > (request.maxComponents ?? Number.POSITIVE_INFINITY)) return { reason: "near_cap" };

  const plan = planRebuild(bytes, chunks, gaps, state);
  // Past here the feed's text is read only in the pieces that changed.
  if (2 * plan.toRead.length > count) return { reason: "most_changed" };

  // The pieces to read, in feed order: the text outside the VEVENTs, and the chunks read again.
  const spans = [
    ...plan.layout.gaps,
    ...plan.toRead.map((chunk) => ({ from: chunks.starts[chunk], to: chunks.ends[chunk], firstLine: plan.layout.lines[chunk] })),
  ].sort((a, b) => a.from - b.from);
  const pieces: TextPiece[] = [];
  for (const { from, to, firstLine } of spans) {
    const { text, invalidUtf8Line } = decodeFeed(bytes.subarray(from, to));
    if (invalidUtf8Line !== undefined) return { reason: "not_whole" };
    pieces.push({ text, firstLine });
  }
  // Complete: the text after the last VEVENT closes the VCALENDAR.
  const tail = spans.at(-1);
  if (tail === undefined || tail.to !== bytes.length || tail.from < chunks.ends[count - 1] || !closesCalendar(pieces.at(-1)!.text)) {
    return { reason: "not_whole" };
  }

  // What the kept groups hold counts toward the feed's caps: the read ones get what is left.
  let keptWork = 0;
  let keptOccurrences = 0;
  for (let group = 0; group < plan.dropped.length; group++) {
    if (plan.dropped[group] !== 0) continue;
    keptWork += state.groupWork[group];
    keptOccurrences += state.groupOccurrences[group];
  }
  const { limits } = request;
  const input: SnapshotInput = {
    ...buildInput(request),
    limits: {
      ...limits,
      maxExpansionWork: limits.maxExpansionWork - keptWork,
      maxOccurrencesPerFeed: limits.maxOccurrencesPerFeed - keptOccurrences,
    },
    decoding: [],
    partial: false,
    contentId: contentIdOf(bytes, request),
  };
  let read: FeedRead;
  try {
    read = runAtOnce(readFeedSteps(pieces, input, true));
  } catch (error) {
    if (error instanceof NotICalendarError) return { reason: "not_whole" };
    throw error;
  }
  const located = locate(read, plan.layout, plan.toRead);
  if (located === undefined) return { reason: "not_plain" };
  if (!readAsPlanned(located, plan, state)) return { reason: "unverified" };

  let assembled: Assembled;
  const kept: KeptGroups = { packed: previous, reuse: state, dropped: plan.dropped };
  const feedDiagnostics = [...located.feedDiagnostics, ...read.expanded.feedDiagnostics];
  try {
    assembled = assembleSnapshot({ expanded: read.expanded, fresh: located.fresh, feedDiagnostics, kept });
  } catch (error) {
    if (error instanceof AssemblyConflict) return { reason: "unverified" };
    throw error;
  }
  const reason = eligibility(read, request, count, assembled) ?? (uniqueKeys(located.fresh) ? undefined : "unverified");
  if (reason !== undefined) return { reason };
  const groupOf = (chunk: number) => {
    const f = located.chunkFresh[chunk];
    return f >= 0 ? assembled.freshPlaces[f] : assembled.keptPlaces[state.chunkGroups[plan.oldChunk[chunk]]];
  };
  const reuse: Reuse = { state: reuseState(request, plan.layout, assembled, groupOf) };
  let eventsKept = 0;
  for (let group = 0; group < plan.dropped.length; group++) if (plan.dropped[group] === 0) eventsKept += state.groupEvents[group];
  const build: BuildReport = { kind: "incremental", eventsRead: plan.toRead.length, eventsKept };
  return { packed: packedOf(request, input, read, assembled, build, reuse) };
}

/** What a rebuild reads again and what it keeps. */
interface RebuildPlan {
  readonly layout: Layout;
  /** Chunks read again, in feed order. */
  readonly toRead: readonly number[];
  /** Per new chunk: the previous snapshot's chunk it is, byte for byte but DTSTAMP values (-1: a changed run's). */
  readonly oldChunk: Int32Array;
  /** Per previous group: 1 when it is read again or gone. */
  readonly dropped: Uint8Array;
}

/**
 * Matches the new runs to the previous ones by digest, lays the new feed out
 * (a matched run's rows and chunk lines come from the previous state), and
 * finds the groups to read again: those with a chunk in a run that changed
 * (before or now), those a changed chunk's UID names, and those whose
 * diagnostics name lines that moved.
 */
function planRebuild(bytes: Uint8Array, chunks: FeedChunks, gaps: readonly SkeletonGap[], state: PackedReuse): RebuildPlan {
  const { view, starts, ends, runEnds } = chunks;
  const count = starts.length;
  const exactRuns = runsByDigest(state.runDigests);
  const stamplessRuns = runsByDigest(state.runStamplessDigests);
  const oldStamplessDigest = stringReader(state.runStamplessDigests);
  const claimed = new Uint8Array(state.runEnds.length);
  const oldChunk = new Int32Array(count).fill(-1);
  const lines = new Uint32Array(count);
  const rows = new Uint32Array(count);
  const runDigests: string[] = [];
  const runStamplessDigests: string[] = [];
  const runRows = new Uint32Array(runEnds.length);
  const dropped = new Uint8Array(state.groupEvents.length);
  const oldRunStart = (run: number) => (run === 0 ? 0 : state.runEnds[run - 1]);
  const gapLines: (SkeletonGap & { firstLine: number })[] = [];
  const changed: number[] = [];
  let line = 1;
  let at = 0;
  let first = 0;
  let gap = 0;
  for (const [run, end] of runEnds.entries()) {
    // The bytes' digest first (one call of SHA-256); the one without DTSTAMP values only when that finds no run.
    const exact = runDigest(bytes, starts[first], ends[end - 1]);
    let old = exactRuns.get(exact);
    const stampless = old === undefined ? runDigestWithoutStamps(bytes, chunks, starts[first], ends[end - 1]) : oldStamplessDigest(old);
    old ??= stamplessRuns.get(stampless);
    runDigests.push(exact);
    runStamplessDigests.push(stampless);
    if (gap < gaps.length && gaps[gap].from === at) gapLines.push({ ...gaps[gap++], firstLine: line });
    line += rowsIn(view, at, starts[first]);
    if (old !== undefined && claimed[old] === 0 && state.runEnds[old] - oldRunStart(old) === end - first) {
      claimed[old] = 1;
      const shift = line - state.chunkLines[oldRunStart(old)];
      for (let chunk = first; chunk < end; chunk++) {
        const was = oldRunStart(old) + chunk - first;
        oldChunk[chunk] = was;
        lines[chunk] = state.chunkLines[was] + shift;
        // A group's diagnostics name its lines: where they moved, it is read again.
        if (shift !== 0 && (state.groupFlags[state.chunkGroups[was]] & GROUP_HAS_DIAGNOSTICS) !== 0) dropped[state.chunkGroups[was]] = 1;
      }
      runRows[run] = state.runRows[old];
      line += runRows[run];
      at = ends[end - 1];
    } else {
      const runLine = line;
      for (let chunk = first; chunk < end; chunk++) {
        if (chunk > first) line += rowsIn(view, ends[chunk - 1], starts[chunk]);
        lines[chunk] = line;
        rows[chunk] = rowsIn(view, starts[chunk], ends[chunk]);
        line += rows[chunk];
        changed.push(chunk);
      }
      runRows[run] = line - runLine;
      at = ends[end - 1];
    }
    first = end;
  }
  if (gap < gaps.length) gapLines.push({ ...gaps[gap], firstLine: line });
  // The groups of the previous runs no new run matched, and those the changed chunks' UIDs name.
  for (let run = 0; run < claimed.length; run++) {
    if (claimed[run] !== 0) continue;
    for (let chunk = oldRunStart(run); chunk < state.runEnds[run]; chunk++) dropped[state.chunkGroups[chunk]] = 1;
  }
  const keyOf = stringReader(state.groupKeys);
  for (const chunk of changed) {
    const uid = textUidOf(bytes, chunks, chunk);
    if (uid === undefined) continue;
    const group = findKey(keyOf, state.groupKeys.offsets.length - 1, uidKeyOf(uid));
    if (group >= 0) dropped[group] = 1;
  }
  // Read again: the changed chunks, and every kept chunk of a dropped group.
  const toRead: number[] = [];
  for (let chunk = 0; chunk < count; chunk++) {
    if (oldChunk[chunk] < 0 || dropped[state.chunkGroups[oldChunk[chunk]]] !== 0) {
      toRead.push(chunk);
      if (oldChunk[chunk] >= 0) rows[chunk] = rowsIn(view, starts[chunk], ends[chunk]);
    }
  }
  return {
    layout: {
      chunks: { starts, ends, runEnds },
      lines,
      rows,
      runDigests,
      runStamplessDigests,
      runRows,
      gaps: gapLines,
      skeleton: state.skeleton,
    },
    toRead,
    oldChunk,
    dropped,
  };
}

/** The previous runs by digest: those whose digest is theirs alone (a run repeated byte for byte is read again). */
function runsByDigest(digests: StringTable): Map<string, number> {
  const digestOf = stringReader(digests);
  const runs = new Map<string, number>();
  const repeated = new Set<string>();
  for (let run = 0; run < stringCount(digests); run++) {
    const digest = digestOf(run);
    if (runs.has(digest)) repeated.add(digest);
    runs.set(digest, run);
  }
  for (const digest of repeated) runs.delete(digest);
  return runs;
}

/** The group whose key is `key`, by binary search over keys in order; -1 when none. */
function findKey(keyOf: (group: number) => string, count: number, key: string): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keyOf(middle) < key) low = middle + 1;
    else high = middle;
  }
  return low < count && keyOf(low) === key ? low : -1;
}

/**
 * Whether the read fits the plan: every chunk read again of a kept run
 * belongs to the dropped group it belonged to before (its text did not
 * change, so neither did its UID), and no read group takes the key of a
 * group kept (the assembly refuses that).
 */
function readAsPlanned(located: Located, plan: RebuildPlan, state: PackedReuse): boolean {
  const keyOf = stringReader(state.groupKeys);
  for (const chunk of plan.toRead) {
    const was = plan.oldChunk[chunk];
    if (was < 0) continue;
    if (located.fresh[located.chunkFresh[chunk]].key !== keyOf(state.chunkGroups[was])) return false;
  }
  return true;
}

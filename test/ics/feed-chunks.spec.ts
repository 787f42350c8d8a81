/**
 * A feed's VEVENTs are found in its bytes before anything is parsed
 * (src/ics/feed-chunks.ts): each from its BEGIN:VEVENT line to the break
 * after its END:VEVENT line, grouped in runs whose cuts depend on the
 * chunks themselves, each run with a digest that ignores DTSTAMP values. A
 * feed of any shape the scan does not read plainly is left to a whole read.
 */
import { describe, expect, it } from "vitest";
import { generateFeed } from "../../bench/generate-feed.js";
import { chunkFeed, type FeedChunks, rowsIn, runDigest, runDigestWithoutStamps, textUidOf } from "../../src/ics/feed-chunks.js";
import { ics, vevent } from "../support/feeds.js";

const bytes = (text: string) => Buffer.from(text);
const chunkTexts = (text: string, chunks: FeedChunks) =>
  Array.from(chunks.starts, (start, i) => Buffer.from(text).subarray(start, chunks.ends[i]).toString());
const runsOf = (chunks: FeedChunks) => Array.from(chunks.runEnds, (end, r) => end - (r === 0 ? 0 : chunks.runEnds[r - 1]));
/** Each run's digest: of its bytes, or of its bytes but DTSTAMP values. */
const digestsOf = (text: string, stampless = true) => {
  const feed = bytes(text);
  const chunks = chunkFeed(feed)!;
  return Array.from(chunks.runEnds, (end, r) => {
    const from = chunks.starts[r === 0 ? 0 : chunks.runEnds[r - 1]];
    return stampless ? runDigestWithoutStamps(feed, chunks, from, chunks.ends[end - 1]) : runDigest(feed, from, chunks.ends[end - 1]);
  });
};

describe("a feed's chunks", () => {
  it("are its VEVENTs, from BEGIN:VEVENT to the break after END:VEVENT, VALARMs inside", () => {
    const text = ics(
      "X-WR-TIMEZONE:UTC",
      ...vevent("UID:a", "DTSTART:20261201T090000Z", "BEGIN:VALARM", "TRIGGER:-PT5M", "END:VALARM"),
      ...vevent("UID:b", "DTSTART:20261202T090000Z"),
    );
    const chunks = chunkFeed(bytes(text))!;
    expect(chunkTexts(text, chunks)).toEqual([
      "BEGIN:VEVENT\r\nDTSTAMP:20260901T000000Z\r\nUID:a\r\nDTSTART:20261201T090000Z\r\nBEGIN:VALARM\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n",
      "BEGIN:VEVENT\r\nDTSTAMP:20260901T000000Z\r\nUID:b\r\nDTSTART:20261202T090000Z\r\nEND:VEVENT\r\n",
    ]);
    expect(runsOf(chunks).reduce((sum, run) => sum + run, 0)).toBe(2);
  });

  it("are not found in a feed of another shape: a VEVENT inside another, one without END:VEVENT, a line folded onto END:VEVENT, no VEVENT", () => {
    const nested = ics("BEGIN:VEVENT", "UID:a", ...vevent("UID:b"), "END:VEVENT");
    const unended = ["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:a", "END:VCALENDAR", ""].join("\r\n");
    const folded = ics(...vevent("UID:a"), " continued", ...vevent("UID:b"));
    for (const text of [nested, unended, folded, ics("X-WR-TIMEZONE:UTC")]) expect(chunkFeed(bytes(text))).toBeUndefined();
  });

  it("leave a VEVENT written in lower case to the skeleton, for the lexer to tell", () => {
    const text = ics(...vevent("UID:a"), "begin:vevent", "UID:b", "end:vevent");
    expect(chunkTexts(text, chunkFeed(bytes(text))!)).toHaveLength(1);
  });

  it("are cut into runs by their UIDs: an event added moves only the cuts next to it", () => {
    const anchor = Date.UTC(2026, 10, 29);
    const text = generateFeed(anchor, { singles: 2_000, series: 0 });
    const before = runsOf(chunkFeed(bytes(text))!);
    expect(before.length).toBeGreaterThan(60);
    expect(Math.max(...before)).toBeLessThanOrEqual(64);
    const at = text.indexOf("BEGIN:VEVENT", text.indexOf("UID:single-1000@"));
    const added = `${text.slice(0, at)}BEGIN:VEVENT\r\nUID:added@bench.calq\r\nDTSTART:20261201T090000Z\r\nEND:VEVENT\r\n${text.slice(at)}`;
    const after = digestsOf(added);
    const kept = digestsOf(text).filter((digest) => after.includes(digest));
    expect(kept.length).toBeGreaterThanOrEqual(before.length - 2);
  });

  it("have run digests of their bytes, and digests that ignore DTSTAMP values and only them", () => {
    const text = generateFeed(Date.UTC(2026, 10, 29), { singles: 200, series: 10 });
    const restamped = text.replaceAll("DTSTAMP:20260101T000000Z", "DTSTAMP:20261129T081500Z");
    expect(digestsOf(restamped)).toEqual(digestsOf(text));
    expect(digestsOf(restamped, false).filter((digest) => digestsOf(text, false).includes(digest))).toEqual([]);
    const retitled = text.replace("SUMMARY:Meeting 17\r\n", "SUMMARY:Meeting 71\r\n");
    expect(digestsOf(retitled).filter((digest, i) => digest !== digestsOf(text)[i])).toHaveLength(1);
    // A DTSTAMP that is not of the plain form is part of the digest.
    const odd = text.replace("DTSTAMP:20260101T000000Z", "DTSTAMP:2026-01-01");
    expect(digestsOf(odd)).not.toEqual(digestsOf(text));
  });

  it("name their UID as ical.js reads a plain one, unfolded; none for one with parameters or an escape", () => {
    const text = ics(
      ...vevent("UID:plain@calq.test"),
      ...vevent("UID:040000008200E00074C5B7101A82E0080000000", " 0A1B2C3D4E5F"),
      ...vevent("UID;X-PARAM=1:with-parameter"),
      ...vevent("UID:comma\\,escaped"),
      ...vevent("UID:réunion@calq.test"),
    );
    const feed = bytes(text);
    const chunks = chunkFeed(feed)!;
    expect(Array.from(chunks.starts, (_, i) => textUidOf(feed, chunks, i))).toEqual([
      "plain@calq.test",
      "040000008200E00074C5B7101A82E00800000000A1B2C3D4E5F",
      undefined,
      undefined,
      "réunion@calq.test",
    ]);
  });

  it("count rows as the lexer does: CRLF, LF and a CR alone each end one", () => {
    expect(rowsIn("a\r\nb\nc\rd\r\n", 0, 10)).toBe(4);
    expect(rowsIn("a\r\nb", 0, 2)).toBe(1);
  });
});

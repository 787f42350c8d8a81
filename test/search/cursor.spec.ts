import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CalqError } from "../../src/calq-error.js";
import { type CursorBinding, CursorCodec, type CursorKey, type CursorState } from "../../src/search/cursor.js";

const MINUTE = 60_000;
const LIFETIME = 15 * MINUTE;
const STARTED_AT = Date.UTC(2026, 9, 2, 2, 0, 0);

const OLD_KEY: CursorKey = { id: "2026-09", secret: Buffer.from("old secret, thirty-two bytes long!") };
const NEW_KEY: CursorKey = { id: "2026-10", secret: Buffer.from("new secret, also thirty-two bytes!") };

const BINDING: CursorBinding = {
  principalId: "user:binh@example.com",
  calendarId: "work",
  start: Date.UTC(2026, 9, 2, 2),
  endExclusive: Date.UTC(2026, 9, 2, 5),
  timezone: "Asia/Ho_Chi_Minh",
  mode: "overlap",
  words: ["hop"],
};

const STATE: CursorState = {
  snapshotId: "q8ZsN0c3Vb1x-7Lm",
  position: { start: Date.UTC(2026, 9, 2, 2, 30), eventId: "Zq3kP0x_Ab-12cdE_20261002T023000Z" },
  searchStartedAt: STARTED_AT,
};

/** A codec whose clock reads `at` (default: one minute into the search). */
function codec(keys: readonly CursorKey[] = [NEW_KEY], at = STARTED_AT + MINUTE): CursorCodec {
  return new CursorCodec(keys, LIFETIME, () => at);
}

function refusal(decode: () => unknown): CalqError {
  try {
    decode();
  } catch (error) {
    if (error instanceof CalqError) return error;
    throw error;
  }
  throw new Error("expected the cursor to be refused");
}

function expectInvalid(cursor: string, binding: CursorBinding = BINDING, reader: CursorCodec = codec()): void {
  const error = refusal(() => reader.decode(cursor, binding));
  expect(error.reason).toBe("INVALID_CURSOR");
  expect(error.field).toBe("cursor");
}

/** Replaces the character at `at` with a different base64url character. */
function flipCharacter(text: string, at: number): string {
  const replacement = text[at] === "A" ? "B" : "A";
  return text.slice(0, at) + replacement + text.slice(at + 1);
}

describe("CursorCodec round trip", () => {
  it("decodes what it encoded, for the same caller and request", () => {
    const cursor = codec().encode(BINDING, STATE);
    expect(codec().decode(cursor, BINDING)).toEqual(STATE);
  });

  it("keeps positions with any start and event_id", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 30 }),
        (start, eventId, snapshotId) => {
          const state = { snapshotId, position: { start, eventId }, searchStartedAt: STARTED_AT };
          expect(codec().decode(codec().encode(BINDING, state), BINDING)).toEqual(state);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("does not show the caller, the calendar or the zone in clear", () => {
    const cursor = codec().encode(BINDING, STATE);
    const decodedParts = cursor.split(".").map((part) => Buffer.from(part, "base64url").toString("utf8"));
    for (const secretish of [BINDING.principalId, BINDING.calendarId, BINDING.timezone]) {
      expect(cursor).not.toContain(secretish);
      for (const part of decodedParts) expect(part).not.toContain(secretish);
    }
  });
});

describe("CursorCodec refuses changed cursors with INVALID_CURSOR", () => {
  const cursor = codec().encode(BINDING, STATE);
  const [body, keyId, signature] = cursor.split(".");

  it("refuses a payload whose position was rewritten", () => {
    const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Record<string, unknown>;
    expect(payload).toHaveProperty("p", STATE.position.start);
    const rewritten = Buffer.from(JSON.stringify({ ...payload, p: STATE.position.start + 1 })).toString("base64url");
    expectInvalid(`${rewritten}.${keyId}.${signature}`);
  });

  it("refuses a payload with any one character changed", () => {
    for (let at = 0; at < body.length; at++) expectInvalid(`${flipCharacter(body, at)}.${keyId}.${signature}`);
  });

  it("refuses a signature with any one character changed, shortened or lengthened", () => {
    for (let at = 0; at < signature.length; at++) expectInvalid(`${body}.${keyId}.${flipCharacter(signature, at)}`);
    expectInvalid(`${body}.${keyId}.${signature.slice(0, -1)}`);
    expectInvalid(`${body}.${keyId}.${signature}A`);
    expectInvalid(`${body}.${keyId}.`);
  });

  it("refuses a valid cursor with anything appended or prepended", () => {
    expectInvalid(`${cursor}.`);
    expectInvalid(`${cursor}.${signature}`);
    expectInvalid(`${cursor}A`);
    expectInvalid(`.${cursor}`);
    expectInvalid(` ${cursor}`);
  });

  it("refuses a cursor with its key id swapped for another known key's", () => {
    expectInvalid(`${body}.${OLD_KEY.id}.${signature}`, BINDING, codec([NEW_KEY, OLD_KEY]));
  });
});

describe("CursorCodec binds a cursor to its caller and request", () => {
  const cursor = codec().encode(BINDING, STATE);

  it("refuses the cursor sent by another principal", () => {
    expectInvalid(cursor, { ...BINDING, principalId: "user:an@example.com" });
  });

  it.each<[string, Partial<CursorBinding>]>([
    ["calendarId", { calendarId: "primary" }],
    ["start", { start: BINDING.start - 1 }],
    ["endExclusive", { endExclusive: BINDING.endExclusive + 1 }],
    ["timezone", { timezone: "Asia/Bangkok" }],
    ["mode", { mode: "startWithin" }],
    ["words", { words: ["hop", "tuan"] }],
    ["no words", { words: [] }],
  ])("refuses the cursor when %s changed", (_field, change) => {
    expectInvalid(cursor, { ...BINDING, ...change });
  });

  it("refuses the cursor when any single binding field changes to any other value", () => {
    const changeArb = fc.oneof(
      fc
        .string()
        .filter((v) => v !== BINDING.principalId)
        .map((principalId) => ({ principalId })),
      fc
        .string()
        .filter((v) => v !== BINDING.calendarId)
        .map((calendarId) => ({ calendarId })),
      fc
        .integer()
        .filter((v) => v !== BINDING.start)
        .map((start) => ({ start })),
      fc
        .integer()
        .filter((v) => v !== BINDING.endExclusive)
        .map((endExclusive) => ({ endExclusive })),
      fc
        .string()
        .filter((v) => v !== BINDING.timezone)
        .map((timezone) => ({ timezone })),
      fc
        .string()
        .filter((v) => v !== BINDING.mode)
        .map((mode) => ({ mode })),
    );
    fc.assert(
      fc.property(changeArb, (change) => expectInvalid(cursor, { ...BINDING, ...change })),
      { numRuns: 200 },
    );
  });

  it("does not confuse fields whose values could be shifted from one to the next", () => {
    const shifted: CursorBinding = { ...BINDING, principalId: "user:a", calendarId: "b,c" };
    const other: CursorBinding = { ...BINDING, principalId: "user:a,b", calendarId: "c" };
    expectInvalid(codec().encode(shifted, STATE), other);
  });
});

describe("CursorCodec key rotation", () => {
  it("accepts a cursor signed by the old key once the new key signs and the old one still verifies", () => {
    const cursor = codec([OLD_KEY]).encode(BINDING, STATE);
    expect(codec([NEW_KEY, OLD_KEY]).decode(cursor, BINDING)).toEqual(STATE);
  });

  it("signs with the first key only", () => {
    const cursor = codec([NEW_KEY, OLD_KEY]).encode(BINDING, STATE);
    expect(codec([NEW_KEY]).decode(cursor, BINDING)).toEqual(STATE);
    expect(refusal(() => codec([OLD_KEY]).decode(cursor, BINDING)).reason).toBe("CURSOR_EXPIRED");
  });

  it("answers CURSOR_EXPIRED for a cursor of this request signed by a key no longer listed (a restart, a finished rotation)", () => {
    const cursor = codec([OLD_KEY]).encode(BINDING, STATE);
    expect(refusal(() => codec([NEW_KEY]).decode(cursor, BINDING)).reason).toBe("CURSOR_EXPIRED");
  });

  it("refuses as INVALID_CURSOR a cursor signed by an unlisted key that was made for another request", () => {
    const cursor = codec([OLD_KEY]).encode(BINDING, STATE);
    expectInvalid(cursor, { ...BINDING, mode: "startWithin" }, codec([NEW_KEY]));
  });

  it("refuses a cursor whose key id is known but whose secret differs", () => {
    const impostor: CursorKey = { id: NEW_KEY.id, secret: Buffer.from("someone else's secret of 32 b!!!") };
    const cursor = codec([impostor]).encode(BINDING, STATE);
    expectInvalid(cursor, BINDING, codec([NEW_KEY]));
  });
});

describe("CursorCodec lifetime", () => {
  const cursor = codec().encode(BINDING, STATE);

  it("honours a cursor until its search is exactly the lifetime old", () => {
    expect(codec([NEW_KEY], STARTED_AT).decode(cursor, BINDING)).toEqual(STATE);
    expect(codec([NEW_KEY], STARTED_AT + LIFETIME).decode(cursor, BINDING)).toEqual(STATE);
  });

  it("refuses with CURSOR_EXPIRED a cursor whose search is older than the lifetime", () => {
    const error = refusal(() => codec([NEW_KEY], STARTED_AT + LIFETIME + 1).decode(cursor, BINDING));
    expect(error.reason).toBe("CURSOR_EXPIRED");
    expect(error.message).toContain("15 minutes");
  });

  it("counts from the search's first page, not from when this cursor was issued", () => {
    const lateCursor = codec([NEW_KEY], STARTED_AT + LIFETIME - MINUTE).encode(BINDING, STATE);
    const error = refusal(() => codec([NEW_KEY], STARTED_AT + LIFETIME + MINUTE).decode(lateCursor, BINDING));
    expect(error.reason).toBe("CURSOR_EXPIRED");
  });
});

describe("CursorCodec on garbage", () => {
  it.each(["", ".", "..", "...", "a.b.c.d", "a.b", "a..b", "abc", "e30", "e30.2026-10.", "not a cursor at all", "\u0000.\u0000.\u0000"])(
    "refuses %j with INVALID_CURSOR",
    (garbage) => {
      expectInvalid(garbage, BINDING, codec([NEW_KEY, OLD_KEY]));
    },
  );

  it("refuses any string with INVALID_CURSOR and never throws anything else", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (garbage) => expectInvalid(garbage)),
      { numRuns: 300 },
    );
  });

  it("refuses random base64url parts joined with dots, with known or unknown key ids", () => {
    const partArb = fc.base64String({ maxLength: 80 }).map((text) => text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
    fc.assert(
      fc.property(fc.array(fc.oneof(partArb, fc.constantFrom(NEW_KEY.id, OLD_KEY.id)), { minLength: 1, maxLength: 5 }), (parts) =>
        expectInvalid(parts.join("."), BINDING, codec([NEW_KEY, OLD_KEY])),
      ),
      { numRuns: 300 },
    );
  });

  it("refuses a real cursor's body under a fabricated signature", () => {
    const [body] = codec().encode(BINDING, STATE).split(".");
    expectInvalid(`${body}.${NEW_KEY.id}.${Buffer.alloc(32).toString("base64url")}`);
  });
});

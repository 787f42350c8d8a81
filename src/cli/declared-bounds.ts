/**
 * The bounds the contract declares on request fields (the `bounds` field
 * option, proto/calq/v1/reasons.proto), read for the command's help straight
 * from the bytes of gen/calq.binpb. Loading protobuf-es and gen/'s
 * descriptors would more than double the time `calq help` takes; walking
 * the few descriptor fields that lead to the option takes about a
 * millisecond. src/contract reads the same option with protobuf-es for
 * everything else, and test/cli checks that both readings agree on every
 * field.
 */
import { readFileSync } from "node:fs";
import type { BoundNumbers } from "../contract/bounds-text.js";

/**
 * Every bounded field of the descriptor set `bytes` (a FileDescriptorSet),
 * by "<message full name>.<json name>": for calq's fields the json name is
 * the property name of gen/'s message types (calendarIds).
 */
export function boundsInDescriptorSet(bytes: Uint8Array): ReadonlyMap<string, BoundNumbers> {
  const found = new Map<string, BoundNumbers>();
  for (const file of lengthDelimited(bytes, SET_FILE)) {
    const packageName = text(lengthDelimited(file, FILE_PACKAGE)[0]);
    for (const message of lengthDelimited(file, FILE_MESSAGE)) readMessage(message, packageName, found);
  }
  return found;
}

let contract: ReadonlyMap<string, BoundNumbers> | undefined;

/** The bounds gen/calq.binpb declares, read once. */
export function contractBounds(): ReadonlyMap<string, BoundNumbers> {
  contract ??= boundsInDescriptorSet(readFileSync(new URL("../../gen/calq.binpb", import.meta.url)));
  return contract;
}

// Field numbers of google/protobuf/descriptor.proto, and of calq.v1.FieldBounds and its extension.
const SET_FILE = 1;
const FILE_PACKAGE = 2;
const FILE_MESSAGE = 4;
const MESSAGE_NAME = 1;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED = 3;
const FIELD_NAME = 1;
const FIELD_LABEL = 4;
const LABEL_REPEATED = 3;
const FIELD_OPTIONS = 8;
const FIELD_JSON_NAME = 10;
const BOUNDS_EXTENSION = 50003;
const BOUNDS_FIELDS: readonly (readonly [number, Exclude<keyof BoundNumbers, "list">])[] = [
  [1, "min"],
  [2, "max"],
  [3, "zeroMeans"],
  [4, "minItems"],
  [5, "maxItems"],
  [6, "maxLength"],
];

function readMessage(message: Uint8Array, scope: string, found: Map<string, BoundNumbers>): void {
  const typeName = `${scope}.${text(lengthDelimited(message, MESSAGE_NAME)[0])}`;
  for (const field of lengthDelimited(message, MESSAGE_FIELD)) {
    const [options] = lengthDelimited(field, FIELD_OPTIONS);
    const [bounds] = options === undefined ? [] : lengthDelimited(options, BOUNDS_EXTENSION);
    if (bounds === undefined) continue;
    const name = text(lengthDelimited(field, FIELD_JSON_NAME)[0] ?? lengthDelimited(field, FIELD_NAME)[0]);
    const values = varints(bounds);
    const declared: { -readonly [K in keyof BoundNumbers]: BoundNumbers[K] } = { list: varints(field).get(FIELD_LABEL) === LABEL_REPEATED };
    for (const [number, key] of BOUNDS_FIELDS) {
      const value = values.get(number);
      if (value !== undefined) declared[key] = value;
    }
    found.set(`${typeName}.${name}`, declared);
  }
  for (const nested of lengthDelimited(message, MESSAGE_NESTED)) readMessage(nested, typeName, found);
}

const UTF8 = new TextDecoder();

function text(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? "" : UTF8.decode(bytes);
}

/** The values of every length-delimited field `number` of the message in `bytes`, in order. */
function lengthDelimited(bytes: Uint8Array, number: number): Uint8Array[] {
  const values: Uint8Array[] = [];
  walk(bytes, (field, value) => {
    if (field === number && value instanceof Uint8Array) values.push(value);
  });
  return values;
}

/** The last value of each varint field of the message in `bytes`, read as a 32-bit integer. */
function varints(bytes: Uint8Array): Map<number, number> {
  const values = new Map<number, number>();
  walk(bytes, (field, value) => {
    if (typeof value === "bigint") values.set(field, Number(BigInt.asIntN(32, value)));
  });
  return values;
}

/** Calls `visit` with each field of the message in `bytes`: a varint as a bigint, a length-delimited value as its bytes. */
function walk(bytes: Uint8Array, visit: (field: number, value: bigint | Uint8Array) => void): void {
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw new Error("the descriptor set ends inside a varint");
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const tag = varint();
    const field = Number(tag >> 3n);
    switch (Number(tag & 7n)) {
      case 0:
        visit(field, varint());
        break;
      case 1:
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        visit(field, bytes.subarray(at, at + length));
        at += length;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new Error(`the descriptor set holds a wire type calq's descriptors never use (field ${field})`);
    }
  }
}

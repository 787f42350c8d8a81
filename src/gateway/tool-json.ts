/**
 * How proto values look in tool JSON: the proto's own field names
 * (`end_exclusive`), enums as lower-case names without their prefix
 * (`overlap`, `crosses_start`), Timestamps as RFC 3339 strings, and `null`
 * for a field left unset. Both directions follow the descriptors, so a field
 * added to the contract needs no code here.
 */
import {
  create,
  type DescEnum,
  type DescEnumValue,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type MessageShape,
  toJson,
} from "@bufbuild/protobuf";

/** The tool name of an enum value: `MATCH_MODE_START_WITHIN` → `start_within`. */
export function enumToolName(value: DescEnumValue): string {
  return value.localName.toLowerCase();
}

/**
 * The enum values a caller may send: all but the zero value, which proto3
 * reserves for "unspecified" and calq refuses wherever an enum is required.
 */
export function sendableValues(desc: DescEnum): DescEnumValue[] {
  return desc.values.filter((value) => value.number !== 0);
}

/**
 * Tool arguments (already validated against the tool's input schema) as the
 * request message. `null` leaves a field unset; nothing else is changed, so
 * the service judges exactly what the model sent.
 */
export function requestFromArguments<Desc extends DescMessage>(desc: Desc, args: Record<string, unknown>): MessageShape<Desc> {
  const init: Record<string, unknown> = {};
  for (const field of desc.fields) {
    const value = args[field.name];
    if (value === null || value === undefined) continue;
    if (field.fieldKind === "enum") {
      const match = field.enum.values.find((candidate) => enumToolName(candidate) === value);
      if (match === undefined) throw new Error(`${field.name}: ${String(value)} is not a value of ${field.enum.typeName}`);
      init[field.localName] = match.number;
    } else if (field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar")) {
      init[field.localName] = value;
    } else {
      throw new Error(`${desc.typeName}.${field.name}: only scalar and enum request fields can be tool arguments`);
    }
  }
  return create(desc, init as never) as MessageShape<Desc>;
}

/** A response message as tool JSON: every scalar field present, enums by tool name. */
export function structuredFromMessage<Desc extends DescMessage>(desc: Desc, message: MessageShape<Desc>): JsonObject {
  const json = toJson(desc, message, { useProtoFieldName: true, alwaysEmitImplicit: true }) as JsonObject;
  return renameEnums(desc, json);
}

function renameEnums(desc: DescMessage, json: JsonObject): JsonObject {
  const out: JsonObject = { ...json };
  for (const field of desc.fields) {
    const value = json[field.name];
    if (value === undefined || value === null) continue;
    const one = (item: JsonValue): JsonValue => {
      if (field.enum !== undefined) return enumToolName(field.enum.values.find((candidate) => candidate.name === item)!);
      if (field.message !== undefined && field.message.typeName !== "google.protobuf.Timestamp") {
        return renameEnums(field.message, item as JsonObject);
      }
      return item;
    };
    out[field.name] = field.fieldKind === "list" ? (value as JsonValue[]).map(one) : one(value);
  }
  return out;
}

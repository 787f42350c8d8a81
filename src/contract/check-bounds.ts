/**
 * The server's check of a request against the bounds its fields declare
 * (proto/calq/v1/reasons.proto): one generic check for every bounded
 * field of every method, so what the server refuses is exactly what the
 * contract says, and so what the tool schemas allow.
 */
import { clone, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { CalqError } from "../calq-error.js";
import { countRange, valueRange, zeroClause } from "./bounds-text.js";
import { boundedFields, type DeclaredBounds, within } from "./field-bounds.js";

/**
 * Checks each bounded field of `message` in field-number order and throws
 * a CalqError for the first value outside its bounds: the field's declared
 * reason, the field as the BadRequest violation, a message with the bounds
 * and the value sent, and for a number its bounds as metadata (min_<field>,
 * max_<field>, default_<field>). A list's item count is checked before its
 * items. Never changes `message`: returns it, or, when a field holds the 0
 * that stands for a default, a copy with the default in its place.
 */
export function checkBounds<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): MessageShape<Desc> {
  const fields = reflect(schema, message);
  let resolved: MessageShape<Desc> | undefined;
  for (const bounds of boundedFields(schema)) {
    const { field } = bounds;
    if (field.fieldKind === "list") {
      const items = [...fields.get(field)];
      checkCount(bounds, items.length);
      for (const item of items) if (typeof item === "number") checkNumber(bounds, item, `${field.name} item`);
    } else if (field.fieldKind === "scalar") {
      const value = fields.get(field);
      if (typeof value === "string") checkLength(bounds, value);
      if (typeof value !== "number") continue;
      if (value === 0 && bounds.zeroMeans !== undefined) {
        resolved ??= clone(schema, message);
        reflect(schema, resolved).set(field, bounds.zeroMeans);
      } else {
        checkNumber(bounds, value, field.name);
      }
    }
  }
  return resolved ?? message;
}

function checkNumber(bounds: DeclaredBounds, value: number, shown: string): void {
  if (Number.isInteger(value) && within(value, bounds)) return;
  const name = bounds.field.name;
  const metadata: Record<string, string> = {};
  if (bounds.min !== undefined) metadata[`min_${name}`] = String(bounds.min);
  if (bounds.max !== undefined) metadata[`max_${name}`] = String(bounds.max);
  if (bounds.zeroMeans !== undefined) metadata[`default_${name}`] = String(bounds.zeroMeans);
  throw new CalqError(bounds.reason, `${shown} ${value} is out of range: send ${valueRange(bounds)}${zeroClause(bounds)}`, name, metadata);
}

function checkCount(bounds: DeclaredBounds, count: number): void {
  const fits = (bounds.minItems === undefined || count >= bounds.minItems) && (bounds.maxItems === undefined || count <= bounds.maxItems);
  if (fits) return;
  const name = bounds.field.name;
  throw new CalqError(bounds.reason, `send ${countRange(bounds)} ${name.replaceAll("_", " ")}, not ${count}`, name);
}

function checkLength(bounds: DeclaredBounds, text: string): void {
  if (bounds.maxLength === undefined || codePointsWithin(text, bounds.maxLength)) return;
  throw new CalqError(bounds.reason, `${bounds.field.name} is longer than ${bounds.maxLength} characters`, bounds.field.name);
}

/** Whether `text` holds at most `max` Unicode code points, as JSON Schema's maxLength counts them; stops counting past `max`. */
function codePointsWithin(text: string, max: number): boolean {
  if (text.length <= max) return true;
  let count = 0;
  for (const _ of text) if (++count > max) return false;
  return true;
}

/**
 * The bounds the contract declares on a request field (the `calq.v1.bounds`
 * field option, proto/calq/v1/reasons.proto), read from a field's
 * descriptor: gen/'s generated ones or those of gen/calq.binpb alike. Every
 * reader of a bound (the server's checks, page-size.ts, the tool schemas,
 * the command's help, the docs) goes through here, so a bound is written
 * only in the proto.
 */
import { type DescField, type DescMessage, getOption, hasOption, ScalarType } from "@bufbuild/protobuf";
import { bounds as boundsOption, Reason as ReasonValue } from "../../gen/calq/v1/reasons_pb.js";
import type { Reason } from "../calq-error.js";
import type { BoundNumbers } from "./bounds-text.js";

/**
 * A field's declared bounds, checked for sense when read: a number bound
 * only on a 32-bit integer field (or list of them), an item count only on a
 * list, a length only on a string, a default only on a single number inside
 * its own range, and always a reason.
 */
export interface DeclaredBounds extends BoundNumbers {
  /** The field they bound. */
  readonly field: DescField;
  /** What a value outside them is refused with, as ErrorInfo.reason spells it. */
  readonly reason: Reason;
}

/** Which bound of DeclaredBounds; every one is a number. */
export type BoundName = Exclude<keyof BoundNumbers, "list">;

/** The field's declared bounds; undefined when it declares none. Throws when the declaration makes no sense for the field. */
export function declaredBounds(field: DescField): DeclaredBounds | undefined {
  if (!hasOption(field, boundsOption)) return undefined;
  const option = getOption(field, boundsOption);
  const declared: DeclaredBounds = {
    field,
    min: option.min,
    max: option.max,
    zeroMeans: option.zeroMeans,
    minItems: option.minItems,
    maxItems: option.maxItems,
    maxLength: option.maxLength,
    list: field.fieldKind === "list",
    reason: reasonName(option.reason, field),
  };
  checkDeclaration(declared);
  return declared;
}

/** The bounded fields of `message`, in field-number order, with their bounds. */
export function boundedFields(message: DescMessage): readonly DeclaredBounds[] {
  let found = BOUNDED.get(message);
  if (found === undefined) {
    found = [...message.fields]
      .sort((a, b) => a.number - b.number)
      .flatMap((field) => {
        const declared = declaredBounds(field);
        return declared === undefined ? [] : [declared];
      });
    BOUNDED.set(message, found);
  }
  return found;
}

const BOUNDED = new WeakMap<DescMessage, readonly DeclaredBounds[]>();

/** One bound of `field`; throws when the contract does not declare it, so a reader never works with a number the proto lacks. */
export function declaredBound(field: DescField, name: BoundName): number {
  const value = declaredBounds(field)?.[name];
  if (value === undefined) throw new Error(`${qualified(field)} declares no ${name} bound`);
  return value;
}

const INTEGER_TYPES: ReadonlySet<ScalarType> = new Set([
  ScalarType.INT32,
  ScalarType.SINT32,
  ScalarType.SFIXED32,
  ScalarType.UINT32,
  ScalarType.FIXED32,
]);

/** The scalar type of a single field or of a list's items; undefined for messages, enums and maps. */
function scalarOf(field: DescField): ScalarType | undefined {
  if (field.fieldKind === "scalar") return field.scalar;
  if (field.fieldKind === "list" && field.listKind === "scalar") return field.scalar;
  return undefined;
}

function checkDeclaration(declared: DeclaredBounds): void {
  const { field } = declared;
  const scalar = scalarOf(field);
  const refuse = (why: string) => {
    throw new Error(`${qualified(field)}: its bounds option ${why}`);
  };
  const numeric = declared.min !== undefined || declared.max !== undefined || declared.zeroMeans !== undefined;
  if (numeric && (scalar === undefined || !INTEGER_TYPES.has(scalar))) refuse("bounds values, but the field holds no 32-bit integers");
  if (declared.min !== undefined && declared.max !== undefined && declared.min > declared.max) refuse("has min above max");
  if (declared.zeroMeans !== undefined) {
    if (field.fieldKind !== "scalar") refuse("gives zero_means to a list");
    if (!within(declared.zeroMeans, declared)) refuse("has a zero_means outside its own min and max");
  }
  const counted = declared.minItems !== undefined || declared.maxItems !== undefined;
  if (counted && field.fieldKind !== "list") refuse("counts items of a field that is not a list");
  if (declared.minItems !== undefined && declared.maxItems !== undefined && declared.minItems > declared.maxItems) {
    refuse("has min_items above max_items");
  }
  if (declared.maxLength !== undefined && (field.fieldKind !== "scalar" || scalar !== ScalarType.STRING)) {
    refuse("bounds the length of a field that is not a single string");
  }
}

/** Whether `value` lies within the min and max of `declared` (either may be absent). */
export function within(value: number, declared: Pick<DeclaredBounds, "min" | "max">): boolean {
  return (declared.min === undefined || value >= declared.min) && (declared.max === undefined || value <= declared.max);
}

function reasonName(value: ReasonValue, field: DescField): Reason {
  const name = ReasonValue[value];
  if (!isReason(name)) throw new Error(`${qualified(field)}: its bounds option names no reason to refuse with`);
  return name;
}

function isReason(name: string | undefined): name is Reason {
  return name !== undefined && name !== "UNSPECIFIED" && Object.hasOwn(ReasonValue, name);
}

function qualified(field: DescField): string {
  return `${field.parent.typeName}.${field.name}`;
}

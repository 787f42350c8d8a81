/**
 * The contract as the gateway reads it: the descriptor set `npm run generate`
 * builds from proto/ with source info (gen/calq.binpb), so every element comes
 * with the comment written above it in the .proto file. The generated
 * TypeScript drops comments; this file is why tool descriptions can still be
 * taken from the proto instead of being written a second time.
 */
import {
  createFileRegistry,
  type DescEnum,
  type DescEnumValue,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
  type FileRegistry,
  fromBinary,
  getOption,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { FieldBehavior, field_behavior } from "../../gen/google/api/field_behavior_pb.js";
import { readDescriptorSet } from "../descriptor-set.js";

/** The registry of a serialized FileDescriptorSet (tests pass one built from an edited proto). */
export function registryFromBytes(bytes: Uint8Array): FileRegistry {
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes));
}

/** The registry of gen/calq.binpb. */
export function loadContractRegistry(): FileRegistry {
  return createFileRegistry(readDescriptorSet());
}

type Commented = DescService | DescMethod | DescMessage | DescField | DescEnum | DescEnumValue;

/**
 * The leading comment of an element, as written in the .proto file: comment
 * markers and the one space after them removed, paragraphs kept as blank
 * lines. Empty when the element has none (buf lint's COMMENTS rule makes that
 * an error in calq's own files).
 */
export function commentOf(desc: Commented): string {
  const path = sourcePath(desc);
  const file = desc.kind === "field" || desc.kind === "enum_value" || desc.kind === "rpc" ? desc.parent.file : desc.file;
  const location = file.proto.sourceCodeInfo?.location.find(
    (candidate) => candidate.path.length === path.length && candidate.path.every((step, index) => step === path[index]),
  );
  const text = location?.leadingComments ?? "";
  return text
    .split("\n")
    .map((line) => line.replace(/^ /, "").trimEnd())
    .join("\n")
    .trim();
}

/** The comment with its lines joined into paragraphs (one line each), as a model reads it best. */
export function proseOf(desc: Commented): string {
  return commentOf(desc)
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.replace(/\n/g, " "))
    .join("\n\n");
}

/** Whether a request field is marked `(google.api.field_behavior) = REQUIRED`. */
export function isRequiredField(field: DescField): boolean {
  return getOption(field, field_behavior).includes(FieldBehavior.REQUIRED);
}

// Field numbers of descriptor.proto that make up source-info paths.
const FILE_MESSAGE_TYPE = 4;
const FILE_ENUM_TYPE = 5;
const FILE_SERVICE = 6;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED_TYPE = 3;
const MESSAGE_ENUM_TYPE = 4;
const ENUM_VALUE = 2;
const SERVICE_METHOD = 2;

/** The SourceCodeInfo path of an element (descriptor.proto, SourceCodeInfo.Location.path). */
function sourcePath(desc: Commented): number[] {
  switch (desc.kind) {
    case "service":
      return [FILE_SERVICE, desc.file.proto.service.indexOf(desc.proto)];
    case "rpc":
      return [...sourcePath(desc.parent), SERVICE_METHOD, desc.parent.proto.method.indexOf(desc.proto)];
    case "message":
      return desc.parent
        ? [...sourcePath(desc.parent), MESSAGE_NESTED_TYPE, desc.parent.proto.nestedType.indexOf(desc.proto)]
        : [FILE_MESSAGE_TYPE, desc.file.proto.messageType.indexOf(desc.proto)];
    case "field":
      return [...sourcePath(desc.parent), MESSAGE_FIELD, desc.parent.proto.field.indexOf(desc.proto)];
    case "enum":
      return desc.parent
        ? [...sourcePath(desc.parent), MESSAGE_ENUM_TYPE, desc.parent.proto.enumType.indexOf(desc.proto)]
        : [FILE_ENUM_TYPE, desc.file.proto.enumType.indexOf(desc.proto)];
    case "enum_value":
      return [...sourcePath(desc.parent), ENUM_VALUE, desc.parent.proto.value.indexOf(desc.proto)];
  }
}

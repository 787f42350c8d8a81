/**
 * The contract's descriptor set as `npm run generate` builds it from proto/
 * with source info (gen/calq.binpb): at run time, the one copy of the proto
 * comments. Reflection serves it; the gateway takes its tool texts from it.
 */
import { readFileSync } from "node:fs";
import { fromBinary } from "@bufbuild/protobuf";
import { type FileDescriptorSet, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

export function readDescriptorSet(): FileDescriptorSet {
  return fromBinary(FileDescriptorSetSchema, readFileSync(new URL("../gen/calq.binpb", import.meta.url)));
}

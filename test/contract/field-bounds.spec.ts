/**
 * Reading the `bounds` option: every bound the contract declares makes sense
 * for its field, reads the same from gen/'s descriptors and gen/calq.binpb,
 * and a declaration that makes no sense fails when read, not when a request
 * happens to meet it.
 */
import { create, createFileRegistry, type DescMessage, type MessageInitShape, setExtension } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldOptionsSchema,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { FindFreeSlotsRequestSchema, SearchEventsRequestSchema } from "../../gen/calq/v1/calendar_service_pb.js";
import { bounds, FieldBoundsSchema, Reason } from "../../gen/calq/v1/reasons_pb.js";
import { boundedFields, declaredBound, declaredBounds, describeBounds } from "../../src/contract/index.js";
import { loadContractRegistry } from "../../src/gateway/descriptors.js";

/** A message `t.M` whose one field `f` has the given type and label and declares `declared`. */
function declaring(
  type: FieldDescriptorProto_Type,
  label: FieldDescriptorProto_Label,
  declared: MessageInitShape<typeof FieldBoundsSchema>,
): DescMessage {
  const options = create(FieldOptionsSchema);
  setExtension(options, bounds, create(FieldBoundsSchema, declared));
  const file = create(FileDescriptorProtoSchema, {
    name: "t.proto",
    package: "t",
    syntax: "proto3",
    messageType: [{ name: "M", field: [{ name: "f", jsonName: "f", number: 1, type, label, options }] }],
  });
  return createFileRegistry(file, () => undefined).getMessage("t.M")!;
}

const { INT32, STRING, DOUBLE } = FieldDescriptorProto_Type;
const { OPTIONAL: SINGLE, REPEATED: LIST } = FieldDescriptorProto_Label;

describe("the contract's declared bounds", () => {
  it("make sense for every field that declares them, in every message of the contract", () => {
    const registry = loadContractRegistry();
    const declared: string[] = [];
    for (const type of registry) {
      if (type.kind !== "message") continue;
      for (const field of boundedFields(type)) declared.push(`${type.name}.${field.field.name}: ${describeBounds(field)}`);
    }
    expect(declared).toEqual([
      "ListRegisteredCalendarsRequest.page_size: 1 to 1000, or 0 for the default 100",
      "SearchEventsRequest.limit: 1 to 100, or 0 for the default 20",
      "SearchEventsRequest.text_query: at most 200 characters",
      "SearchEventsRequest.categories: at most 10 items",
      "SearchEventsAcrossCalendarsRequest.calendar_ids: 1 to 50 items",
      "SearchEventsAcrossCalendarsRequest.limit: 1 to 100, or 0 for the default 20",
      "SearchEventsAcrossCalendarsRequest.text_query: at most 200 characters",
      "SearchEventsAcrossCalendarsRequest.categories: at most 10 items",
      "ListChangesRequest.calendar_ids: 1 to 50 items",
      "ListChangesRequest.page_size: 1 to 500, or 0 for the default 100",
      "WatchChangesRequest.calendar_ids: 1 to 50 items",
      "QueryFreeBusyRequest.calendar_ids: 1 to 50 items",
      "FindFreeSlotsRequest.calendar_ids: 1 to 50 items",
      "FindFreeSlotsRequest.duration_minutes: 5 to 1440",
      "FindFreeSlotsRequest.step_minutes: 5 to 1440, or 0 for the default 30",
      "FindFreeSlotsRequest.working_days: at most 7 items, each 1 to 7",
      "FindFreeSlotsRequest.limit: 1 to 50, or 0 for the default 10",
      "FindMeetingTimesRequest.required_calendar_ids: 1 to 50 items",
      "FindMeetingTimesRequest.optional_calendar_ids: at most 49 items",
      "FindMeetingTimesRequest.duration_minutes: 5 to 1440",
      "FindMeetingTimesRequest.step_minutes: 5 to 1440, or 0 for the default 30",
      "FindMeetingTimesRequest.buffer_before_minutes: 0 to 240",
      "FindMeetingTimesRequest.buffer_after_minutes: 0 to 240",
      "FindMeetingTimesRequest.min_optional_percent: 0 to 100",
      "FindMeetingTimesRequest.working_days: at most 7 items, each 1 to 7",
      "FindMeetingTimesRequest.limit: 1 to 20, or 0 for the default 5",
    ]);
  });

  it("read the same from the generated descriptors as from the descriptor set", () => {
    const fromSet = loadContractRegistry().getMessage(FindFreeSlotsRequestSchema.typeName)!;
    const strip = (message: DescMessage) => boundedFields(message).map(({ field, ...rest }) => ({ field: field.name, ...rest }));
    expect(strip(FindFreeSlotsRequestSchema)).toEqual(strip(fromSet));
  });

  it("give one bound by name, and refuse to give one the field does not declare", () => {
    expect(declaredBound(SearchEventsRequestSchema.field.limit, "max")).toBe(100);
    expect(() => declaredBound(SearchEventsRequestSchema.field.limit, "maxItems")).toThrow(
      "calq.v1.SearchEventsRequest.limit declares no maxItems bound",
    );
    expect(declaredBounds(SearchEventsRequestSchema.field.start)).toBeUndefined();
  });
});

describe("a declaration that makes no sense", () => {
  const reason = Reason.INVALID_LIMIT;
  it.each([
    ["names no reason", INT32, SINGLE, { max: 5 }, "names no reason"],
    ["bounds the values of a string", STRING, SINGLE, { max: 5, reason }, "holds no 32-bit integers"],
    ["bounds the values of a double", DOUBLE, SINGLE, { min: 0, reason }, "holds no 32-bit integers"],
    ["has min above max", INT32, SINGLE, { min: 6, max: 5, reason }, "min above max"],
    ["puts its default outside its range", INT32, SINGLE, { min: 1, max: 5, zeroMeans: 6, reason }, "zero_means outside"],
    ["gives a list a default", INT32, LIST, { zeroMeans: 1, reason }, "zero_means to a list"],
    ["counts the items of a single number", INT32, SINGLE, { maxItems: 3, reason }, "not a list"],
    ["has min_items above max_items", STRING, LIST, { minItems: 4, maxItems: 3, reason }, "min_items above max_items"],
    ["bounds the length of a list", STRING, LIST, { maxLength: 3, reason }, "not a single string"],
  ] as const)("fails when read: one that %s", (_what, type, label, declared, why) => {
    const message = declaring(type, label, declared);
    expect(() => boundedFields(message)).toThrow(`t.M.f: its bounds option`);
    expect(() => boundedFields(message)).toThrow(why);
  });
});

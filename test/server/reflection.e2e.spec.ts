/**
 * Server reflection as grpcurl uses it, checked with clients that share no
 * code with calq: grpc-reflection-js (v1alpha) lists the services and fetches
 * the descriptors, and the SearchEvents call is built only from what it
 * returned; v1 is asked over @grpc/grpc-js with grpc-reflection-js's own
 * message classes (v1 is wire-identical to v1alpha).
 */
import * as grpc from "@grpc/grpc-js";
import { Client as ReflectionClient } from "grpc-reflection-js";
import * as reflectionMessages from "grpc-reflection-js/build/src/reflection_pb.js";
import * as descriptorModule from "protobufjs/ext/descriptor/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDesignReviewServer, type TestServer } from "../support/test-server.js";

// Neither module ships typings for these members; the shapes used here are stated once.
interface ReflectionRequest {
  setFileContainingSymbol(symbol: string): void;
  setFileByFilename(name: string): void;
  serializeBinary(): Uint8Array;
}
interface ReflectionResponse {
  getFileDescriptorResponse(): { getFileDescriptorProtoList_asU8(): Uint8Array[] } | undefined;
  getErrorResponse(): { getErrorCode(): number } | undefined;
  getOriginalRequest(): { getFileContainingSymbol(): string } | undefined;
}
const { ServerReflectionRequest, ServerReflectionResponse } = reflectionMessages as unknown as {
  ServerReflectionRequest: new () => ReflectionRequest;
  ServerReflectionResponse: { deserializeBinary(bytes: Uint8Array): ReflectionResponse };
};
const { FileDescriptorProto } = descriptorModule as unknown as {
  FileDescriptorProto: {
    decode(bytes: Uint8Array): {
      name: string;
      service: { name: string }[];
      sourceCodeInfo?: { location: { leadingComments?: string }[] };
    };
  };
};

let served: TestServer;

beforeAll(async () => {
  served = await startDesignReviewServer();
});

afterAll(() => served.close());

describe("server reflection", () => {
  it("lists every served service (grpcurl list)", async () => {
    const reflection = new ReflectionClient(served.address, grpc.credentials.createInsecure());
    expect((await reflection.listServices()).sort()).toEqual([
      "calq.v1.CalendarAdminService",
      "calq.v1.CalendarService",
      "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
    ]);
    reflection.grpcClient.close();
  });

  it("describes CalendarService and invokes SearchEvents built only from the reflected descriptors", async () => {
    const reflection = new ReflectionClient(served.address, grpc.credentials.createInsecure());
    const root = await reflection.fileContainingSymbol("calq.v1.CalendarService");
    reflection.grpcClient.close();
    const service = root.lookupService("calq.v1.CalendarService");
    expect(Object.keys(service.methods).sort()).toEqual([
      "FindFreeSlots",
      "FindMeetingTimes",
      "GetCallerContext",
      "GetEvent",
      "ListCalendars",
      "ListChanges",
      "QueryFreeBusy",
      "SearchEvents",
      "SearchEventsAcrossCalendars",
      "WatchChanges",
    ]);
    const method = service.methods.SearchEvents;
    const requestType = root.lookupType(method.requestType);
    const responseType = root.lookupType(method.responseType);
    const matchMode = root.lookupEnum("calq.v1.MatchMode");

    const client = new grpc.Client(served.address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set("authorization", "Bearer token-an");
    const response = await new Promise<Record<string, unknown>>((resolve, reject) =>
      client.makeUnaryRequest(
        "/calq.v1.CalendarService/SearchEvents",
        (value: object) => Buffer.from(requestType.encode(requestType.fromObject(value)).finish()),
        (bytes: Buffer) => responseType.toObject(responseType.decode(bytes), { enums: String, longs: Number }),
        // Field names as the descriptor spells them, the way grpcurl's JSON would be mapped.
        {
          calendar_id: "primary",
          start: "2026-10-02T09:00:00+07:00",
          end_exclusive: "2026-10-02T12:00:00+07:00",
          timezone: "Asia/Ho_Chi_Minh",
          match_mode: matchMode.values.MATCH_MODE_OVERLAP,
        },
        metadata,
        (error, value) => (error ? reject(error) : resolve(value!)),
      ),
    );
    client.close();
    const events = response.events as { summary: string; window_relation: string; start_time: { seconds: number } }[];
    expect(events.map((event) => [event.summary, event.window_relation])).toEqual([["Design review", "WINDOW_RELATION_CROSSES_START"]]);
    expect(events[0].start_time.seconds * 1000).toBe(Date.UTC(2026, 9, 2, 1, 30));
  });

  it("answers grpc.reflection.v1 with the file and its imports, and NOT_FOUND for unknown symbols", async () => {
    const client = new grpc.Client(served.address, grpc.credentials.createInsecure());
    const call = client.makeBidiStreamRequest(
      "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      (message: ReflectionRequest) => Buffer.from(message.serializeBinary()),
      (bytes: Buffer) => ServerReflectionResponse.deserializeBinary(bytes),
    );
    const answers: ReflectionResponse[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      call.on("data", (answer: ReflectionResponse) => answers.push(answer));
      call.on("error", reject);
      call.on("end", resolve);
    });
    const bySymbol = new ServerReflectionRequest();
    bySymbol.setFileContainingSymbol("calq.v1.CalendarService.SearchEvents");
    const unknown = new ServerReflectionRequest();
    unknown.setFileContainingSymbol("calq.v1.NoSuchService");
    const byName = new ServerReflectionRequest();
    byName.setFileByFilename("grpc/health/v1/health.proto");
    call.write(bySymbol);
    call.write(unknown);
    call.write(byName);
    call.end();
    await ended;
    client.close();

    const fileNames = (answer: ReflectionResponse) =>
      answer
        .getFileDescriptorResponse()!
        .getFileDescriptorProtoList_asU8()
        .map((bytes) => FileDescriptorProto.decode(bytes));
    expect(answers).toHaveLength(3);
    const files = fileNames(answers[0]);
    // The file first, then every file it imports, transitively (field_behavior.proto extends descriptor.proto).
    expect(files.map((file) => file.name).sort()).toEqual([
      "calq/v1/calendar_service.proto",
      "calq/v1/reasons.proto",
      "google/api/field_behavior.proto",
      "google/protobuf/descriptor.proto",
      "google/protobuf/timestamp.proto",
      "google/rpc/code.proto",
    ]);
    expect(files[0].name).toBe("calq/v1/calendar_service.proto");
    // With the contract's comments, so `grpcurl describe` shows them.
    const comments = files[0].sourceCodeInfo?.location.map((location) => location.leadingComments ?? "") ?? [];
    expect(comments.some((comment) => comment.includes("Finds the event occurrences of one calendar"))).toBe(true);
    expect(files[0].service.map((service) => service.name)).toEqual(["CalendarService"]);
    expect(answers[1].getErrorResponse()?.getErrorCode()).toBe(grpc.status.NOT_FOUND);
    expect(answers[1].getOriginalRequest()?.getFileContainingSymbol()).toBe("calq.v1.NoSuchService");
    expect(fileNames(answers[2]).map((file) => file.name)).toEqual(["grpc/health/v1/health.proto"]);
  });
});

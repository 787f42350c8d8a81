/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha), so grpcurl and
 * similar tools can list calq's services, describe them and build requests
 * without local .proto files. connect-node has none built in; this answers
 * from the protobuf-es descriptors the generated code embeds, swapped for
 * the same files from gen/calq.binpb (built by buf with source info) where
 * it has them, so `grpcurl describe` shows the contract's comments.
 *
 * The answer covers every service registered on the router, whenever it was
 * registered, so a service added later needs no change here.
 */
import { create, type DescFile, type DescService, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import {
  ServerReflectionRequestSchema as RequestV1,
  ServerReflectionResponseSchema as ResponseV1,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
  ServerReflection as ServerReflectionV1,
} from "../../gen/grpc/reflection/v1/reflection_pb.js";
import {
  ServerReflectionRequestSchema as RequestV1alpha,
  ServerReflectionResponseSchema as ResponseV1alpha,
  ServerReflection as ServerReflectionV1alpha,
} from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { readDescriptorSet } from "../descriptor-set.js";

/** What reflection knows: the served services and every file they need, by file name and by symbol. */
interface Catalog {
  readonly serviceNames: string[];
  /** The same files with their comments, where gen/calq.binpb has them. */
  readonly commented: ReadonlyMap<string, Uint8Array>;
  readonly fileByName: Map<string, DescFile>;
  readonly fileBySymbol: Map<string, DescFile>;
}

function catalogOf(services: Iterable<DescService>): Catalog {
  const serviceNames = new Set<string>();
  const fileByName = new Map<string, DescFile>();
  const fileBySymbol = new Map<string, DescFile>();
  const addFile = (file: DescFile): void => {
    if (fileByName.has(file.proto.name)) return;
    fileByName.set(file.proto.name, file);
    // nestedTypes includes messages and enums nested in messages.
    for (const type of nestedTypes(file)) {
      fileBySymbol.set(type.typeName, file);
      if (type.kind === "service") for (const method of type.methods) fileBySymbol.set(`${type.typeName}.${method.name}`, file);
    }
    file.dependencies.forEach(addFile);
  };
  for (const service of services) {
    serviceNames.add(service.typeName);
    addFile(service.file);
  }
  return { serviceNames: [...serviceNames].sort(), commented: commentedFiles(), fileByName, fileBySymbol };
}

/** The files of gen/calq.binpb by name, with their comments; empty if it cannot be read. */
function commentedFiles(): ReadonlyMap<string, Uint8Array> {
  try {
    return new Map(readDescriptorSet().file.map((file) => [file.name, toBinary(FileDescriptorProtoSchema, file)]));
  } catch {
    return new Map();
  }
}

/** A file and the files it imports, transitively, each once, the file first (what grpcurl expects). */
function withDependencies(catalog: Catalog, file: DescFile): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  const visit = (current: DescFile): void => {
    if (seen.has(current.proto.name)) return;
    seen.add(current.proto.name);
    out.push(catalog.commented.get(current.proto.name) ?? toBinary(FileDescriptorProtoSchema, current.proto));
    current.dependencies.forEach(visit);
  };
  visit(file);
  return out;
}

/** The answer to one reflection question. */
function answer(catalog: Catalog, request: ServerReflectionRequest): ServerReflectionResponse {
  const reply = (messageResponse: MessageInitShape<typeof ResponseV1>["messageResponse"]) =>
    create(ResponseV1, { originalRequest: request, messageResponse });
  const notFound = (what: string) =>
    reply({ case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage: `${what} not found` } });
  const files = (file: DescFile | undefined, what: string) =>
    file === undefined
      ? notFound(what)
      : reply({ case: "fileDescriptorResponse", value: { fileDescriptorProto: withDependencies(catalog, file) } });

  const question = request.messageRequest;
  switch (question.case) {
    case "listServices":
      return reply({
        case: "listServicesResponse",
        value: { service: catalog.serviceNames.map((name) => ({ name })) },
      });
    case "fileByFilename":
      return files(catalog.fileByName.get(question.value), `file ${question.value}`);
    case "fileContainingSymbol":
      return files(catalog.fileBySymbol.get(question.value.replace(/^\./, "")), `symbol ${question.value}`);
    case "fileContainingExtension":
      // calq's protos define no extensions.
      return notFound(`extension ${question.value.extensionNumber} of ${question.value.containingType}`);
    case "allExtensionNumbersOfType": {
      const known = catalog.fileBySymbol.has(question.value);
      return known
        ? reply({ case: "allExtensionNumbersResponse", value: { baseTypeName: question.value } })
        : notFound(`type ${question.value}`);
    }
    default:
      return reply({
        case: "errorResponse",
        value: { errorCode: Code.InvalidArgument, errorMessage: "empty reflection request" },
      });
  }
}

/**
 * Registers grpc.reflection.v1 and v1alpha on the router. The catalog is
 * built on first use, from the services registered by then.
 */
export function registerReflection(router: ConnectRouter): void {
  let catalog: Catalog | undefined;
  const current = () => (catalog ??= catalogOf(router.handlers.map((handler) => handler.service)));

  router.service(ServerReflectionV1, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) yield answer(current(), request);
    },
  });
  // v1alpha is wire-identical to v1, so its questions are read as v1 and the answers written back as bytes.
  router.service(ServerReflectionV1alpha, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        const v1 = answer(current(), fromBinary(RequestV1, toBinary(RequestV1alpha, request)));
        yield fromBinary(ResponseV1alpha, toBinary(ResponseV1, v1));
      }
    },
  });
}

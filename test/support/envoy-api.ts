/**
 * Envoy's configuration API, from the data-plane-api .proto files that
 * @grpc/grpc-js-xds ships (its deps/ folder), for checking an Envoy
 * bootstrap without Envoy: neither npm nor Debian has an Envoy binary or a
 * validator, and a JSON schema written here would only restate what we
 * believe. The protos are Envoy's own types; docs/operating.md says why.
 *
 * Two checks, as `envoy --mode validate` would make them before it starts:
 *   1. ProtoJSON, strictly (protobufjs' protojson): every field name, enum
 *      value, duration and typed_config type must exist in the API;
 *   2. the protoc-gen-validate rules the protos carry that a static file can
 *      break: required messages, required oneofs, and minimum string lengths.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import protojson from "protobufjs/ext/protojson.js";
import { ROOT } from "./calq-process.js";

const DEPS = join(ROOT, "node_modules/@grpc/grpc-js-xds/deps");
/** Import roots: Envoy, xDS and udpa, Google's and the validate annotations, then protobufjs' own well-known types. */
const IMPORT_ROOTS = [
  ...["envoy-api", "xds", "googleapis", "protoc-gen-validate"].map((folder) => join(DEPS, folder)),
  join(ROOT, "node_modules/protobufjs"),
];

/**
 * The bootstrap and every extension a typed_config of ours names: a
 * typed_config of a type not loaded here is refused ("no such type"), so a
 * new extension in envoy.yaml needs its proto here.
 */
const FILES = [
  "envoy/config/bootstrap/v3/bootstrap.proto",
  "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto",
  "envoy/extensions/filters/http/router/v3/router.proto",
  "envoy/extensions/upstreams/http/v3/http_protocol_options.proto",
  "envoy/extensions/retry/host/previous_hosts/v3/previous_hosts.proto",
  "envoy/extensions/transport_sockets/tls/v3/tls.proto",
];

let loaded: protobuf.Root | undefined;

/** The API's types, loaded once. */
export function envoyApi(): protobuf.Root {
  if (loaded !== undefined) return loaded;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => IMPORT_ROOTS.map((folder) => join(folder, target)).find((path) => existsSync(path)) ?? target;
  root.loadSync(FILES);
  root.resolveAll();
  loaded = root;
  return root;
}

/** A decoded message as protobufjs gives it: fields by their camelCase names. */
type Decoded = Record<string, unknown>;

/**
 * Reads `document` (YAML or JSON, already parsed) as an
 * envoy.config.bootstrap.v3.Bootstrap; throws naming the first field the
 * API does not have, and lists the validate rules it breaks.
 */
export function parseBootstrap(document: unknown): { readonly bootstrap: Decoded; readonly problems: string[] } {
  const root = envoyApi();
  const type = root.lookupType("envoy.config.bootstrap.v3.Bootstrap");
  const bootstrap = protojson.fromJson(type, document) as unknown as Decoded;
  const problems: string[] = [];
  checkRules(root, type, bootstrap, "bootstrap", problems);
  return { bootstrap, problems };
}

/** The validate rules of `type` that `message` breaks, recursively, typed_configs included. */
function checkRules(root: protobuf.Root, type: protobuf.Type, message: Decoded, path: string, problems: string[]): void {
  if (type.fullName === ".google.protobuf.Any") {
    const typeUrl = String(message.type_url ?? message.typeUrl ?? "");
    const inner = root.lookupType(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
    checkRules(root, inner, inner.decode(message.value as Uint8Array) as unknown as Decoded, `${path}(${inner.name})`, problems);
    return;
  }
  for (const oneof of type.oneofsArray) {
    if (
      oneof.options?.["(validate.required)"] === true &&
      !oneof.oneof.some((name) => message[name] !== undefined && message[name] !== null)
    ) {
      problems.push(`${path}: one of ${oneof.oneof.join(", ")} is required`);
    }
  }
  for (const field of type.fieldsArray) {
    // A oneof member that was not chosen is not validated; unset ones read as their type's default.
    if (field.partOf !== null && !Object.hasOwn(message, field.name)) continue;
    const value = message[field.name];
    const rules = field.options ?? {};
    const present = value !== undefined && value !== null;
    if (rules["(validate.rules).message.required"] === true && !present) problems.push(`${path}.${field.name}: required`);
    const minLength = rules["(validate.rules).string.min_len"];
    const ignoreEmpty = rules["(validate.rules).string.ignore_empty"] === true && value === "";
    if (typeof minLength === "number" && typeof value === "string" && value.length < minLength && !ignoreEmpty) {
      problems.push(`${path}.${field.name}: at least ${minLength} character(s)`);
    }
    if (!present || !(field.resolvedType instanceof protobuf.Type)) continue;
    const child = field.resolvedType;
    const items: [string, unknown][] = field.map
      ? Object.entries(value as Decoded)
      : field.repeated
        ? (value as unknown[]).map((item, i) => [String(i), item])
        : [["", value]];
    for (const [key, item] of items) {
      checkRules(root, child, item as Decoded, `${path}.${field.name}${key === "" ? "" : `[${key}]`}`, problems);
    }
  }
}

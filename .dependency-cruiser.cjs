/**
 * The layers of calq, as import rules (`npm run lint` runs them):
 *
 *   core     src/time, src/ics, src/expand, src/index, src/search (and the
 *            shared src/*.ts leaves): pure, no I/O, the clock injected;
 *   service  src/feeds, src/store, src/ingest, src/config, src/registry: sources,
 *            snapshots, the ingest workers, the config model, the live registry;
 *   app      src/app: one use case per method, whatever the protocol;
 *   edges    src/server, src/auth, src/cli, src/gateway, src/net, src/rpc, src/logging:
 *            the ports, authentication, the command and what they share.
 *
 * An arrow may point down this list, never up, and no import cycle is
 * allowed, between modules or between folders (test/architecture.spec.ts
 * checks the folders). Below all four, src/contract (what the contract
 * declares beyond types, such as field bounds) is a leaf every layer may
 * use: it reads gen/ and calq's error type only. docs/architecture.md draws
 * the same map.
 */
const CORE = "^src/(time|ics|expand|index|search)/";
const SERVICE = "^src/(feeds|store|ingest|config|registry)/";
const APP = "^src/app/";
const EDGES = "^src/(server|auth|cli|gateway|net|rpc|logging)/";

/** Node modules that reach outside the process: core never imports them. */
const IO_MODULES = "^(node:)?(fs|fs/promises|net|http|http2|https|tls|dgram|dns|child_process|cluster|worker_threads|readline|process)$";

module.exports = {
  forbidden: [
    { name: "no-cycles", severity: "error", comment: "An import cycle hides which module owns a concept.", from: {}, to: { circular: true } },
    {
      name: "core-is-pure",
      severity: "error",
      comment: "The core (time, ics, expand, index, search) does no I/O; callers hand it bytes and a clock.",
      from: { path: CORE },
      to: { dependencyTypes: ["core"], path: IO_MODULES },
    },
    {
      name: "core-does-not-reach-up",
      severity: "error",
      comment: "Data flows feed -> components -> occurrences -> index -> search -> server -> gateway.",
      from: { path: CORE },
      to: { path: [SERVICE, APP, EDGES] },
    },
    {
      name: "service-does-not-reach-up",
      severity: "error",
      comment: "Feeds, store and config serve the use cases and the edges; they never import them.",
      from: { path: SERVICE },
      to: { path: [APP, EDGES] },
    },
    {
      name: "use-cases-know-no-protocol",
      severity: "error",
      comment: "A use case takes and returns domain values: no port, no generated message, no transport.",
      from: { path: APP },
      to: { path: [EDGES, "^gen/", "@connectrpc", "@bufbuild/protobuf"] },
    },
    {
      name: "gateway-talks-through-the-client",
      severity: "error",
      comment: "The gateway reaches the service only through the generated client, never through the engine or the store.",
      from: { path: "^src/gateway/" },
      to: { path: ["^src/(search|index|expand|ics|store|feeds|ingest|app|auth)/", "^src/server/"] },
    },
    {
      name: "contract-is-a-leaf",
      severity: "error",
      comment: "src/contract reads the generated descriptors and calq's error type; every layer uses it, so it uses none of them.",
      from: { path: "^src/contract/" },
      to: { path: "^src/", pathNot: ["^src/contract/", "^src/calq-error\\.ts$"] },
    },
    {
      name: "no-orphans",
      severity: "error",
      comment: "A module nobody imports is dead code (the command's entry points excepted).",
      from: {
        orphan: true,
        pathNot: [
          "^src/cli/main\\.ts$",
          "\\.d\\.ts$",
          "^src/ingest/ingest-worker\\.ts$",
          // The registry's surface, built before the server that will import it (docs/architecture.md).
          "^src/registry/index\\.ts$",
        ],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^gen/" },
  },
};

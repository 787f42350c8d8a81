/**
 * The layers of calq, as import rules (`npm run lint` runs them):
 *
 *   core     src/time, src/ics, src/expand, src/index, src/search (and the
 *            shared src/*.ts leaves): pure, no I/O, the clock injected;
 *   service  src/feeds, src/store, src/ingest, src/config, src/registry: sources,
 *            snapshots, the ingest workers, the config model, the live registry;
 *   edges    src/server, src/cli, src/gateway, src/net, src/rpc, src/logging: the ports,
 *            the command and what they share (bearer tokens, gRPC statuses, the logger).
 *
 * An arrow may point down this list, never up, and no import cycle is allowed.
 * docs/architecture.md draws the same map.
 */
const CORE = "^src/(time|ics|expand|index|search)/";
const SERVICE = "^src/(feeds|store|ingest|config|registry)/";
const EDGES = "^src/(server|cli|gateway|net|rpc|logging)/";

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
      to: { path: [SERVICE, EDGES] },
    },
    {
      name: "service-does-not-reach-edges",
      severity: "error",
      comment: "Feeds, store and config serve the edges; they never import them.",
      from: { path: SERVICE },
      to: { path: EDGES },
    },
    {
      name: "gateway-talks-through-the-client",
      severity: "error",
      comment: "The gateway reaches the service only through the generated client, never through the engine or the store.",
      from: { path: "^src/gateway/" },
      to: { path: ["^src/(search|index|expand|ics|store|feeds)/", "^src/server/"] },
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

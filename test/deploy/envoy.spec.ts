/**
 * deploy/envoy/envoy.yaml is checked against Envoy's own API types (the
 * data-plane-api protos, support/envoy-api.ts): every field, enum value and
 * typed_config must exist, and the validate rules a static file can break
 * must hold. Then its routes are checked against the shard groups of the
 * Kubernetes calq.yaml: one route per group on x-calq-shard-group, ring hash
 * on x-calq-shard-key, HTTP/2 and gRPC health to the group's headless
 * Service, and calls without a group to the first group.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { parseBootstrap } from "../support/envoy-api.js";

const ROOT = join(import.meta.dirname, "../..");
const read = () => YAML.parse(readFileSync(join(ROOT, "deploy/envoy/envoy.yaml"), "utf8"));

/** The shard groups the Kubernetes manifests' calq.yaml names, and each group's Service port. */
const kubernetes = YAML.parseAllDocuments(readFileSync(join(ROOT, "deploy/kubernetes/calq.yaml"), "utf8")).map((document) =>
  document.toJS(),
);
const calqYaml = YAML.parse(kubernetes.find((document) => document.kind === "ConfigMap").data["calq.yaml"]);
const groups: string[] = calqYaml.shards.groups;
const servicePort = (name: string): number =>
  kubernetes
    .find((document) => document.kind === "Service" && document.metadata.name === name)
    .spec.ports.find((port: { name: string }) => port.name === "grpc").port;

interface Route {
  match: { prefix: string; headers?: { name: string; string_match: { exact: string } }[] };
  route: {
    cluster: string;
    hash_policy: { header: { header_name: string } }[];
    retry_policy: { retry_on: string; retry_host_predicate: { name: string }[] };
  };
}

interface Cluster {
  name: string;
  type: string;
  lb_policy: string;
  typed_extension_protocol_options: Record<string, { explicit_http_config: Record<string, unknown> }>;
  health_checks: { grpc_health_check?: unknown }[];
  load_assignment: {
    endpoints: { lb_endpoints: { endpoint: { address: { socket_address: { address: string; port_value: number } } } }[] }[];
  };
}

const envoy = read();
const routes: Route[] = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes;
const clusters: Cluster[] = envoy.static_resources.clusters;

describe("deploy/envoy/envoy.yaml", () => {
  it("terminates TLS for clients with the certificate the Kubernetes Secret mounts, offering HTTP/2", () => {
    const socket = envoy.static_resources.listeners[0].filter_chains[0].transport_socket;
    expect(socket.typed_config["@type"]).toBe("type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext");
    const context = socket.typed_config.common_tls_context;
    expect(context.alpn_protocols).toEqual(["h2"]);
    const mounted = (
      YAML.parseAllDocuments(readFileSync(join(ROOT, "deploy/kubernetes/envoy.yaml"), "utf8")).map((d) => d.toJS()) as {
        kind: string;
        spec: {
          template: {
            spec: {
              containers: { volumeMounts: { name: string; mountPath: string }[] }[];
              volumes: { name: string; secret?: { secretName: string } }[];
            };
          };
        };
      }[]
    )
      .filter((document) => document.kind === "Deployment")
      .map((deployment) => deployment.spec.template.spec)[0];
    const tlsVolume = mounted.volumes.find((volume) => volume.secret?.secretName === "calq-envoy-tls")!;
    const mountPath = mounted.containers[0].volumeMounts.find((mount) => mount.name === tlsVolume.name)!.mountPath;
    expect(context.tls_certificates[0]).toEqual({
      certificate_chain: { filename: `${mountPath}/tls.crt` },
      private_key: { filename: `${mountPath}/tls.key` },
    });
  });

  it("reads as an Envoy bootstrap and breaks none of the API's validate rules", () => {
    expect(parseBootstrap(envoy).problems).toEqual([]);
  });

  it("would be refused with a misspelled field, an unknown enum value, a bad duration or a route without an action", () => {
    const misspelled = read();
    misspelled.static_resources.clusters[0].lb_polcy = "RING_HASH";
    expect(() => parseBootstrap(misspelled)).toThrow(/unknown field: "lb_polcy"/);
    const unknownPolicy = read();
    unknownPolicy.static_resources.clusters[0].lb_policy = "RING_HASHED";
    expect(() => parseBootstrap(unknownPolicy)).toThrow(/unknown enum value: "RING_HASHED"/);
    const badDuration = read();
    badDuration.static_resources.clusters[0].connect_timeout = "2 seconds";
    expect(() => parseBootstrap(badDuration)).toThrow(/invalid duration/);
    const noAction = read();
    delete noAction.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[0].route;
    expect(parseBootstrap(noAction).problems).toEqual([expect.stringMatching(/routes\[0\]: one of route, redirect, .* is required$/)]);
  });

  it("routes each shard group to its own cluster by x-calq-shard-group, hashing x-calq-shard-key", () => {
    for (const group of groups) {
      const route = routes.find((candidate) => candidate.match.headers?.[0].string_match.exact === group);
      expect(route?.match.headers).toEqual([{ name: "x-calq-shard-group", string_match: { exact: group } }]);
      expect(route?.route.cluster).toBe(`calq_${group}`);
      expect(route?.route.hash_policy).toEqual([{ header: { header_name: "x-calq-shard-key" } }]);
    }
    expect(routes).toHaveLength(groups.length + 1);
  });

  it("sends calls without a group header to the first group, whose replicas answer them or name the group", () => {
    const fallback = routes[routes.length - 1];
    expect(fallback.match).toEqual({ prefix: "/" });
    expect(fallback.route.cluster).toBe(`calq_${groups[0]}`);
  });

  it("retries a call on another replica of the group when one refuses the connection or answers UNAVAILABLE", () => {
    for (const { route } of routes) {
      expect(route.retry_policy.retry_on.split(",")).toEqual(expect.arrayContaining(["connect-failure", "unavailable"]));
      expect(route.retry_policy.retry_host_predicate.map((predicate) => predicate.name)).toEqual([
        "envoy.retry_host_predicates.previous_hosts",
      ]);
    }
  });

  it("ring-hashes each group's cluster over its headless Service, in HTTP/2, probing gRPC health", () => {
    expect(clusters.map((cluster) => cluster.name).sort()).toEqual(groups.map((group) => `calq_${group}`).sort());
    for (const group of groups) {
      const cluster = clusters.find((candidate) => candidate.name === `calq_${group}`)!;
      expect(cluster.lb_policy).toBe("RING_HASH");
      expect(cluster.type).toBe("STRICT_DNS");
      const options = cluster.typed_extension_protocol_options["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"];
      expect(Object.keys(options.explicit_http_config)).toEqual(["http2_protocol_options"]);
      expect(cluster.health_checks.every((check) => check.grpc_health_check !== undefined)).toBe(true);
      const addresses = cluster.load_assignment.endpoints.flatMap((endpoints) =>
        endpoints.lb_endpoints.map(({ endpoint }) => endpoint.address.socket_address),
      );
      expect(addresses).toEqual([{ address: `calq-${group}`, port_value: servicePort(`calq-${group}`) }]);
    }
  });
});

/**
 * The deployment files are checked, not just written: every Kubernetes
 * object validates against its API schema (kubernetes-models), the calq.yaml
 * the ConfigMap carries passes calq's own schema and checks, every shard
 * group it names has its Deployment, headless Service, PodDisruptionBudget
 * and HorizontalPodAutoscaler, each replica is told its group, and the
 * probes ask the standard gRPC health service on the port calq serves.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { parseConfig } from "../../src/config/calq-config.js";
import { resolveServeSettings } from "../../src/config/server-config.js";
import { ShardMap } from "../../src/config/shard-map.js";

const ROOT = join(import.meta.dirname, "../..");

interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

interface Container {
  name: string;
  args: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: unknown[];
  ports: { name: string; containerPort: number }[];
  readinessProbe: unknown;
  livenessProbe?: unknown;
  startupProbe?: unknown;
  volumeMounts: { name: string; mountPath: string }[];
}

interface DeploymentSpec {
  selector: { matchLabels: Record<string, string> };
  template: {
    metadata: { labels: Record<string, string> };
    spec: {
      containers: Container[];
      volumes: { name: string; configMap?: { name: string }; emptyDir?: object; secret?: { secretName: string } }[];
      enableServiceLinks?: boolean;
    };
  };
}

function manifests(path: string): Manifest[] {
  return YAML.parseAllDocuments(readFileSync(join(ROOT, path), "utf8")).map((document) => document.toJS() as Manifest);
}

const calq = manifests("deploy/kubernetes/calq.yaml");
const envoy = manifests("deploy/kubernetes/envoy.yaml");

/** The model class of each kind the manifests use. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  ConfigMap,
  Secret,
  PersistentVolumeClaim,
  Deployment,
  Service,
  PodDisruptionBudget,
  HorizontalPodAutoscaler,
};

function named(documents: Manifest[], kind: string, name: string): Manifest {
  const found = documents.find((document) => document.kind === kind && document.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
}

const configMap = named(calq, "ConfigMap", "calq-config") as unknown as { data: Record<string, string> };
const secret = named(calq, "Secret", "calq-cursor-keys") as unknown as { stringData: Record<string, string> };
const digests = named(calq, "Secret", "calq-token-digests") as unknown as { stringData: Record<string, string> };
/** What a replica's environment holds: both Secrets, through envFrom. */
const environment = { ...secret.stringData, ...digests.stringData };
const config = parseConfig(YAML.parse(configMap.data["calq.yaml"]), "/etc/calq", "calq.yaml", environment);
const groups = config.shards?.groups ?? [];

const deploymentSpec = (document: Manifest) => document.spec as unknown as DeploymentSpec;

describe("deploy/kubernetes", () => {
  it.each([...calq, ...envoy].map((document) => [`${document.kind} ${document.metadata.name}`, document] as const))(
    "has a %s valid against its API schema",
    (_name, document) => {
      expect(Object.keys(MODELS)).toContain(document.kind);
      expect(() => new MODELS[document.kind](document as never).validate()).not.toThrow();
    },
  );

  it("carries a calq.yaml that calq itself accepts, split into shard groups, with the keys and token digests the Secrets provide", () => {
    expect(groups).toEqual(["g1", "g2"]);
    expect(config.principals.every((principal) => principal.tokenDigests.length > 0)).toBe(true);
    expect(configMap.data["calq.yaml"]).not.toMatch(/sha256:/);
    expect(config.search.cursorKeyEnv.every((name) => name in secret.stringData)).toBe(true);
    // Each group of the example serves something, and calendars sharing a key share a group.
    for (const group of groups) expect(new ShardMap(config, group).localCalendars().length).toBeGreaterThan(0);
    const an = new ShardMap(config, "g1").calendars().filter((calendar) => calendar.shardKey === "an");
    expect(new Set(an.map((calendar) => new ShardMap(config, "g1").groupOf(calendar))).size).toBe(1);
  });

  it("gives every shard group exactly one Deployment, headless Service, PodDisruptionBudget and HorizontalPodAutoscaler", () => {
    const perGroup = calq.filter((document) =>
      ["Deployment", "Service", "PodDisruptionBudget", "HorizontalPodAutoscaler"].includes(document.kind),
    );
    expect(perGroup.map((document) => `${document.kind} ${document.metadata.name}`).sort()).toEqual(
      groups
        .flatMap((group) =>
          ["Deployment", "Service", "PodDisruptionBudget", "HorizontalPodAutoscaler"].map((kind) => `${kind} calq-${group}`),
        )
        .sort(),
    );
    for (const group of groups) {
      const podLabels = deploymentSpec(named(calq, "Deployment", `calq-${group}`)).template.metadata.labels;
      expect(podLabels["calq.dev/shard-group"]).toBe(group);
      const service = named(calq, "Service", `calq-${group}`).spec as { clusterIP: string; selector: Record<string, string> };
      expect(service.clusterIP).toBe("None");
      expect(service.selector).toEqual(podLabels);
      const budget = named(calq, "PodDisruptionBudget", `calq-${group}`).spec as { selector: { matchLabels: Record<string, string> } };
      expect(budget.selector.matchLabels).toEqual(podLabels);
      const scaler = named(calq, "HorizontalPodAutoscaler", `calq-${group}`).spec as { scaleTargetRef: { name: string } };
      expect(scaler.scaleTargetRef.name).toBe(`calq-${group}`);
    }
  });

  it("tells each group's replicas their group, probes gRPC health on the port calq serves, and passes both Secrets", () => {
    for (const group of groups) {
      const [container] = deploymentSpec(named(calq, "Deployment", `calq-${group}`)).template.spec.containers;
      const shardGroup = container.env?.find((variable) => variable.name === "CALQ_SHARD_GROUP")?.value;
      expect(shardGroup).toBe(group);
      expect(() => new ShardMap(config, shardGroup)).not.toThrow();
      expect(container.readinessProbe).toMatchObject({ grpc: { port: 50051 } });
      // A group's first load may take minutes: liveness must not restart a replica before it has served once.
      const startup = container.startupProbe as { grpc: { port: number }; periodSeconds: number; failureThreshold: number };
      expect(startup.grpc.port).toBe(50051);
      expect(startup.periodSeconds * startup.failureThreshold).toBeGreaterThanOrEqual(300);
      expect(container.livenessProbe).toMatchObject({ grpc: { port: 50051 } });
      expect(container.ports.map((port) => port.containerPort)).toContain(50051);
      expect(container.envFrom).toEqual([{ secretRef: { name: "calq-cursor-keys" } }, { secretRef: { name: "calq-token-digests" } }]);
    }
  });

  it("reads the registry's database URL from the Secret calq-registry, and keeps each replica's local copy on a writable volume", () => {
    const registry = named(calq, "Secret", "calq-registry") as unknown as { stringData: Record<string, string> };
    expect(registry.stringData.CALQ_REGISTRY_URL).toMatch(/^postgres:\/\/.*sslmode=verify-full/);
    const document = YAML.parse(configMap.data["calq.yaml"]);
    expect(document.registry).toMatchObject({ engine: "postgresql", folder: "/var/lib/calq/registry" });
    expect(configMap.data["calq.yaml"]).not.toMatch(/postgres:\/\//);
    for (const group of groups) {
      const spec = deploymentSpec(named(calq, "Deployment", `calq-${group}`)).template.spec;
      const [container] = spec.containers;
      const url = container.env?.find((variable) => variable.name === "CALQ_REGISTRY_URL");
      expect(url?.valueFrom?.secretKeyRef).toEqual({ name: "calq-registry", key: "CALQ_REGISTRY_URL" });
      const settings = resolveServeSettings({ document, baseDirectory: "/etc/calq", cwd: "/", env: {}, flags: {} });
      expect(settings.registry).toMatchObject({ engine: "postgresql", urlEnv: "CALQ_REGISTRY_URL" });
      const mount = container.volumeMounts.find((volume) => volume.mountPath === settings.registry.folder);
      expect(spec.volumes.find((volume) => volume.name === mount?.name)?.emptyDir).toBeDefined();
      const ca = container.volumeMounts.find((volume) => volume.mountPath === "/etc/calq-registry-ca");
      expect(spec.volumes.find((volume) => volume.name === ca?.name)?.secret?.secretName).toBe("calq-registry");
    }
  });

  it("starts calq with the environment Kubernetes gives its pods: no Service's link variables reach it", () => {
    // Kubernetes sets <SERVICE>_PORT=tcp://ip:port (and more) in a pod for each Service of its namespace
    // unless enableServiceLinks is false; a Service named "calq" makes CALQ_PORT, which calq reads as its port.
    const services = [...calq, ...envoy].filter((manifest) => manifest.kind === "Service");
    const links = Object.fromEntries(
      services.flatMap((service) => {
        const name = service.metadata.name.toUpperCase().replaceAll("-", "_");
        const port = (service.spec as { ports: { port: number }[] }).ports[0].port;
        return [
          [`${name}_PORT`, `tcp://10.0.0.1:${port}`],
          [`${name}_SERVICE_HOST`, "10.0.0.1"],
          [`${name}_SERVICE_PORT`, String(port)],
        ];
      }),
    );
    expect(Object.keys(links)).toContain("CALQ_PORT");
    for (const group of groups) {
      const spec = deploymentSpec(named(calq, "Deployment", `calq-${group}`)).template.spec;
      const [container] = spec.containers;
      const env = {
        ...(spec.enableServiceLinks === false ? {} : links),
        ...Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable.value])),
      };
      expect(() => resolveServeSettings({ document: undefined, baseDirectory: "/", cwd: "/", env, flags: {} }), group).not.toThrow();
    }
  });

  it("runs Envoy with the ConfigMap made from deploy/envoy/envoy.yaml, behind the Service clients call", () => {
    const spec = deploymentSpec(named(envoy, "Deployment", "calq-envoy"));
    const [container] = spec.template.spec.containers;
    const configPath = container.args[container.args.indexOf("-c") + 1];
    const mount = container.volumeMounts.find((volume) => configPath.startsWith(`${volume.mountPath}/`))!;
    expect(spec.template.spec.volumes.find((volume) => volume.name === mount.name)?.configMap?.name).toBe("calq-envoy");
    expect(configPath).toBe("/etc/envoy/envoy.yaml");
    const bootstrap = YAML.parse(readFileSync(join(ROOT, "deploy/envoy/envoy.yaml"), "utf8"));
    const listenerPort = bootstrap.static_resources.listeners[0].address.socket_address.port_value;
    expect(container.ports.map((port) => port.containerPort)).toEqual([listenerPort]);
    const service = named(envoy, "Service", "calq").spec as { selector: Record<string, string> };
    expect(service.selector).toEqual(spec.template.metadata.labels);
  });
});

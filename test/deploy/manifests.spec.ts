/**
 * The deployment files are checked, not just written: every Kubernetes
 * object validates against its API schema (kubernetes-models), the calq.yaml
 * the ConfigMap carries passes calq's own schema and checks, and the probes
 * ask the standard gRPC health service on the port calq serves.
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

const ROOT = join(import.meta.dirname, "../..");
const documents = YAML.parseAllDocuments(readFileSync(join(ROOT, "deploy/kubernetes/calq.yaml"), "utf8")).map(
  (document) => document.toJS() as { kind: string; metadata: { name: string } } & Record<string, unknown>,
);

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

function one(kind: string) {
  const found = documents.find((document) => document.kind === kind);
  if (found === undefined) throw new Error(`no ${kind} in deploy/kubernetes/calq.yaml`);
  return found;
}

describe("deploy/kubernetes/calq.yaml", () => {
  it("holds a ConfigMap, Secret, volume claim, Deployment, Service, PodDisruptionBudget and HorizontalPodAutoscaler", () => {
    expect(documents.map((document) => document.kind).sort()).toEqual(Object.keys(MODELS).sort());
  });

  it.each(documents.map((document) => [document.kind, document] as const))("has a %s valid against its API schema", (kind, document) => {
    expect(() => new MODELS[kind](document as never).validate()).not.toThrow();
  });

  it("carries a calq.yaml that calq itself accepts, with the cursor keys the Secret provides", () => {
    const configMap = one("ConfigMap") as unknown as { data: Record<string, string> };
    const secret = one("Secret") as unknown as { stringData: Record<string, string> };
    const config = parseConfig(YAML.parse(configMap.data["calq.yaml"]), "/etc/calq", "calq.yaml", secret.stringData);
    expect(config.search.cursorKeyEnv.every((name) => name in secret.stringData)).toBe(true);
  });

  it("probes readiness and liveness with gRPC health on the port calq serves, and shares the keys through the Secret", () => {
    const deployment = one("Deployment") as unknown as {
      spec: {
        template: {
          spec: {
            containers: { ports: { containerPort: number }[]; readinessProbe: unknown; livenessProbe: unknown; envFrom: unknown[] }[];
          };
        };
      };
    };
    const [container] = deployment.spec.template.spec.containers;
    expect(container.readinessProbe).toMatchObject({ grpc: { port: 50051 } });
    expect(container.livenessProbe).toMatchObject({ grpc: { port: 50051 } });
    expect(container.ports.map((port) => port.containerPort)).toContain(50051);
    expect(container.envFrom).toEqual([{ secretRef: { name: "calq-cursor-keys" } }]);
  });
});

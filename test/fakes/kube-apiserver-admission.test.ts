import test from "ava";
import { join } from "node:path";
import { GatewayError } from "../../dataplane/core/errors.js";
import { ClientNodeKube } from "../../operator/kube/client-node-kube.js";
import {
  ALL_RESOURCES,
  APPS_DEPLOYMENTS,
  DEPLOYMENTS,
  EVIDENT_API_VERSION,
  FIELD_MANAGER,
  SERVICES,
} from "../../operator/kube/resources.js";
import type { KubeObject } from "../../operator/kube/types.js";
import { loadCrds } from "../support/k8s-schema-crd.js";
import { crdAdmission } from "./kube-apiserver-admission.js";
import { FakeKubeApiServer } from "./kube-apiserver.js";

const crds = loadCrds(join(import.meta.dirname, "..", "..", "crds"));

async function started(t: { teardown(fn: () => Promise<void>): void }): Promise<ClientNodeKube> {
  const server = new FakeKubeApiServer(ALL_RESOURCES, { admission: crdAdmission(crds) });
  await server.start();
  t.teardown(() => server.stop());
  return new ClientNodeKube(server.kubeConfig());
}

const deployment = (name: string, modelRef = "llama"): KubeObject => ({
  apiVersion: EVIDENT_API_VERSION,
  kind: "Deployment",
  metadata: { name },
  spec: { modelRef },
});

test("fake API server (test double) admission: CRD schema defaults, DNS-1035 CR names and the immutable modelRef (CEL transition rule) over HTTP", async (t) => {
  const kube = await started(t);
  const created = await kube.create(DEPLOYMENTS, "ml", deployment("llama"));
  t.like(created.spec as object, { port: 8000, scaling: { minReplicas: 1 }, shmSize: "1Gi" });
  const dotted = await t.throwsAsync(kube.create(DEPLOYMENTS, "ml", deployment("llama.v2")));
  t.is((dotted as GatewayError).status, 422);
  t.regex((dotted as GatewayError).message, /DNS-1035/);
  const changed = await t.throwsAsync(
    kube.patch(DEPLOYMENTS, "ml", "llama", { spec: { modelRef: "mistral" } }),
  );
  t.regex((changed as GatewayError).message, /modelRef is immutable/);
  const scaled = await kube.patch(DEPLOYMENTS, "ml", "llama", { spec: { port: 9000 } });
  t.is((scaled.spec as { port: number }).port, 9000);
});

test("fake API server (test double): a Service name that is not a DNS-1035 label is refused", async (t) => {
  const kube = await started(t);
  const err = await t.throwsAsync(
    kube.create(SERVICES, "ml", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "1-llama" },
    }),
  );
  t.is((err as GatewayError).status, 422);
});

test("fake API server (test double): client-node server-side apply records the field manager, normalises quantities and drops fields left out", async (t) => {
  const kube = await started(t);
  const workload = (nodeSelector?: Record<string, string>): KubeObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "llama-engine", labels: { app: "llama" } },
    spec: {
      replicas: 1,
      template: {
        spec: {
          ...(nodeSelector ? { nodeSelector } : {}),
          containers: [{ name: "engine", resources: { requests: { cpu: "0.5" } } }],
        },
      },
    },
  });
  await kube.apply(
    APPS_DEPLOYMENTS,
    "ml",
    workload({ "nvidia.com/gpu.product": "A100" }),
    FIELD_MANAGER,
  );
  const applied = await kube.apply(APPS_DEPLOYMENTS, "ml", workload(), FIELD_MANAGER);
  const spec = applied.spec as {
    template: { spec: { nodeSelector?: unknown; containers: { resources: unknown }[] } };
  };
  t.is(spec.template.spec.nodeSelector, undefined);
  t.deepEqual(spec.template.spec.containers[0]?.resources, { requests: { cpu: "500m" } });
  t.deepEqual(
    (applied.metadata.managedFields as { manager: string; operation: string }[]).map(
      (m) => `${m.manager}/${m.operation}`,
    ),
    [`${FIELD_MANAGER}/Apply`],
  );
});

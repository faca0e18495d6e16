import test from "ava";
import {
  APPS_DEPLOYMENTS,
  DEPLOYMENTS,
  FIELD_MANAGER,
  HORIZONTAL_POD_AUTOSCALERS,
  MODELS,
} from "../kube/resources.js";
import { isRecord, type KubeObject } from "../kube/types.js";
import { MODEL_SPEC, NS, ReconcileHarness } from "../testing/reconcile-harness.js";

// The engine workload is server-side applied (test double: the in-memory API server with field
// ownership and quantity normalisation, test/fakes/kube-apiserver-apply.ts).
const WORKLOAD = "llama-serve-engine";

async function deployed(spec: Record<string, unknown>): Promise<ReconcileHarness> {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  h.apply(DEPLOYMENTS, "llama-serve", { modelRef: "llama", ...spec });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  return h;
}

function podSpec(h: ReconcileHarness): Record<string, unknown> {
  const spec = h.get(APPS_DEPLOYMENTS, WORKLOAD)?.spec;
  const template = isRecord(spec) && isRecord(spec.template) ? spec.template : {};
  return isRecord(template.spec) ? template.spec : {};
}

function writesDuring(h: ReconcileHarness, since: number): string[] {
  return h.kube.calls.slice(since).filter((c) => !c.startsWith("get") && !c.startsWith("list"));
}

test("server-side apply (API server double): a field the operator stops setting is removed, e.g. a stale GPU product nodeSelector", async (t) => {
  const h = await deployed({ gpu: { count: 1, type: "NVIDIA-A100-SXM4-80GB" } });
  t.deepEqual(podSpec(h).nodeSelector, { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB" });
  h.apply(DEPLOYMENTS, "llama-serve", { modelRef: "llama", gpu: { count: 1 } });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(podSpec(h).nodeSelector, undefined);
  const managers = (h.get(APPS_DEPLOYMENTS, WORKLOAD)?.metadata.managedFields ?? []) as {
    manager: string;
    operation: string;
  }[];
  t.deepEqual(
    managers.map((m) => `${m.manager}/${m.operation}`),
    [`${FIELD_MANAGER}/Apply`],
  );
});

test("server-side apply (API server double): quantities the server stores canonically (0.5 -> 500m, 1024Mi -> 1Gi) cause no write on the next reconcile", async (t) => {
  const h = await deployed({
    resources: { requests: { cpu: "0.5", memory: "1024Mi" }, limits: { memory: 2147483648 } },
    modelCache: { emptyDir: { sizeLimit: "100000Mi" } },
  });
  const container = (podSpec(h).containers as { resources: unknown }[])[0];
  t.deepEqual(container?.resources, {
    requests: { cpu: "500m", memory: "1Gi" },
    limits: { memory: "2147483648" },
  });
  const since = h.kube.calls.length;
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.deepEqual(writesDuring(h, since), []);
});

test("autoscaling (API server double): an HPA between min and max; replicas another manager sets are kept; turning it off pins replicas again", async (t) => {
  const h = await deployed({ scaling: { minReplicas: 1, maxReplicas: 5, targetConcurrency: 16 } });
  t.truthy(h.get(HORIZONTAL_POD_AUTOSCALERS, WORKLOAD));
  // Plays the HPA controller scaling through the API (another field manager).
  h.store.update(
    APPS_DEPLOYMENTS,
    NS,
    WORKLOAD,
    (d) => ({ ...d, spec: { ...(d.spec as object), replicas: 4 } }),
    undefined,
    "kube-controller-manager",
  );
  h.apply(DEPLOYMENTS, "llama-serve", {
    modelRef: "llama",
    scaling: { minReplicas: 1, maxReplicas: 6, targetConcurrency: 16 },
  });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const spec = h.get(APPS_DEPLOYMENTS, WORKLOAD)?.spec as { replicas?: number };
  t.is(spec.replicas, 4, "the operator does not fight the autoscaler");
  t.is(
    (h.get(HORIZONTAL_POD_AUTOSCALERS, WORKLOAD)?.spec as { maxReplicas: number }).maxReplicas,
    6,
  );

  h.apply(DEPLOYMENTS, "llama-serve", { modelRef: "llama", scaling: { minReplicas: 2 } });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.get(HORIZONTAL_POD_AUTOSCALERS, WORKLOAD), undefined);
  t.is((h.get(APPS_DEPLOYMENTS, WORKLOAD)?.spec as { replicas?: number }).replicas, 2);
});

test("engine pods: startupProbe sized to the provisioning timeout, cache and /dev/shm volumes, restrictive securityContext, Secret env, scheduling and a pod template override", async (t) => {
  const h = await deployed({
    provisioningTimeoutSeconds: 1800,
    shmSize: "8Gi",
    modelCache: { persistentVolumeClaim: { claimName: "hf-cache" } },
    env: [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf", key: "token" } } }],
    envFrom: [{ secretRef: { name: "engine-extra" } }],
    tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
    priorityClassName: "inference",
    imagePullSecrets: [{ name: "regcred" }],
    podTemplate: {
      metadata: { annotations: { "example.com/team": "ml" } },
      spec: { runtimeClassName: "nvidia", containers: [{ name: "engine", workingDir: "/tmp" }] },
    },
  });
  const pod = podSpec(h);
  const [container] = pod.containers as Record<string, unknown>[];
  t.like(container?.startupProbe as object, { periodSeconds: 10, failureThreshold: 180 });
  t.like(container?.securityContext as object, {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
  });
  t.like(pod.securityContext as object, {
    runAsNonRoot: true,
    seccompProfile: { type: "RuntimeDefault" },
  });
  t.deepEqual(pod.volumes, [
    { name: "model-cache", persistentVolumeClaim: { claimName: "hf-cache" } },
    { name: "dshm", emptyDir: { medium: "Memory", sizeLimit: "8Gi" } },
    { name: "tmp", emptyDir: {} },
  ]);
  const env = container?.env as { name: string; valueFrom?: unknown }[];
  t.deepEqual(env.find((e) => e.name === "HF_TOKEN")?.valueFrom, {
    secretKeyRef: { name: "hf", key: "token" },
  });
  t.deepEqual(container?.envFrom, [{ secretRef: { name: "engine-extra" } }]);
  t.is(container?.workingDir, "/tmp", "the override merges into the engine container by name");
  t.like(pod, { priorityClassName: "inference", runtimeClassName: "nvidia" });
  t.deepEqual(pod.imagePullSecrets, [{ name: "regcred" }]);
  const template = (h.get(APPS_DEPLOYMENTS, WORKLOAD)?.spec as { template: KubeObject }).template;
  t.is(template.metadata.annotations?.["example.com/team"], "ml");
});

test("an engine workload of the same name owned by another Deployment CR (UID) is never taken over", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  h.store.create(APPS_DEPLOYMENTS, NS, {
    metadata: {
      name: WORKLOAD,
      labels: { "evident.dev/deployment": "llama-serve" },
      ownerReferences: [
        {
          apiVersion: "evident.dev/v1alpha1",
          kind: "Deployment",
          name: "llama-serve",
          uid: "old-uid",
          controller: true,
        },
      ],
    },
    spec: { replicas: 1 },
  });
  h.apply(DEPLOYMENTS, "llama-serve", { modelRef: "llama" });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, "NameConflict");
  t.regex(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.message ?? "", /old-uid/);
  t.deepEqual(h.get(APPS_DEPLOYMENTS, WORKLOAD)?.spec, { replicas: 1 });
});

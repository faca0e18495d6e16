import test from "ava";
import { GatewayError } from "../../dataplane/core/errors.js";
import {
  APPS_DEPLOYMENTS,
  DEPLOYMENTS,
  HORIZONTAL_POD_AUTOSCALERS,
  MODELS,
  PODS,
  SERVICES,
} from "../kube/resources.js";
import { isRecord } from "../kube/types.js";
import { MODEL_SPEC, NS, ReconcileHarness } from "../testing/reconcile-harness.js";
import { DEPLOYMENT_SPEC, WORKLOAD, nativeOf, withModel } from "../testing/deployment-fixture.js";

test("a Deployment waits in pending while its Model is not registered", async (t) => {
  const h = new ReconcileHarness();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  const outcome = await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.status(DEPLOYMENTS, "llama-serve").phase, "pending");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, "ModelNotReady");
  t.truthy(outcome.requeueAfterMs);
  t.is(h.native.deploymentStore.size, 0);
  t.is(h.get(APPS_DEPLOYMENTS, WORKLOAD), undefined);
});

test("a Deployment provisions a vLLM workload and Service and moves the native deployment to provisioning", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  const outcome = await h.reconcile(DEPLOYMENTS, "llama-serve");

  const apps = h.get(APPS_DEPLOYMENTS, WORKLOAD);
  const spec = apps?.spec as {
    replicas?: number;
    template: { spec: { containers: Record<string, unknown>[] } };
  };
  t.is(spec.replicas, undefined, "autoscaling on: the HorizontalPodAutoscaler owns replicas");
  t.like(h.get(HORIZONTAL_POD_AUTOSCALERS, WORKLOAD)?.spec as object, {
    minReplicas: 2,
    maxReplicas: 4,
    metrics: [{ type: "Pods", pods: { target: { averageValue: "8" } } }],
  });
  const container = spec.template.spec.containers[0] ?? {};
  t.regex(String(container.image), /^vllm\/vllm-openai:/);
  t.deepEqual(container.args, [
    "--model",
    "meta-llama/Meta-Llama-3-8B-Instruct",
    "--served-model-name",
    "llama-3-8b",
    "--port",
    "8000",
  ]);
  t.deepEqual(container.resources, {
    requests: { cpu: "4", memory: "16Gi", "nvidia.com/gpu": "1" },
    limits: { "nvidia.com/gpu": "1" },
  });
  t.like(container.readinessProbe, { httpGet: { path: "/health", port: 8000 } });
  t.like(container.livenessProbe, { httpGet: { path: "/health", port: 8000 } });
  const crUid = h.get(DEPLOYMENTS, "llama-serve")?.metadata.uid;
  t.like(apps?.metadata.ownerReferences?.[0], {
    kind: "Deployment",
    name: "llama-serve",
    uid: crUid,
    controller: true,
  });
  t.like(h.get(SERVICES, WORKLOAD)?.spec, { ports: [{ port: 8000, targetPort: 8000 }] });

  t.like(nativeOf(h), {
    status: "provisioning",
    scaling: { min_replicas: 2, max_replicas: 4, target_concurrency: 8 },
  });
  t.is(h.status(DEPLOYMENTS, "llama-serve").phase, "provisioning");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Provisioning")?.status, "True");
  t.is(outcome.requeueAfterMs, 600_000 + 1);
});

test("when the workload becomes available the native deployment runs with the Service endpoint and is routable", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.markWorkloadAvailable(WORKLOAD);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const endpoint = `http://${WORKLOAD}.${NS}.svc:8000/v1`;
  t.like(nativeOf(h), { status: "running", endpoint_url: endpoint });
  t.like(h.status(DEPLOYMENTS, "llama-serve"), { phase: "running", endpointUrl: endpoint });
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.status, "True");
  t.deepEqual(h.native.routableEndpoints(), [{ model: "llama-3-8b", endpoint }]);
  t.true(h.eventReasons("llama-serve").includes("Running"));
});

test("reconciling a running Deployment again writes nothing anywhere", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.markWorkloadAvailable(WORKLOAD);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const nativeWrites = h.native.writes.length;
  const kubeCalls = h.kube.calls.length;
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.native.writes.length, nativeWrites);
  const writes = h.kube.calls
    .slice(kubeCalls)
    .filter((c) => !c.startsWith("get") && !c.startsWith("list"));
  t.deepEqual(writes, []);
});

test("a running Deployment with no ready replica leaves routing, and comes back when a replica is ready", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.markWorkloadAvailable(WORKLOAD);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.native.routableEndpoints().length, 1);
  const crashing = h.addPod(WORKLOAD, "llama-serve", "CrashLoopBackOff");
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.deepEqual(h.native.routableEndpoints(), [], "out of routing");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, "Unavailable");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Reconciling")?.status, "True");
  t.true(h.eventReasons("llama-serve").includes("OutOfRouting"));

  h.store.delete(PODS, NS, crashing);
  h.addPod(WORKLOAD, "llama-serve", undefined, true);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(nativeOf(h)?.status, "running");
  t.is(h.native.routableEndpoints().length, 1, "routable again");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.status, "True");
});

test("a native deployment deleted through the REST API is replaced and brought back to running", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.markWorkloadAvailable(WORKLOAD);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const first = String(h.status(DEPLOYMENTS, "llama-serve").deploymentId);
  await h.native.deployments.delete(first);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const second = String(h.status(DEPLOYMENTS, "llama-serve").deploymentId);
  t.not(second, first);
  t.is(h.native.deploymentStore.get(second)?.status, "running");
  t.is(h.native.routableEndpoints().length, 1);
});

test("native scaling changed through the REST API is reverted", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const id = String(h.status(DEPLOYMENTS, "llama-serve").deploymentId);
  await h.native.deployments.patch(id, { scaling: { min_replicas: 0, max_replicas: 1 } });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.deepEqual(h.native.deploymentStore.get(id)?.scaling, {
    min_replicas: 2,
    max_replicas: 4,
    target_concurrency: 8,
  });
});

test("a change to the engine workload made with kubectl is reverted", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", { ...DEPLOYMENT_SPEC, scaling: { minReplicas: 2 } });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.store.update(APPS_DEPLOYMENTS, NS, WORKLOAD, (d) => ({
    ...d,
    spec: { ...(d.spec as object), replicas: 7 },
  }));
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const spec = h.get(APPS_DEPLOYMENTS, WORKLOAD)?.spec;
  t.is(isRecord(spec) ? spec.replicas : undefined, 2);
});

test("deleting a Deployment CR terminates the native deployment, removes it from routing and deletes the workload", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.markWorkloadAvailable(WORKLOAD);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const id = String(h.status(DEPLOYMENTS, "llama-serve").deploymentId);
  h.delete(DEPLOYMENTS, "llama-serve");
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.native.deploymentStore.get(id)?.status, "terminated");
  t.deepEqual(h.native.routableEndpoints(), []);
  t.is(h.get(APPS_DEPLOYMENTS, WORKLOAD), undefined);
  t.is(h.get(SERVICES, WORKLOAD), undefined);
  t.is(h.get(DEPLOYMENTS, "llama-serve"), undefined);
  // With the deployment gone, a Model with deletionPolicy Delete can be deregistered.
  h.apply(MODELS, "llama", { ...MODEL_SPEC, deletionPolicy: "Delete" });
  h.delete(MODELS, "llama");
  await h.reconcile(MODELS, "llama");
  t.is([...h.native.modelStore.values()][0]?.status, "deregistered");
});

test("an apps/v1 Deployment of the same name that the operator does not own is left alone", async (t) => {
  const h = await withModel();
  h.store.create(APPS_DEPLOYMENTS, NS, {
    metadata: { name: WORKLOAD, labels: { app: "theirs" } },
    spec: { replicas: 1 },
  });
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, "NameConflict");
  t.deepEqual(h.get(APPS_DEPLOYMENTS, WORKLOAD)?.spec, { replicas: 1 });
});

test("a resourceVersion conflict while adding the finalizer fails the attempt and the retry succeeds once", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  h.kube.failNext(
    "patch",
    "deployments",
    new GatewayError("resource_conflict", "the object has been modified"),
  );
  await t.throwsAsync(h.reconcile(DEPLOYMENTS, "llama-serve"));
  t.is(h.native.deploymentStore.size, 0);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.native.deploymentStore.size, 1);
});

test("a generic-engine Model without an image is reported instead of deploying an empty image", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", { ...MODEL_SPEC, engine: "generic" });
  await h.reconcile(MODELS, "llama");
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, "ImageRequired");
  t.is(h.get(APPS_DEPLOYMENTS, WORKLOAD), undefined);
});

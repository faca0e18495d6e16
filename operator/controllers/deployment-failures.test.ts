import test from "ava";
import { DEPLOYMENTS } from "../kube/resources.js";
import { NS } from "../testing/reconcile-harness.js";
import { DEPLOYMENT_SPEC, WORKLOAD, nativeOf, withModel } from "../testing/deployment-fixture.js";

test("a pod in CrashLoopBackOff (every replica failed) fails the deployment with that reason; Stalled for Argo CD and Flux", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Reconciling")?.status, "True");
  h.addPod(WORKLOAD, "llama-serve", "CrashLoopBackOff");
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(nativeOf(h)?.status, "failed");
  t.regex(String(nativeOf(h)?.reason), /CrashLoopBackOff/);
  t.is(h.status(DEPLOYMENTS, "llama-serve").phase, "failed");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, "CrashLoopBackOff");
  t.like(h.condition(DEPLOYMENTS, "llama-serve", "Stalled"), {
    status: "True",
    reason: "CrashLoopBackOff",
  });
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Reconciling")?.status, "False");
  t.true(h.eventReasons("llama-serve").includes("CrashLoopBackOff"));
});

for (const reason of ["ImagePullBackOff", "ErrImagePull"]) {
  test(`a pod in ${reason} is retried (the kubelet backs off) and fails only at the provisioning deadline`, async (t) => {
    const h = await withModel();
    h.apply(DEPLOYMENTS, "llama-serve", { ...DEPLOYMENT_SPEC, provisioningTimeoutSeconds: 60 });
    await h.reconcile(DEPLOYMENTS, "llama-serve");
    h.addPod(WORKLOAD, "llama-serve", reason);
    await h.reconcile(DEPLOYMENTS, "llama-serve");
    t.is(nativeOf(h)?.status, "provisioning");
    t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, reason);
    t.is(h.condition(DEPLOYMENTS, "llama-serve", "Reconciling")?.status, "True");
    t.is(h.condition(DEPLOYMENTS, "llama-serve", "Stalled")?.status, "False");
    h.clock.advance(61_000);
    await h.reconcile(DEPLOYMENTS, "llama-serve");
    t.is(nativeOf(h)?.status, "failed");
    t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, "ProvisioningTimeout");
    t.regex(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.message ?? "", new RegExp(reason));
  });
}

test("one crash-looping replica among ready ones does not fail the deployment", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.markWorkloadAvailable(WORKLOAD);
  h.addPod(WORKLOAD, "llama-serve", undefined, true);
  h.addPod(WORKLOAD, "llama-serve", "CrashLoopBackOff");
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(nativeOf(h)?.status, "running");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.status, "True");
});

test("a status written at the new generation does not keep a failed Deployment failed: the spec change retries", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.addPod(WORKLOAD, "llama-serve", "CrashLoopBackOff");
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const failedId = String(h.status(DEPLOYMENTS, "llama-serve").deploymentId);
  h.apply(DEPLOYMENTS, "llama-serve", { ...DEPLOYMENT_SPEC, engineArgs: ["--enforce-eager"] });
  const generation = h.get(DEPLOYMENTS, "llama-serve")?.metadata.generation;
  h.store.update(
    DEPLOYMENTS,
    NS,
    "llama-serve",
    (d) => ({ ...d, status: { ...(d.status as object), observedGeneration: generation } }),
    "status",
  );
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.not(h.status(DEPLOYMENTS, "llama-serve").deploymentId, failedId);
  t.is(h.status(DEPLOYMENTS, "llama-serve").phase, "provisioning");
});

test("a failed Deployment stays failed until its spec changes, then retries with a new native deployment", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", DEPLOYMENT_SPEC);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.addPod(WORKLOAD, "llama-serve", "CrashLoopBackOff");
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const failedId = String(h.status(DEPLOYMENTS, "llama-serve").deploymentId);
  const writes = h.native.writes.length;
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.native.writes.length, writes);

  h.apply(DEPLOYMENTS, "llama-serve", {
    ...DEPLOYMENT_SPEC,
    engineArgs: ["--max-model-len", "4096"],
  });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  const retryId = String(h.status(DEPLOYMENTS, "llama-serve").deploymentId);
  t.not(retryId, failedId);
  t.is(h.native.deploymentStore.get(failedId)?.status, "terminated");
  // The crashing pod belongs to the old pod template and no longer counts.
  t.is(h.status(DEPLOYMENTS, "llama-serve").phase, "provisioning");
  h.markWorkloadAvailable(WORKLOAD);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.native.deploymentStore.get(retryId)?.status, "running");
});

test("a Deployment not available within provisioningTimeoutSeconds fails with ProvisioningTimeout", async (t) => {
  const h = await withModel();
  h.apply(DEPLOYMENTS, "llama-serve", { ...DEPLOYMENT_SPEC, provisioningTimeoutSeconds: 60 });
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  h.clock.advance(30_000);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.status(DEPLOYMENTS, "llama-serve").phase, "provisioning");
  h.clock.advance(31_000);
  await h.reconcile(DEPLOYMENTS, "llama-serve");
  t.is(h.status(DEPLOYMENTS, "llama-serve").phase, "failed");
  t.is(nativeOf(h)?.status, "failed");
  t.is(h.condition(DEPLOYMENTS, "llama-serve", "Ready")?.reason, "ProvisioningTimeout");
});

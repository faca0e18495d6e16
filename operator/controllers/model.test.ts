import test from "ava";
import { GatewayError } from "../../dataplane/core/errors.js";
import { FINALIZER, MODELS } from "../kube/resources.js";
import { MODEL_SPEC, ReconcileHarness } from "../testing/reconcile-harness.js";

test("a Model CR registers the model through the native API and shows its id and Ready", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");

  const [model] = [...h.native.modelStore.values()];
  t.is(model?.name, "llama-3-8b");
  t.deepEqual(model?.pricing, { input_per_1k: 0.1, output_per_1k: 0.2 });
  t.is(model?.required_tier, "pro");
  t.is(h.status(MODELS, "llama").modelId, model?.id);
  t.is(h.condition(MODELS, "llama", "Ready")?.status, "True");
  t.is(h.condition(MODELS, "llama", "Ready")?.observedGeneration, 1);
  t.deepEqual(h.get(MODELS, "llama")?.metadata.finalizers, [FINALIZER]);
  t.true(h.eventReasons("llama").includes("Registered"));
});

test("reconciling a Model twice registers it once and writes nothing the second time", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  const writes = h.native.writes.length;
  const rv = h.get(MODELS, "llama")?.metadata.resourceVersion;
  await h.reconcile(MODELS, "llama");
  t.is(h.native.writes.length, writes);
  t.is(h.native.modelStore.size, 1);
  t.is(h.get(MODELS, "llama")?.metadata.resourceVersion, rv);
});

test("a 409 model_version_exists adopts the model already registered under that name and version", async (t) => {
  const h = new ReconcileHarness();
  const existing = await h.native.models.create({
    name: "llama-3-8b",
    version: "1",
    modality: "text",
    aliases: ["llama"],
    required_tier: "pro",
    pricing: { input_per_1k: 0.1, output_per_1k: 0.2 },
    engine_artifacts: { modelUri: "meta-llama/Meta-Llama-3-8B-Instruct" },
  });
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  t.is(h.status(MODELS, "llama").modelId, existing.id);
  t.is(h.native.modelStore.size, 1);
});

test("engine_artifacts changed through the REST API are reverted to the CR's spec", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  const id = String(h.status(MODELS, "llama").modelId);
  await h.native.models.patch(id, { engine_artifacts: { modelUri: "someone/else" } });
  await h.reconcile(MODELS, "llama");
  t.deepEqual(h.native.modelStore.get(id)?.engine_artifacts, MODEL_SPEC.engineArtifacts);
  t.true(h.eventReasons("llama").includes("DriftReverted"));
});

test("a Model deregistered through the REST API is reported, since a version cannot be registered twice", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  const id = String(h.status(MODELS, "llama").modelId);
  await h.native.models.delete(id);
  await h.reconcile(MODELS, "llama");
  t.is(h.status(MODELS, "llama").phase, "deregistered");
  t.is(h.condition(MODELS, "llama", "Ready")?.reason, "Deregistered");
  t.is(h.native.modelStore.size, 1);
  t.true(h.eventReasons("llama").includes("Deregistered"));
});

test("editing a frozen Model field is reported as Synced=False/FrozenFieldChanged", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  h.apply(MODELS, "llama", { ...MODEL_SPEC, pricing: { inputPer1k: 9, outputPer1k: 9 } });
  await h.reconcile(MODELS, "llama");
  const synced = h.condition(MODELS, "llama", "Synced");
  t.is(synced?.reason, "FrozenFieldChanged");
  t.regex(synced?.message ?? "", /pricing/);
  t.is(synced?.observedGeneration, 2);
});

test("a 422 from the native API becomes the Synced condition's message, without a retry", async (t) => {
  const h = new ReconcileHarness();
  h.native.failNext(
    "models.create",
    new GatewayError("validation_failed", "invalid model", {
      detail: [{ loc: ["body", "context_window"], msg: "too large", type: "value_error" }],
    }),
  );
  h.apply(MODELS, "llama", MODEL_SPEC);
  await t.notThrowsAsync(h.reconcile(MODELS, "llama"));
  const synced = h.condition(MODELS, "llama", "Synced");
  t.is(synced?.reason, "ValidationFailed");
  t.is(synced?.message, "invalid model: body.context_window: too large");
});

test("a transient native API failure is retried and succeeds on the next attempt", async (t) => {
  const h = new ReconcileHarness();
  h.native.failNext(
    "models.create",
    new GatewayError("upstream_unavailable", "connection refused"),
  );
  h.apply(MODELS, "llama", MODEL_SPEC);
  await t.throwsAsync(h.reconcile(MODELS, "llama"));
  t.is(h.condition(MODELS, "llama", "Synced")?.reason, "SyncFailed");
  await h.reconcile(MODELS, "llama");
  t.is(h.condition(MODELS, "llama", "Ready")?.status, "True");
  t.is(h.native.modelStore.size, 1);
});

test("an invalid spec is reported as InvalidSpec and nothing is registered", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "bad", { ...MODEL_SPEC, modality: "smell" });
  await h.reconcile(MODELS, "bad");
  t.is(h.condition(MODELS, "bad", "Ready")?.reason, "InvalidSpec");
  t.regex(h.condition(MODELS, "bad", "Ready")?.message ?? "", /spec\.modality/);
  t.is(h.native.modelStore.size, 0);
});

test("deleting a Model CR leaves the model registered by default (deletionPolicy Retain)", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  h.delete(MODELS, "llama");
  await h.reconcile(MODELS, "llama");
  t.is([...h.native.modelStore.values()][0]?.status ?? "registered", "registered");
  t.is(h.native.writes.filter((w) => w.startsWith("DELETE")).length, 0);
  t.is(h.get(MODELS, "llama"), undefined, "the finalizer is released");
});

test("a second Model CR for the same name@version (another namespace) is refused and cannot deregister the first team's model", async (t) => {
  const h = new ReconcileHarness();
  const DELETE = { ...MODEL_SPEC, deletionPolicy: "Delete" };
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  const id = h.status(MODELS, "llama").modelId;
  h.clock.advance(1000);
  h.apply(MODELS, "llama", DELETE, "team-b");
  await h.reconcile(MODELS, "llama", "team-b");
  const refused = h.get(MODELS, "llama", "team-b");
  const ready = (
    refused?.status as { conditions: { type: string; reason: string; message: string }[] }
  ).conditions.find((c) => c.type === "Ready");
  t.is(ready?.reason, "AlreadyOwned");
  t.regex(ready?.message ?? "", /team-a\/llama/);
  t.is(h.status(MODELS, "llama", "team-b").modelId, undefined, "it does not adopt the model");
  h.delete(MODELS, "llama", "team-b");
  await h.reconcile(MODELS, "llama", "team-b");
  t.is(h.get(MODELS, "llama", "team-b"), undefined);
  t.not(h.native.modelStore.get(String(id))?.status, "deregistered");
  // The first CR still owns it and stays Ready.
  await h.reconcile(MODELS, "llama");
  t.is(h.condition(MODELS, "llama", "Ready")?.status, "True");
});

test("deleting a Model CR with deletionPolicy Delete deregisters the model, then releases the finalizer", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", { ...MODEL_SPEC, deletionPolicy: "Delete" });
  await h.reconcile(MODELS, "llama");
  h.delete(MODELS, "llama");
  t.truthy(h.get(MODELS, "llama")?.metadata.deletionTimestamp);
  await h.reconcile(MODELS, "llama");
  t.is([...h.native.modelStore.values()][0]?.status, "deregistered");
  t.is(h.get(MODELS, "llama"), undefined);
});

test("deleting a Model that still has active deployments keeps retrying and says why", async (t) => {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", { ...MODEL_SPEC, deletionPolicy: "Delete" });
  await h.reconcile(MODELS, "llama");
  await h.native.deployments.create({
    model_id: String(h.status(MODELS, "llama").modelId),
    scaling: { min_replicas: 1, max_replicas: 1 },
  });
  h.delete(MODELS, "llama");
  const err = await t.throwsAsync(h.reconcile(MODELS, "llama"));
  t.is((err as GatewayError).code, "model_has_active_deployments");
  t.is(h.condition(MODELS, "llama", "Ready")?.reason, "CleanupFailed");
  t.truthy(h.get(MODELS, "llama"));
});

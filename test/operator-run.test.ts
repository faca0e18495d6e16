import test, { type ExecutionContext } from "ava";
import { APPS_DEPLOYMENTS, DEPLOYMENTS, MODELS, ROUTES } from "../operator/kube/resources.js";
import { startHealthServer } from "../operator/runtime/health-server.js";
import { FakeNativeApiServer } from "../operator/testing/fake-native-api-server.js";
import { startOperatorRig, type OperatorRig } from "../operator/testing/operator-rig.js";
import { MODEL_SPEC } from "../operator/testing/reconcile-harness.js";

const KEY = "ev_sk_" + "k".repeat(40);

async function rig(
  t: ExecutionContext,
  endpointTemplate?: string,
): Promise<{ r: OperatorRig; native: FakeNativeApiServer }> {
  const native = new FakeNativeApiServer(KEY);
  await native.start();
  const r = await startOperatorRig({
    nativeUrl: native.url,
    adminKey: KEY,
    ...(endpointTemplate ? { endpointTemplate } : {}),
  });
  t.teardown(async () => {
    await r.stop();
    await native.stop();
  });
  return { r, native };
}

const ROUTE = {
  customerId: "acme",
  match: { model: "chat" },
  strategy: "fallback",
  targets: [{ model: "llama-3-8b", weight: 1 }],
  enabled: true,
};

test("operator against the fake API server and fake native API (test doubles): Model + Deployment reach running, deletion terminates", async (t) => {
  const { r, native } = await rig(t);
  r.startReplica("op-0");
  r.apply(MODELS, "llama", MODEL_SPEC);
  r.apply(DEPLOYMENTS, "llama-serve", { modelRef: "llama" });
  await r.until(() => r.status(DEPLOYMENTS, "llama-serve").phase === "provisioning");
  r.markWorkloadAvailable("llama-serve");
  await r.until(() => r.status(DEPLOYMENTS, "llama-serve").phase === "running");
  t.deepEqual(native.api.routableEndpoints(), [
    { model: "llama-3-8b", endpoint: "http://llama-serve-engine.team-a.svc:8000/v1" },
  ]);

  r.remove(DEPLOYMENTS, "llama-serve");
  await r.until(() => !r.exists(DEPLOYMENTS, "llama-serve"));
  t.deepEqual(native.api.routableEndpoints(), []);
  t.is([...native.api.deploymentStore.values()][0]?.status, "terminated");
  t.false(r.exists(APPS_DEPLOYMENTS, "llama-serve-engine"));
});

test("ENDPOINT_URL_TEMPLATE decides the endpoint_url a running deployment is routed to (test doubles)", async (t) => {
  const { r, native } = await rig(t, "http://127.0.0.1:4010/v1");
  r.startReplica("op-0");
  r.apply(MODELS, "llama", MODEL_SPEC);
  r.apply(DEPLOYMENTS, "llama-serve", { modelRef: "llama" });
  await r.until(() => r.status(DEPLOYMENTS, "llama-serve").phase === "provisioning");
  r.markWorkloadAvailable("llama-serve");
  await r.until(() => r.status(DEPLOYMENTS, "llama-serve").phase === "running");
  t.is(native.api.routableEndpoints()[0]?.endpoint, "http://127.0.0.1:4010/v1");
});

test("the operator survives API server restarts and 409s without losing or duplicating work (test doubles)", async (t) => {
  const { r, native } = await rig(t);
  r.startReplica("op-0");
  r.apply(MODELS, "llama", MODEL_SPEC);
  await r.until(() => typeof r.status(MODELS, "llama").modelId === "string");

  await r.kubeServer.stop();
  r.apply(DEPLOYMENTS, "llama-serve", { modelRef: "llama" });
  r.apply(ROUTES, "chat", ROUTE);
  r.kubeServer.store.compact(); // the restarted server cannot replay: the operator must relist
  // The first writes to the Route after the restart hit resourceVersion conflicts.
  r.kubeServer.failNext({ method: "PATCH", path: "/routes/chat", status: 409, times: 2 });
  await r.kubeServer.start();

  await r.until(
    () =>
      r.status(DEPLOYMENTS, "llama-serve").phase === "provisioning" &&
      r.status(ROUTES, "chat").synced === true,
  );
  await r.kubeServer.stop();
  r.markWorkloadAvailable("llama-serve");
  await r.kubeServer.start();
  await r.until(() => r.status(DEPLOYMENTS, "llama-serve").phase === "running");

  t.is(native.api.modelStore.size, 1);
  t.is(native.api.deploymentStore.size, 1);
  t.is(native.api.routeStore.size, 1);
  t.is(native.api.writes.filter((w) => w.startsWith("POST")).length, 3);
  const routePatches = r.kubeServer.requests.filter(
    (q) => q === `PATCH /apis/evident.dev/v1alpha1/namespaces/${r.namespace}/routes/chat`,
  );
  t.true(routePatches.length >= 3);
  const restarts = await r.metrics.registry.getSingleMetricAsString(
    "evident_operator_watch_restarts_total",
  );
  t.regex(restarts, /reason="(error|expired)"/);
});

test("periodic resync reverts a change made through the native REST API (test doubles)", async (t) => {
  const { r, native } = await rig(t);
  r.startReplica("op-0");
  r.apply(ROUTES, "chat", ROUTE);
  await r.until(() => r.status(ROUTES, "chat").synced === true);
  const id = String(r.status(ROUTES, "chat").routeId);
  await native.api.routes.patch(id, { enabled: false });
  await r.until(() => native.api.routeStore.get(id)?.enabled === true);
  t.pass();
});

test("only the leader reconciles; a standby takes over when the leader stops (test doubles)", async (t) => {
  const { r, native } = await rig(t);
  const first = r.startReplica("op-a");
  await r.until(() => first.isLeader);
  const second = r.startReplica("op-b");
  await r.until(() => second.ready());
  r.apply(ROUTES, "chat", ROUTE);
  await r.until(() => r.status(ROUTES, "chat").synced === true);
  t.false(second.isLeader);
  await first.stop();
  await r.until(() => second.isLeader);
  r.apply(ROUTES, "chat-2", { ...ROUTE, match: { model: "chat-2" } });
  await r.until(() => r.status(ROUTES, "chat-2").synced === true);
  t.is(native.api.routeStore.size, 2);
});

test("/healthz, /readyz and /metrics are served", async (t) => {
  const { r } = await rig(t);
  const operator = r.startReplica("op-0");
  const server = await startHealthServer({
    port: 0,
    host: "127.0.0.1",
    registry: r.metrics.registry,
    live: () => true,
    ready: () => operator.ready(),
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await r.until(() => operator.ready());
  t.is((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  t.is((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
  await r.until(() => operator.isLeader);
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  t.regex(metrics, /evident_operator_leader 1/);
  t.regex(metrics, /evident_operator_reconcile_duration_seconds/);
});

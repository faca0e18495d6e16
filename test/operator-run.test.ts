import test, { type ExecutionContext } from "ava";
import { pino } from "pino";
import { FakeKubeApiServer } from "./fakes/kube-apiserver.js";
import { ClientNodeKube } from "../operator/kube/client-node-kube.js";
import {
  ALL_RESOURCES,
  APPS_DEPLOYMENTS,
  DEPLOYMENTS,
  EVIDENT_API_VERSION,
  MODELS,
  ROUTES,
} from "../operator/kube/resources.js";
import { isRecord, type ResourceType } from "../operator/kube/types.js";
import { httpNativeApi } from "../operator/native/native-client.js";
import { startOperator, type RunningOperator } from "../operator/operator.js";
import { systemClock } from "../operator/runtime/clock.js";
import { startHealthServer } from "../operator/runtime/health-server.js";
import { OperatorMetrics } from "../operator/runtime/metrics.js";
import { FakeNativeApiServer } from "../operator/testing/fake-native-api-server.js";
import { MODEL_SPEC } from "../operator/testing/reconcile-harness.js";

const KEY = "ev_sk_" + "k".repeat(40);
const NS = "team-a";

interface Rig {
  kubeServer: FakeKubeApiServer;
  nativeServer: FakeNativeApiServer;
  metrics: OperatorMetrics;
  start(identity?: string): RunningOperator;
}

async function rig(t: ExecutionContext): Promise<Rig> {
  const kubeServer = new FakeKubeApiServer(ALL_RESOURCES);
  await kubeServer.start();
  const nativeServer = new FakeNativeApiServer(KEY);
  await nativeServer.start();
  const metrics = new OperatorMetrics();
  const running: RunningOperator[] = [];
  t.teardown(async () => {
    for (const operator of running) await operator.stop();
    await kubeServer.stop();
    await nativeServer.stop();
  });
  return {
    kubeServer,
    nativeServer,
    metrics,
    start(identity = "op-0") {
      const operator = startOperator({
        kube: new ClientNodeKube(kubeServer.kubeConfig()),
        native: httpNativeApi({ baseUrl: nativeServer.url, adminKey: KEY }),
        clock: systemClock,
        logger: pino({ level: "silent" }),
        metrics,
        watchNamespace: undefined,
        resyncMs: 400,
        identity,
        lease: {
          namespace: "evident-system",
          name: "evident-operator",
          durationMs: 30_000,
          retryPeriodMs: 100,
        },
        backoff: { baseMs: 20, maxMs: 200, jitter: 0.5 },
      });
      running.push(operator);
      return operator;
    },
  };
}

function apply(
  server: FakeKubeApiServer,
  resource: ResourceType,
  name: string,
  spec: unknown,
): void {
  server.store.create(resource, NS, {
    apiVersion: EVIDENT_API_VERSION,
    kind: resource.kind,
    metadata: { name },
    spec,
  });
}

function status(
  server: FakeKubeApiServer,
  resource: ResourceType,
  name: string,
): Record<string, unknown> {
  try {
    const object = server.store.get(resource, NS, name);
    return isRecord(object.status) ? object.status : {};
  } catch {
    return {};
  }
}

function markAvailable(server: FakeKubeApiServer, name: string): void {
  server.store.update(
    APPS_DEPLOYMENTS,
    NS,
    name,
    (d) => ({
      ...d,
      status: {
        observedGeneration: d.metadata.generation,
        availableReplicas: 1,
        conditions: [{ type: "Available", status: "True" }],
      },
    }),
    "status",
  );
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

const ROUTE = {
  customerId: "acme",
  match: { model: "chat" },
  strategy: "fallback",
  targets: [{ model: "llama-3-8b", weight: 1 }],
  enabled: true,
};

test("operator against the fake API server and fake native API (test doubles): Model + Deployment reach running, deletion terminates", async (t) => {
  const r = await rig(t);
  r.start();
  apply(r.kubeServer, MODELS, "llama", MODEL_SPEC);
  apply(r.kubeServer, DEPLOYMENTS, "llama-serve", { modelRef: "llama" });
  await until(() => status(r.kubeServer, DEPLOYMENTS, "llama-serve").phase === "provisioning");
  markAvailable(r.kubeServer, "llama-serve-engine");
  await until(() => status(r.kubeServer, DEPLOYMENTS, "llama-serve").phase === "running");
  t.deepEqual(r.nativeServer.api.routableEndpoints(), [
    { model: "llama-3-8b", endpoint: "http://llama-serve-engine.team-a.svc:8000/v1" },
  ]);

  r.kubeServer.store.delete(DEPLOYMENTS, NS, "llama-serve");
  await until(() => r.kubeServer.store.list(DEPLOYMENTS, NS).items.length === 0);
  t.deepEqual(r.nativeServer.api.routableEndpoints(), []);
  t.is([...r.nativeServer.api.deploymentStore.values()][0]?.status, "terminated");
  t.is(r.kubeServer.store.list(APPS_DEPLOYMENTS, NS).items.length, 0);
});

test("the operator survives API server restarts and 409s without losing or duplicating work (test doubles)", async (t) => {
  const r = await rig(t);
  r.start();
  apply(r.kubeServer, MODELS, "llama", MODEL_SPEC);
  await until(() => typeof status(r.kubeServer, MODELS, "llama").modelId === "string");

  await r.kubeServer.stop();
  apply(r.kubeServer, DEPLOYMENTS, "llama-serve", { modelRef: "llama" });
  apply(r.kubeServer, ROUTES, "chat", ROUTE);
  r.kubeServer.store.compact(); // the restarted server cannot replay: the operator must relist
  // The first status writes after the restart hit resourceVersion conflicts.
  r.kubeServer.failNext({ method: "PATCH", path: "/routes/chat", status: 409, times: 2 });
  await r.kubeServer.start();

  await until(
    () =>
      status(r.kubeServer, DEPLOYMENTS, "llama-serve").phase === "provisioning" &&
      status(r.kubeServer, ROUTES, "chat").synced === true,
  );
  await r.kubeServer.stop();
  markAvailable(r.kubeServer, "llama-serve-engine");
  await r.kubeServer.start();
  await until(() => status(r.kubeServer, DEPLOYMENTS, "llama-serve").phase === "running");

  const native = r.nativeServer.api;
  t.is(native.modelStore.size, 1);
  t.is(native.deploymentStore.size, 1);
  t.is(native.routeStore.size, 1);
  t.is(native.writes.filter((w) => w.startsWith("POST")).length, 3);
  t.true(
    r.kubeServer.requests.filter(
      (req) => req === `PATCH /apis/evident.dev/v1alpha1/namespaces/${NS}/routes/chat`,
    ).length >= 3,
  );
  const restarts = await r.metrics.registry.getSingleMetricAsString(
    "evident_operator_watch_restarts_total",
  );
  t.regex(restarts, /reason="(error|expired)"/);
});

test("periodic resync reverts a change made through the native REST API (test doubles)", async (t) => {
  const r = await rig(t);
  r.start();
  apply(r.kubeServer, ROUTES, "chat", ROUTE);
  await until(() => status(r.kubeServer, ROUTES, "chat").synced === true);
  const id = String(status(r.kubeServer, ROUTES, "chat").routeId);
  await r.nativeServer.api.routes.patch(id, { enabled: false });
  await until(() => r.nativeServer.api.routeStore.get(id)?.enabled === true);
  t.pass();
});

test("only the leader reconciles; a standby takes over when the leader stops (test doubles)", async (t) => {
  const r = await rig(t);
  const first = r.start("op-a");
  await until(() => first.isLeader);
  const second = r.start("op-b");
  await until(() => second.ready());
  apply(r.kubeServer, ROUTES, "chat", ROUTE);
  await until(() => status(r.kubeServer, ROUTES, "chat").synced === true);
  t.false(second.isLeader);
  await first.stop();
  await until(() => second.isLeader);
  apply(r.kubeServer, ROUTES, "chat-2", { ...ROUTE, match: { model: "chat-2" } });
  await until(() => status(r.kubeServer, ROUTES, "chat-2").synced === true);
  t.is(r.nativeServer.api.routeStore.size, 2);
});

test("/healthz, /readyz and /metrics are served", async (t) => {
  const r = await rig(t);
  const operator = r.start();
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
  await until(() => operator.ready());
  t.is((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  t.is((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
  await until(() => operator.isLeader);
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  t.regex(metrics, /evident_operator_leader 1/);
  t.regex(metrics, /evident_operator_reconcile_duration_seconds/);
});

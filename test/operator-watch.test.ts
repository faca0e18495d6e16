import test from "ava";
import { pino } from "pino";
import { FakeKubeApiServer } from "./fakes/kube-apiserver.js";
import { ClientNodeKube } from "../operator/kube/client-node-kube.js";
import type { KubeClient } from "../operator/kube/kube-client.js";
import { ALL_RESOURCES, EVIDENT_API_VERSION, MODELS, ROUTES } from "../operator/kube/resources.js";
import { systemClock } from "../operator/runtime/clock.js";
import { Informer } from "../operator/runtime/informer.js";
import { LeaderElector } from "../operator/runtime/leader-election.js";

const logger = pino({ level: "silent" });

async function apiServer(t: {
  teardown(fn: () => Promise<void>): void;
}): Promise<FakeKubeApiServer> {
  const server = new FakeKubeApiServer(ALL_RESOURCES);
  await server.start();
  t.teardown(() => server.stop());
  return server;
}

function informer(kube: KubeClient, restarts: string[] = [], seen: string[] = []): Informer {
  const result = new Informer({
    kube,
    resource: MODELS,
    namespace: undefined,
    clock: systemClock,
    logger,
    resyncMs: 60_000,
    backoff: { baseMs: 20, maxMs: 200, jitter: 0.5 },
    onChange: (o, deleted) => seen.push(`${deleted ? "-" : "+"}${o.metadata.name}`),
    onWatchRestart: (reason) => restarts.push(reason),
  });
  result.start();
  return result;
}

const model = (name: string) => ({
  apiVersion: EVIDENT_API_VERSION,
  kind: "Model",
  metadata: { name },
  spec: {},
});
const names = (i: Informer) =>
  i
    .list()
    .map((o) => o.metadata.name)
    .sort();

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

test("the informer lists, then follows the watch (fake API server test double)", async (t) => {
  const server = await apiServer(t);
  server.store.create(MODELS, "ns", model("a"));
  const inf = informer(new ClientNodeKube(server.kubeConfig()));
  t.teardown(() => inf.stop());
  await until(() => inf.hasSynced);
  t.deepEqual(names(inf), ["a"]);
  server.store.create(MODELS, "ns", model("b"));
  server.store.delete(MODELS, "ns", "a");
  await until(() => names(inf).join() === "b");
  t.pass();
});

test("the informer reconnects after the API server restarts and catches up on changes made meanwhile (test double)", async (t) => {
  const server = await apiServer(t);
  server.store.create(MODELS, "ns", model("a"));
  const restarts: string[] = [];
  const inf = informer(new ClientNodeKube(server.kubeConfig()), restarts);
  t.teardown(() => inf.stop());
  await until(() => inf.hasSynced);
  await server.stop();
  server.store.create(MODELS, "ns", model("b"));
  server.store.delete(MODELS, "ns", "a");
  await until(() => restarts.length > 0);
  await server.start();
  await until(() => names(inf).join() === "b");
  t.true(restarts.includes("error") || restarts.includes("closed"));
});

test("a 410 Gone after compaction makes the informer relist; objects deleted meanwhile leave the cache (test double)", async (t) => {
  const server = await apiServer(t);
  server.store.create(MODELS, "ns", model("a"));
  server.store.create(MODELS, "ns", model("b"));
  const restarts: string[] = [];
  const seen: string[] = [];
  const inf = informer(new ClientNodeKube(server.kubeConfig()), restarts, seen);
  t.teardown(() => inf.stop());
  await until(() => inf.hasSynced);
  await server.stop();
  server.store.delete(MODELS, "ns", "a");
  server.store.create(MODELS, "ns", model("c"));
  server.store.compact();
  await server.start();
  await until(() => restarts.includes("expired") && names(inf).join() === "b,c");
  t.true(seen.includes("-a"));
  t.true(seen.includes("+c"));
});

test("bookmarks move the informer's resourceVersion forward without object changes (test double)", async (t) => {
  const server = await apiServer(t);
  const inf = informer(new ClientNodeKube(server.kubeConfig()));
  t.teardown(() => inf.stop());
  await until(() => inf.hasSynced);
  const start = Number(inf.lastResourceVersion);
  // Changes to another resource advance the global resourceVersion only.
  server.store.create(ROUTES, "ns", { metadata: { name: "r" }, spec: {} });
  await until(() =>
    server.requests.some((r) => r.startsWith("GET /apis/evident.dev/v1alpha1/models")),
  );
  await until(() => {
    server.sendBookmarks();
    return Number(inf.lastResourceVersion) > start;
  });
  t.is(inf.lastResourceVersion, server.store.currentResourceVersion());
});

function elector(
  kube: KubeClient,
  identity: string,
  onChange: (leading: boolean) => void,
  leaseDurationMs = 1000,
): LeaderElector {
  return new LeaderElector({
    kube,
    clock: systemClock,
    logger,
    namespace: "evident-system",
    leaseName: "evident-operator",
    identity,
    leaseDurationMs,
    retryPeriodMs: 100,
    onStartedLeading: () => onChange(true),
    onStoppedLeading: () => onChange(false),
  });
}

test("one of two replicas leads; releasing the Lease hands over to the other (test double)", async (t) => {
  const server = await apiServer(t);
  const kube = new ClientNodeKube(server.kubeConfig());
  let aLeads = false;
  let bLeads = false;
  // A long lease: b must not win by expiry even on a loaded machine, only by a's release.
  const a = elector(kube, "a", (l) => (aLeads = l), 30_000);
  a.start();
  await until(() => aLeads);
  const b = elector(kube, "b", (l) => (bLeads = l), 30_000);
  b.start();
  t.teardown(() => b.release());
  // b keeps campaigning while a renews; it cannot win while a holds a live lease.
  await until(() => server.requests.filter((r) => r.includes("/leases/")).length > 8);
  t.false(bLeads);
  await a.release();
  await until(() => bLeads);
  t.false(aLeads);
});

test("a leader that cannot renew steps down and another replica takes over after the lease expires (test double)", async (t) => {
  const server = await apiServer(t);
  const healthy = new ClientNodeKube(server.kubeConfig());
  let partitioned = false;
  const flaky: KubeClient = new Proxy(healthy, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        partitioned ? Promise.reject(new Error("network partition")) : value.apply(target, args);
    },
  });
  let aLeads = false;
  let bLeads = false;
  const a = elector(flaky, "a", (l) => (aLeads = l));
  a.start();
  await until(() => aLeads);
  const b = elector(healthy, "b", (l) => (bLeads = l));
  b.start();
  t.teardown(async () => {
    await a.release();
    await b.release();
  });
  partitioned = true;
  await until(() => bLeads && !aLeads);
  const lease = server.store.get(
    {
      group: "coordination.k8s.io",
      version: "v1",
      plural: "leases",
      kind: "Lease",
      namespaced: true,
    },
    "evident-system",
    "evident-operator",
  );
  t.like(lease.spec, { holderIdentity: "b", leaseTransitions: 1 });
});

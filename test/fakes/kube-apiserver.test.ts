import test from "ava";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { ClientNodeKube } from "../../operator/kube/client-node-kube.js";
import { ALL_RESOURCES, EVIDENT_API_VERSION, MODELS } from "../../operator/kube/resources.js";
import type { WatchEvent } from "../../operator/kube/types.js";
import { FakeKubeApiServer } from "./kube-apiserver.js";

async function started(t: { teardown(fn: () => Promise<void>): void }): Promise<FakeKubeApiServer> {
  const server = new FakeKubeApiServer(ALL_RESOURCES);
  await server.start();
  t.teardown(() => server.stop());
  return server;
}

const model = (name: string, finalizers?: string[]) => ({
  apiVersion: EVIDENT_API_VERSION,
  kind: "Model",
  metadata: { name, ...(finalizers ? { finalizers } : {}) },
  spec: { name, version: "1" },
});

test("fake API server (test double): client-node creates, gets, lists and merge-patches custom objects", async (t) => {
  const server = await started(t);
  const kube = new ClientNodeKube(server.kubeConfig());
  const created = await kube.create(MODELS, "ns", model("a"));
  t.is(created.metadata.generation, 1);
  t.truthy(created.metadata.uid);
  t.is((await kube.get(MODELS, "ns", "a"))?.metadata.name, "a");
  t.is(await kube.get(MODELS, "ns", "missing"), undefined);
  const patched = await kube.patch(MODELS, "ns", "a", { spec: { version: "2" } });
  t.is(patched.metadata.generation, 2);
  t.deepEqual(patched.spec, { name: "a", version: "2" });
  const listed = await kube.list(MODELS, undefined);
  t.deepEqual(
    listed.items.map((o) => o.metadata.name),
    ["a"],
  );
  t.is(listed.resourceVersion, patched.metadata.resourceVersion ?? "");
});

test("fake API server (test double): status subresource writes only status and never bumps generation", async (t) => {
  const server = await started(t);
  const kube = new ClientNodeKube(server.kubeConfig());
  await kube.create(MODELS, "ns", model("a"));
  const withStatus = await kube.patchStatus(MODELS, "ns", "a", {
    status: { modelId: "m1" },
    spec: { version: "9" },
  });
  t.deepEqual(withStatus.status, { modelId: "m1" });
  t.is((withStatus.spec as { version: string }).version, "1");
  t.is(withStatus.metadata.generation, 1);
  const mainWrite = await kube.patch(MODELS, "ns", "a", { status: { modelId: "ignored" } });
  t.deepEqual(mainWrite.status, { modelId: "m1" });
});

test("fake API server (test double): 409 on a stale resourceVersion and on a duplicate create", async (t) => {
  const server = await started(t);
  const kube = new ClientNodeKube(server.kubeConfig());
  const created = await kube.create(MODELS, "ns", model("a"));
  await kube.patch(MODELS, "ns", "a", { spec: { version: "2" } });
  const stale = await t.throwsAsync(
    kube.patch(MODELS, "ns", "a", {
      metadata: { resourceVersion: created.metadata.resourceVersion },
      spec: { version: "3" },
    }),
  );
  t.is((stale as { code?: string }).code, "resource_conflict");
  const duplicate = await t.throwsAsync(kube.create(MODELS, "ns", model("a")));
  t.is((duplicate as { code?: string }).code, "resource_conflict");
});

test("fake API server (test double): delete waits for finalizers, marking deletionTimestamp", async (t) => {
  const server = await started(t);
  const kube = new ClientNodeKube(server.kubeConfig());
  await kube.create(MODELS, "ns", model("a", ["evident.dev/cleanup"]));
  await kube.delete(MODELS, "ns", "a");
  const marked = await kube.get(MODELS, "ns", "a");
  t.truthy(marked?.metadata.deletionTimestamp);
  await kube.patch(MODELS, "ns", "a", { metadata: { finalizers: [] } });
  t.is(await kube.get(MODELS, "ns", "a"), undefined);
  await t.notThrowsAsync(kube.delete(MODELS, "ns", "a"));
});

test("fake API server (test double): JSON patch and apply patch through CustomObjectsApi", async (t) => {
  const server = await started(t);
  const api = server.kubeConfig().makeApiClient(CustomObjectsApi);
  const target = {
    group: "evident.dev",
    version: "v1alpha1",
    namespace: "ns",
    plural: "models",
    name: "a",
  };
  await api.createNamespacedCustomObject({ ...target, body: model("a") });
  await api.patchNamespacedCustomObject({
    ...target,
    body: [{ op: "replace", path: "/spec/version", value: "7" }],
  });
  t.is(
    server.store.get(MODELS, "ns", "a").spec &&
      (server.store.get(MODELS, "ns", "a").spec as { version: string }).version,
    "7",
  );
  await api.patchNamespacedCustomObject(
    { ...target, body: { spec: { version: "8" } }, fieldManager: "test" },
    setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
  );
  t.is((server.store.get(MODELS, "ns", "a").spec as { version: string }).version, "8");
});

test("fake API server (test double): watch streams changes after a resourceVersion, sends bookmarks, and 410 for a compacted one", async (t) => {
  const server = await started(t);
  const kube = new ClientNodeKube(server.kubeConfig());
  const before = await kube.list(MODELS, "ns");
  const events: WatchEvent[] = [];
  let done = false;
  const handle = await kube.watch(
    {
      resource: MODELS,
      namespace: "ns",
      resourceVersion: before.resourceVersion,
      allowWatchBookmarks: true,
    },
    (e) => events.push(e),
    () => (done = true),
  );
  await kube.create(MODELS, "ns", model("a"));
  await kube.delete(MODELS, "ns", "a");
  server.sendBookmarks();
  await until(() => events.length >= 3);
  t.deepEqual(
    events.map((e) => e.type),
    ["ADDED", "DELETED", "BOOKMARK"],
  );
  handle.abort();

  server.store.compact();
  const expired: WatchEvent[] = [];
  await kube.watch(
    {
      resource: MODELS,
      namespace: "ns",
      resourceVersion: before.resourceVersion,
      allowWatchBookmarks: true,
    },
    (e) => expired.push(e),
    () => (done = true),
  );
  await until(() => expired.length > 0);
  t.is(expired[0]?.type, "ERROR");
  t.is((expired[0]?.object as { code?: number }).code, 410);
  t.true(done || expired.length === 1);
});

test("fake API server (test double): restarts on the same port with its objects intact", async (t) => {
  const server = await started(t);
  const kube = new ClientNodeKube(server.kubeConfig());
  await kube.create(MODELS, "ns", model("a"));
  const url = server.url;
  await server.stop();
  await t.throwsAsync(kube.get(MODELS, "ns", "a"));
  await server.start();
  t.is(server.url, url);
  t.is((await kube.get(MODELS, "ns", "a"))?.metadata.name, "a");
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

import { spawn } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { FakeKubeApiServer } from "./fakes/kube-apiserver.js";
import {
  ALL_RESOURCES,
  EVIDENT_API_VERSION,
  LEASES,
  NAMESPACES,
  ROUTES,
} from "../operator/kube/resources.js";
import { isRecord } from "../operator/kube/types.js";
import { FakeNativeApiServer } from "../operator/testing/fake-native-api-server.js";

const KEY = "ev_sk_" + "p".repeat(40);
const MAIN = new URL("../operator/main.ts", import.meta.url).pathname;

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A port free right now (the system's choice), for a child that cannot be told to pick one. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("the operator process exits with a message naming a bad variable", async (t) => {
  const proc = run({
    EVIDENT_API_URL: "http://127.0.0.1:1",
    EVIDENT_ADMIN_KEY: KEY,
    RESYNC_SECONDS: "often",
  });
  t.is(await proc.exited, 2);
  t.regex(proc.stderr(), /RESYNC_SECONDS/);
});

test("the operator process (operator-role key, namespace bound to the customer) reconciles, serves /readyz, and on SIGTERM releases its Lease and exits 0 (test doubles)", async (t) => {
  const kubeServer = new FakeKubeApiServer(ALL_RESOURCES);
  await kubeServer.start();
  const nativeServer = new FakeNativeApiServer(KEY);
  await nativeServer.start();
  t.teardown(async () => {
    await kubeServer.stop();
    await nativeServer.stop();
  });
  const dir = mkdtempSync(join(tmpdir(), "evident-operator-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "fake", cluster: { server: kubeServer.url, "insecure-skip-tls-verify": true } },
      ],
      users: [{ name: "fake", user: { token: "t" } }],
      contexts: [{ name: "fake", context: { cluster: "fake", user: "fake" } }],
      "current-context": "fake",
    }),
  );
  // Not a random port: one already in use would leave /readyz unanswered until the suite's timeout.
  const port = await freePort();
  const proc = run({
    EVIDENT_API_URL: nativeServer.url,
    EVIDENT_OPERATOR_KEY: KEY,
    KUBECONFIG: kubeconfig,
    METRICS_PORT: String(port),
    POD_NAME: "op-0",
    POD_NAMESPACE: "evident-system",
    LOG_LEVEL: "silent",
  });
  t.teardown(() => void proc.child.kill("SIGKILL"));
  // The namespace is bound to the Route's customer (CUSTOMER_BINDING=required by default).
  kubeServer.store.create(NAMESPACES, "", {
    metadata: { name: "team-a", labels: { "evident.dev/customer-id": "acme" } },
  });
  kubeServer.store.create(ROUTES, "team-a", {
    apiVersion: EVIDENT_API_VERSION,
    kind: "Route",
    metadata: { name: "chat" },
    spec: { customerId: "acme", match: { model: "chat" }, targets: [{ model: "m", weight: 1 }] },
  });
  await until(async () => {
    if (proc.child.exitCode !== null)
      throw new Error(`the operator exited (${proc.child.exitCode}): ${proc.stderr()}`);
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
    } catch {
      return false;
    }
  });
  await until(() => nativeServer.api.routeStore.size === 1);
  proc.child.kill("SIGTERM");
  t.is(await proc.exited, 0);
  const lease = kubeServer.store.get(LEASES, "evident-system", "evident-operator");
  t.is(isRecord(lease.spec) ? lease.spec.holderIdentity : "missing", undefined);
});

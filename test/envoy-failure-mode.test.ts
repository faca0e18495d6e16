import { randomUUID } from "node:crypto";
import test from "ava";
import { startGrpcServer } from "../dataplane/adapters/grpc/start-grpc.js";
import { headerValue, sendCheck } from "./fakes/envoy-client.js";
import { connectEnvoy, throughEnvoy } from "./fakes/envoy-round-trip.js";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { startTestApp } from "./support/test-app.js";

const chat = (key: string, requestId: string) => ({
  method: "POST",
  path: "/v1/chat/completions",
  headers: {
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    "x-request-id": requestId,
  },
  body: JSON.stringify({ model: "outage-model", messages: [{ role: "user", content: "hi" }] }),
});

if (POSTGRES_URL) {
  test("store unreachable (Envoy test double, TCP proxy cut): fail closed answers 503, fail open lets the request on", async (t) => {
    const fresh = await freshPostgresUrl();
    const proxy = await startTcpProxy(Number(new URL(fresh.url).port || 5432));
    const via = new URL(fresh.url);
    via.hostname = "127.0.0.1";
    via.port = String(proxy.port);
    const upstream = await startFakeUpstream();
    const app = await startTestApp({
      env: { DATABASE_URL: via.toString(), DATA_DIR: `/tmp/evident-envoy-${randomUUID()}` },
    });
    const closed = (await startGrpcServer(app.app.ctx, 0, "127.0.0.1"))!;
    const open = (await startGrpcServer(app.app.ctx, 0, "127.0.0.1", { failureMode: "open" }))!;
    const closedEnvoy = connectEnvoy(`127.0.0.1:${closed.port}`);
    const openEnvoy = connectEnvoy(`127.0.0.1:${open.port}`);
    try {
      await deployModel(app.url, app.adminKey, { name: "outage-model" }, upstream.url);
      // Keys never used yet: not in the authenticator's cache, so deciding needs the store.
      const keys = await Promise.all(
        [1, 2, 3, 4].map(() => customerKey(app.url, app.adminKey, "pro")),
      );
      const [k1, k2, k3, k4] = keys as [string, string, string, string];
      proxy.cut();

      const denied = await sendCheck(closedEnvoy.authorization, chat(k1, "outage-authz-closed"));
      if (denied.kind !== "denied") return t.fail(`expected denied, got ${denied.kind}`);
      t.is(denied.caller.status, 503);
      t.is(
        (JSON.parse(denied.caller.body) as { error: { code: string } }).error.code,
        "service_unavailable",
      );
      t.is(headerValue(denied.caller.headers, "x-request-id"), "outage-authz-closed");

      const allowed = await sendCheck(openEnvoy.authorization, chat(k2, "outage-authz-open"));
      t.is(allowed.kind, "allowed", JSON.stringify(allowed));

      // ext_proc without ext_authz in the chain: it authenticates itself.
      const procClosed = await throughEnvoy(closedEnvoy, chat(k3, "outage-proc-closed"), {
        withoutExtAuthz: true,
      });
      t.is(procClosed.answeredBy, "ext_proc");
      t.is(procClosed.status, 503);
      const procOpen = await throughEnvoy(openEnvoy, chat(k4, "outage-proc-open"), {
        withoutExtAuthz: true,
      });
      t.not(procOpen.answeredBy, "ext_proc", "ext_proc let the request through unchecked");
      t.is(procOpen.session?.failure, undefined, "no protocol failure: every message answered");
    } finally {
      proxy.restore();
      closedEnvoy.close();
      openEnvoy.close();
      await closed.close();
      await open.close();
      await app.close();
      await upstream.close();
      await proxy.close();
      await fresh.drop();
    }
  });
} else {
  test.skip("store outage through the Envoy adapters needs DATABASE_URL", () => undefined);
}

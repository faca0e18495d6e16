import test from "ava";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL, REDIS_URL } from "./support/databases.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, startTestApp } from "./support/test-app.js";
import { within } from "./support/within.js";

if (POSTGRES_URL && REDIS_URL) {
  const redis = REDIS_URL;
  test("a route created, changed and deleted on one replica steers calls on another within a second (fake upstreams)", async (t) => {
    const fresh = await freshPostgresUrl();
    const upA = await startFakeUpstream();
    const upB = await startFakeUpstream();
    // A long safety-net reload, so only the change notification can explain a fast update.
    const env = { DATABASE_URL: fresh.url, REDIS_URL: redis, ROUTING_RELOAD_MS: "600000" };
    const a = await startTestApp({ env });
    const b = await startTestApp({ env, adminKey: a.adminKey });
    const modelServingOnB = async () => {
      const res = await call(b.url, "POST", "/v1/chat/completions", a.adminKey, {
        model: "r-front",
        messages: [{ role: "user", content: "x" }],
      });
      return res.status === 200 ? (res.json.model as string) : `status ${res.status}`;
    };
    try {
      await deployModel(a.url, a.adminKey, { name: "r-front" }, upA.url);
      await deployModel(a.url, a.adminKey, { name: "r-other" }, upB.url);
      t.true(await within(30_000, async () => (await modelServingOnB()) === "r-front"));
      const created = await call(a.url, "POST", "/api/v1/routes", a.adminKey, {
        match: { model: "r-front" },
        strategy: "weighted",
        targets: [{ model: "r-other", weight: 100 }],
        enabled: true,
      });
      t.is(created.status, 201);
      const id = created.json.id as string;
      t.true(
        await within(30_000, async () => (await modelServingOnB()) === "r-other"),
        "b follows the new route",
      );
      await call(a.url, "PATCH", `/api/v1/routes/${id}`, a.adminKey, { enabled: false });
      t.true(
        await within(30_000, async () => (await modelServingOnB()) === "r-front"),
        "b stops using the disabled route",
      );
      await call(a.url, "PATCH", `/api/v1/routes/${id}`, a.adminKey, { enabled: true });
      t.true(await within(30_000, async () => (await modelServingOnB()) === "r-other"));
      t.is((await call(a.url, "DELETE", `/api/v1/routes/${id}`, a.adminKey)).status, 204);
      t.true(
        await within(30_000, async () => (await modelServingOnB()) === "r-front"),
        "b forgets the deleted route",
      );
    } finally {
      await a.close();
      await b.close();
      await upA.close();
      await upB.close();
      await fresh.drop();
    }
  });
} else {
  test.skip("route replication needs DATABASE_URL and REDIS_URL", () => undefined);
}

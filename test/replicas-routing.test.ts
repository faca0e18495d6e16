import test from "ava";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL, REDIS_URL } from "./support/databases.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, startTestApp } from "./support/test-app.js";
import { within } from "./support/within.js";

if (POSTGRES_URL && REDIS_URL) {
  const redis = REDIS_URL;
  test("two gateway processes on shared Postgres + Redis see each other's deployment changes within a second (fake upstream)", async (t) => {
    const fresh = await freshPostgresUrl();
    const upstream = await startFakeUpstream();
    // A long safety-net reload, so only the change notification can explain a fast update.
    const env = { DATABASE_URL: fresh.url, REDIS_URL: redis, ROUTING_RELOAD_MS: "600000" };
    const a = await startTestApp({ env });
    const b = await startTestApp({ env, adminKey: a.adminKey });
    const chatOnB = async () =>
      (
        await call(b.url, "POST", "/v1/chat/completions", a.adminKey, {
          model: "replicated",
          messages: [{ role: "user", content: "x" }],
        })
      ).status;
    try {
      t.is(await chatOnB(), 404);
      const { deploymentId } = await deployModel(
        a.url,
        a.adminKey,
        { name: "replicated" },
        upstream.url,
      );
      t.true(
        await within(30_000, async () => (await chatOnB()) === 200),
        "b routes the deployment made on a",
      );
      await call(a.url, "DELETE", `/api/v1/deployments/${deploymentId}`, a.adminKey);
      t.true(
        await within(30_000, async () => (await chatOnB()) === 404),
        "b stops routing the terminated deployment",
      );
    } finally {
      await a.close();
      await b.close();
      await upstream.close();
      await fresh.drop();
    }
  });
} else {
  test.skip("replica routing needs DATABASE_URL and REDIS_URL", () => undefined);
}

import test from "ava";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp } from "./support/test-app.js";
import { within } from "./support/within.js";

if (POSTGRES_URL) {
  test("two replicas on one Postgres, each with its own local audit log, extend one customer's chain as a single correct chain (fake upstream)", async (t) => {
    const fresh = await freshPostgresUrl();
    const upstream = await startFakeUpstream({ recordRequests: false });
    const a = await startTestApp({ env: { DATABASE_URL: fresh.url, AUDIT_DURABILITY: "local" } });
    const b = await startTestApp({
      env: { DATABASE_URL: fresh.url, AUDIT_DURABILITY: "local" },
      adminKey: a.adminKey,
    });
    try {
      await deployModel(a.url, a.adminKey, { name: "shared" }, upstream.url);
      const key = await customerKey(a.url, a.adminKey, "enterprise");
      const known = await within(30_000, async () => {
        const models = await call(b.url, "GET", "/v1/models", key);
        return JSON.stringify(models.json).includes('"shared"');
      });
      t.true(known, "the second replica routes the model");
      const perReplica = 60;
      const load = (url: string) =>
        Promise.all(
          Array.from({ length: 6 }, async (_, w) => {
            for (let i = w; i < perReplica; i += 6) {
              const res = await call(url, "POST", "/v1/chat/completions", key, {
                model: "shared",
                messages: [{ role: "user", content: `m${i}` }],
              });
              if (res.status !== 200) throw new Error(`call failed: ${res.status}`);
            }
          }),
        );
      await Promise.all([load(a.url), load(b.url)]);
      await Promise.all([a.app.ctx.audit.caughtUp(), b.app.ctx.audit.caughtUp()]);
      const listed = await call(
        a.url,
        "GET",
        "/api/v1/audit/records?kind=inference&limit=1000",
        key,
      );
      const seqs = (listed.json.data as { seq: number }[]).map((r) => r.seq).sort((x, y) => x - y);
      t.is(seqs.length, 2 * perReplica, "every call of both replicas is in the store");
      t.is(new Set(seqs).size, seqs.length, "no seq twice");
      for (const app of [a, b]) {
        const verified = await call(app.url, "GET", "/api/v1/audit/verify", key);
        t.true(verified.json.ok as boolean, JSON.stringify(verified.json));
      }
    } finally {
      await a.close();
      await b.close();
      await upstream.close();
      await fresh.drop();
    }
  });
} else {
  test.skip("audit replicas test needs DATABASE_URL", () => undefined);
}

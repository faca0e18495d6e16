import test from "ava";
import { manualClock } from "../dataplane/core/clock.js";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { chat, newCustomer, T0 } from "./limits-fixture.js";
import { freshPostgresUrl, POSTGRES_URL, REDIS_URL } from "./support/databases.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, startTestApp } from "./support/test-app.js";

// Two gateways in one test process stand in for two replicas: each has its own limiter, ledger
// and meter, sharing only real Postgres and Redis. They share a frozen clock so no capacity
// drains during the burst (the bucket levels are exact). The upstream is the fake (test double).
if (POSTGRES_URL && REDIS_URL) {
  const redis = REDIS_URL;
  test("two gateways sharing Redis and Postgres enforce one combined rate limit and one hard budget under a concurrent burst", async (t) => {
    const fresh = await freshPostgresUrl();
    // 100 completion tokens per answer: with max_tokens 100 the estimate equals the real cost.
    const upstream = await startFakeUpstream({ defaultChunkCount: 100 });
    const clock = manualClock(T0);
    // The burst measures the rate limit and budget, not the concurrency cap (docs/limits.md).
    const concurrency = "free=1000,pro=1000";
    const env = { DATABASE_URL: fresh.url, REDIS_URL: redis, CUSTOMER_CONCURRENCY: concurrency };
    const a = await startTestApp({ env, clock });
    const b = await startTestApp({ env, clock, adminKey: a.adminKey });
    try {
      await deployModel(
        a.url,
        a.adminKey,
        { name: "priced", pricing: { input_per_1k: 0, output_per_1k: 1 } },
        upstream.url,
      );
      const free = await newCustomer(a.url, a.adminKey, "free");
      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          chat(i % 2 ? a.url : b.url, free.key, "priced", { max_tokens: 10 }),
        ),
      );
      const statuses = burst.map((r) => r.status);
      t.is(statuses.filter((s) => s === 200).length, 20, "exactly the Free limit, not 2x");
      t.is(statuses.filter((s) => s === 429).length, 10);
      t.true(
        burst.some((r, i) => i % 2 === 1 && r.status === 200),
        "a admitted some",
      );
      t.true(
        burst.some((r, i) => i % 2 === 0 && r.status === 200),
        "b admitted some",
      );

      const pro = await newCustomer(a.url, a.adminKey, "pro");
      const set = await call(a.url, "PATCH", "/api/v1/budget/config", pro.key, {
        limit_usd: 1,
        mode: "hard",
      });
      t.is(set.status, 200);
      const calls = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          chat(i % 2 ? a.url : b.url, pro.key, "priced", { max_tokens: 100 }),
        ),
      );
      // Each call costs exactly $0.10, reserved before and settled after: 10 fit in $1.
      t.is(calls.filter((r) => r.status === 200).length, 10, "one budget across both");
      t.is(calls.filter((r) => r.status === 402).length, 20);
      const status = await call(b.url, "GET", "/api/v1/budget/status", pro.key);
      t.like(status.json, { spend_usd: 1, reserved_usd: 0, remaining_usd: 0 });
      t.is(upstream.requests.length, 30, "refused calls never reached the model");
    } finally {
      await a.close();
      await b.close();
      await upstream.close();
      await fresh.drop();
    }
  });
} else {
  test.skip("limits across replicas need DATABASE_URL and REDIS_URL", () => undefined);
}

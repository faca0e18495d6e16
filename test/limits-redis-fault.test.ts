import test from "ava";
import { manualClock } from "../dataplane/core/clock.js";
import { startTcpFaultProxy } from "../dataplane/limits/testing/tcp-fault-proxy.js";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { chat, newCustomer, T0, within } from "./limits-fixture.js";
import { freshPostgresUrl, POSTGRES_URL, REDIS_URL } from "./support/databases.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";

// Redis is "stopped" by a TCP proxy in front of the real server (which other processes share and
// which is never stopped). Three gateways, one per fail mode, share the proxy and a fresh Postgres;
// the clock is frozen so bucket levels are exact. The upstream is the fake (a test double).
if (POSTGRES_URL && REDIS_URL) {
  const target = new URL(REDIS_URL);
  test("Redis cut during a run: local, open and closed fail modes, no crash, shared limits resume", async (t) => {
    const fresh = await freshPostgresUrl();
    const proxy = await startTcpFaultProxy(target.hostname, Number(target.port || 6379));
    const upstream = await startFakeUpstream();
    const clock = manualClock(T0);
    const env = { DATABASE_URL: fresh.url, REDIS_URL: proxy.url };
    const apps: RunningApp[] = [];
    try {
      const local = await startTestApp({ env, clock });
      apps.push(local);
      const open = await startTestApp({
        env: { ...env, RATE_LIMIT_FAIL_MODE: "open" },
        clock,
        adminKey: local.adminKey,
      });
      apps.push(open);
      const closed = await startTestApp({
        env: { ...env, RATE_LIMIT_FAIL_MODE: "closed" },
        clock,
        adminKey: local.adminKey,
      });
      apps.push(closed);
      await deployModel(local.url, local.adminKey, { name: "m" }, upstream.url);
      const { key } = await newCustomer(local.url, local.adminKey, "free");
      const degradedGauge = async () => {
        const res = await fetch(`${local.url}/api/v1/system/metrics`, {
          headers: { authorization: `Bearer ${local.adminKey}` },
        });
        return /^evident_rate_limit_degraded (\d)$/m.exec(await res.text())?.[1];
      };
      for (let i = 0; i < 5; i++) t.is((await chat(local.url, key, "m")).status, 200);
      t.is(
        (await chat(local.url, key, "m")).headers.get("x-ratelimit-remaining-requests"),
        "14",
        "shared: 6 of 20 used",
      );

      t.is(await degradedGauge(), "0");
      await proxy.down();
      // local: an in-process limiter with the full limit (EXPECTED_REPLICAS=1), counted afresh.
      const first = await chat(local.url, key, "m");
      t.is(first.status, 200);
      t.is(first.headers.get("x-ratelimit-remaining-requests"), "19");
      for (let i = 0; i < 19; i++) t.is((await chat(local.url, key, "m")).status, 200);
      const over = await chat(local.url, key, "m");
      t.is(over.status, 429, "the local limiter still limits");
      t.is(await degradedGauge(), "1");
      // open: admitted, without rate-limit headers.
      const admitted = await chat(open.url, key, "m");
      t.is(admitted.status, 200);
      t.is(admitted.headers.get("x-ratelimit-limit-requests"), null);
      // closed: refused with 503.
      const refused = await chat(closed.url, key, "m");
      t.is(refused.status, 503);
      t.is(errorOf(refused.json).code, "service_unavailable");
      for (const app of apps) t.is((await call(app.url, "GET", "/healthz", undefined)).status, 200);

      await proxy.up();
      // Shared limits resume without a restart: Redis still holds the 6 requests from before.
      t.true(
        await within(60_000, async () => {
          const res = await chat(local.url, key, "m");
          return res.status === 200 && res.headers.get("x-ratelimit-remaining-requests") === "13";
        }),
        "back on the shared bucket",
      );
      t.is(await degradedGauge(), "0");
      t.true(
        await within(60_000, async () => (await chat(closed.url, key, "m")).status === 200),
        "closed mode serves again",
      );
    } finally {
      for (const app of apps) await app.close();
      await proxy.close();
      await upstream.close();
      await fresh.drop();
    }
  });
} else {
  test.skip("the Redis fault test needs DATABASE_URL and REDIS_URL", () => undefined);
}

import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";
import { freshPostgresUrl, POSTGRES_URL, REDIS_URL } from "./support/databases.js";

let upstream: FakeUpstream;
let gw: RunningApp;
test.before(async () => {
  upstream = await startFakeUpstream({
    modelBehaviours: { slow: { chunkCount: 100_000, paceMs: 50 } },
  });
  gw = await startTestApp({ env: { CUSTOMER_CONCURRENCY: "pro=2" } });
  await deployModel(gw.url, gw.adminKey, { name: "slow" }, upstream.url);
  await deployModel(gw.url, gw.adminKey, { name: "quick" }, upstream.url);
});
test.after.always(async () => {
  await gw?.close();
  await upstream?.close();
});

const chat = (key: string, model: string, base = gw.url) =>
  call(base, "POST", "/v1/chat/completions", key, {
    model,
    messages: [{ role: "user", content: "hello" }],
  });

/** A streamed call that stays open until aborted. */
async function openStream(base: string, key: string, abort: AbortController) {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    signal: abort.signal,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "slow",
      stream: true,
      messages: [{ role: "user", content: "go on" }],
    }),
  });
}

test("one customer at its concurrency cap gets 429 concurrency_limit_exceeded; another customer is served (fake upstream)", async (t) => {
  const greedy = await customerKey(gw.url, gw.adminKey, "pro");
  const other = await customerKey(gw.url, gw.adminKey, "pro");
  const aborts = [new AbortController(), new AbortController()];
  const streams = aborts.map((a) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      signal: a.signal,
      headers: { authorization: `Bearer ${greedy}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "slow",
        stream: true,
        messages: [{ role: "user", content: "go on" }],
      }),
    }),
  );
  const responses = await Promise.all(streams);
  t.deepEqual(
    responses.map((r) => r.status),
    [200, 200],
  );
  t.true(await within(10_000, async () => upstream.activeRequests() >= 2));

  const third = await chat(greedy, "quick");
  t.is(third.status, 429);
  t.is(errorOf(third.json).code, "concurrency_limit_exceeded");
  t.is(errorOf(third.json).type, "rate_limit_error");
  t.truthy(third.headers.get("retry-after"));

  t.is((await chat(other, "quick")).status, 200, "another tenant is not starved");

  for (const a of aborts) a.abort();
  await Promise.all(responses.map((r) => r.body?.cancel().catch(() => undefined)));
  const released = await within(10_000, async () => (await chat(greedy, "quick")).status === 200);
  t.true(released, "slots come back when the streams end");
});

if (POSTGRES_URL && REDIS_URL) {
  const redis = REDIS_URL;
  test("two gateways sharing Redis enforce one combined concurrency cap (fake upstream)", async (t) => {
    const fresh = await freshPostgresUrl();
    const env = { DATABASE_URL: fresh.url, REDIS_URL: redis, CUSTOMER_CONCURRENCY: "pro=2" };
    const a = await startTestApp({ env });
    const b = await startTestApp({ env, adminKey: a.adminKey });
    const aborts = [new AbortController(), new AbortController()];
    try {
      await deployModel(a.url, a.adminKey, { name: "slow" }, upstream.url);
      await deployModel(a.url, a.adminKey, { name: "quick" }, upstream.url);
      await within(5_000, async () => (await chat(a.adminKey, "quick", b.url)).status === 200);
      const key = await customerKey(a.url, a.adminKey, "pro");
      const active = upstream.activeRequests();
      const streams = await Promise.all([
        openStream(a.url, key, aborts[0] as AbortController),
        openStream(b.url, key, aborts[1] as AbortController),
      ]);
      t.deepEqual(
        streams.map((r) => r.status),
        [200, 200],
      );
      t.true(await within(10_000, async () => upstream.activeRequests() >= active + 2));
      for (const base of [a.url, b.url]) {
        const third = await chat(key, "quick", base);
        t.is(third.status, 429, "the cap is shared, not per replica");
        t.is(errorOf(third.json).code, "concurrency_limit_exceeded");
      }
      for (const abort of aborts) abort.abort();
      await Promise.all(streams.map((r) => r.body?.cancel().catch(() => undefined)));
      t.true(await within(10_000, async () => (await chat(key, "quick", b.url)).status === 200));
    } finally {
      for (const abort of aborts) abort.abort();
      await a.close();
      await b.close();
      await fresh.drop();
    }
  });
}

import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

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

const chat = (key: string, model: string) =>
  call(gw.url, "POST", "/v1/chat/completions", key, {
    model,
    messages: [{ role: "user", content: "hello" }],
  });

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

import test from "ava";
import { startFakeUpstream } from "../../test/fakes/fake-openai-upstream.js";
import type { RouteDecision, Target } from "../routing/routing-types.js";
import { TargetHealth } from "../routing/target-health.js";
import { forwardWithRetries } from "./forward-with-retries.js";
import { DestinationPolicy } from "./destination-policy.js";
import { UpstreamClient } from "./upstream-client.js";

const clock = { now: () => Date.now() };
const client = new UpstreamClient({
  connectMs: 2_000,
  headersMs: 5_000,
  bodyMs: 5_000,
  connections: 8,
  policy: new DestinationPolicy([]),
  hopToken: "test-hop",
});
test.after.always(() => client.close());

function decision(...baseUrls: string[]): RouteDecision {
  const targets: Target[] = baseUrls.map((baseUrl, i) => ({
    id: `t${i}`,
    kind: "deployment",
    baseUrl,
    upstreamModel: "m",
    credential: undefined,
  }));
  return { targets } as RouteDecision;
}

const send = (d: RouteDecision, retries = 2) =>
  forwardWithRetries(
    client,
    new TargetHealth(clock),
    d,
    () => ({
      path: "/chat/completions",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
    }),
    { retries, signal: new AbortController().signal, sleep: async () => undefined },
  );

test("a 500 or a 429 is answered, not retried, even with another target (fake upstream)", async (t) => {
  const a = await startFakeUpstream();
  const b = await startFakeUpstream();
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  for (const status of [500, 429]) {
    a.script.next({ status });
    const before = a.requests.length + b.requests.length;
    const got = await send(decision(a.url, b.url));
    await got.response.body.dump();
    t.is(got.response.status, status);
    t.is(got.attempts, 1);
    t.is(a.requests.length + b.requests.length, before + 1);
  }
});

test("502/503/504 move on to another target; with one target they are answered (fake upstream)", async (t) => {
  const a = await startFakeUpstream();
  const b = await startFakeUpstream();
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  for (const status of [502, 503, 504]) {
    a.script.next({ status });
    const got = await send(decision(a.url, b.url));
    await got.response.body.dump();
    t.is(got.response.status, 200, `${status} then the other target`);
    t.is(got.target.id, "t1");
    a.script.next({ status });
    const alone = await send(decision(a.url));
    await alone.response.body.dump();
    t.is(alone.response.status, status, `${status} relayed when no other target exists`);
  }
  a.script.next({ status: 503 });
  const none = await send(decision(a.url, b.url), 0);
  await none.response.body.dump();
  t.is(none.response.status, 503, "UPSTREAM_RETRIES=0: no other target is tried");
});

test("nothing received (refused connection) moves on to another target; never the same one again (fake upstream)", async (t) => {
  const b = await startFakeUpstream();
  const closed = await startFakeUpstream();
  const deadUrl = closed.url;
  await closed.close();
  t.teardown(() => b.close());
  const got = await send(decision(deadUrl, b.url));
  await got.response.body.dump();
  t.is(got.response.status, 200);
  t.is(got.attempts, 2);
  const error = await t.throwsAsync(send(decision(deadUrl)));
  t.regex(error?.message ?? "", /backend error/);
});

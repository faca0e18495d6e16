import test from "ava";
import { manualClock } from "../dataplane/core/clock.js";
import { countTextTokens } from "../dataplane/upstream/usage.js";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { chat, limitHeaders, newCustomer, T0, within } from "./limits-fixture.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";

// One gateway on embedded Postgres, in-memory limits, a frozen clock (no drain unless advanced),
// and the fake upstream (a test double for a model backend).
const clock = manualClock(T0);
let app: RunningApp;
let upstream: FakeUpstream;

test.before(async () => {
  upstream = await startFakeUpstream();
  app = await startTestApp({ clock });
  await deployModel(app.url, app.adminKey, { name: "m" }, upstream.url);
});
test.after.always(async () => {
  await app?.close();
  await upstream?.close();
});

test.serial(
  "the 21st request within a minute on Free gets 429 with exact headers; the window slides",
  async (t) => {
    const { key } = await newCustomer(app.url, app.adminKey, "free");
    const before = upstream.requests.length;
    for (let i = 1; i <= 20; i++) {
      const ok = await chat(app.url, key, "m", { max_tokens: 10 });
      t.is(ok.status, 200);
      t.is(ok.headers.get("x-ratelimit-limit-requests"), "20");
      t.is(ok.headers.get("x-ratelimit-remaining-requests"), String(20 - i));
      t.is(ok.headers.get("x-ratelimit-limit-tokens"), "40000");
      t.regex(ok.headers.get("x-ratelimit-reset-requests") ?? "", /^\d+(\.\d+)?s$/);
      t.regex(ok.headers.get("x-ratelimit-remaining-tokens") ?? "", /^\d+$/);
    }
    const refused = await chat(app.url, key, "m", { max_tokens: 10 });
    t.is(refused.status, 429);
    const h = limitHeaders(refused.headers);
    t.is(h["retry-after"], "3");
    t.is(h["x-ratelimit-limit-requests"], "20");
    t.is(h["x-ratelimit-remaining-requests"], "0");
    t.is(h["x-ratelimit-reset-requests"], "60s");
    t.is(h["x-ratelimit-limit-tokens"], "40000");
    const err = errorOf(refused.json);
    t.is(err.type, "rate_limit_error");
    t.is(err.code, "rate_limit_exceeded");
    t.is(err.message, "rate limit exceeded: requests per minute (20); retry after 3 seconds");
    t.is(upstream.requests.length - before, 20, "the refused call never reached the model");

    clock.advance(2_999);
    t.is((await chat(app.url, key, "m", { max_tokens: 10 })).status, 429, "not yet drained");
    clock.advance(1);
    t.is((await chat(app.url, key, "m", { max_tokens: 10 })).status, 200, "one request per 3 s");
    t.is((await chat(app.url, key, "m", { max_tokens: 10 })).status, 429);
  },
);

test.serial(
  "a token reservation that does not fit is refused before it reaches the model",
  async (t) => {
    const { key } = await newCustomer(app.url, app.adminKey, "free");
    const before = upstream.requests.length;
    const tooLarge = await chat(app.url, key, "m", { max_tokens: 40_000 });
    t.is(tooLarge.status, 429);
    t.is(errorOf(tooLarge.json).code, "rate_limit_exceeded");
    t.true(errorOf(tooLarge.json).message.includes("tokens per minute (40000)"));
    t.is(tooLarge.headers.get("x-ratelimit-remaining-tokens"), "40000");

    // A call in flight holds its reservation: a second one that does not fit next to it waits.
    // Held long enough that the second call surely overlaps it, even on a busy machine.
    upstream.script.next({ delayMs: 5_000 });
    const first = chat(app.url, key, "m", { max_tokens: 30_000 });
    t.true(await within(30_000, async () => upstream.activeRequests() === 1));
    const second = await chat(app.url, key, "m", { max_tokens: 30_000 });
    t.is(second.status, 429);
    const prompt = countTextTokens("hello there");
    t.is(
      errorOf(second.json).message,
      `rate limit exceeded: tokens per minute (40000); retry after ${Math.ceil(((30_000 + prompt - (40_000 - 30_000 - prompt)) * 60) / 40_000)} seconds`,
    );
    t.is(second.headers.get("x-ratelimit-remaining-tokens"), String(40_000 - 30_000 - prompt));
    t.is(second.headers.get("x-ratelimit-remaining-requests"), "19");
    t.is((await first).status, 200);
    t.is(upstream.requests.length - before, 1, "only the call that fitted reached the model");
  },
);

test.serial("a stream's reservation is settled to its real usage when it ends", async (t) => {
  const { key } = await newCustomer(app.url, app.adminKey, "pro");
  const prompt = countTextTokens("hello there");
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      stream: true,
      max_tokens: 400_000,
      messages: [{ role: "user", content: "hello there" }],
    }),
  });
  t.is(res.status, 200);
  t.is(res.headers.get("x-ratelimit-remaining-tokens"), String(500_000 - 400_000 - prompt));
  await res.text();
  // The fake reports 2 prompt words and 5 completion pieces: 7 tokens used.
  const next = await chat(app.url, key, "m", { max_tokens: 100 });
  t.is(next.headers.get("x-ratelimit-remaining-tokens"), String(500_000 - 7 - (prompt + 100)));
});

test.serial("a client that disconnects mid-stream still has its reservation settled", async (t) => {
  const { key } = await newCustomer(app.url, app.adminKey, "pro");
  upstream.script.next({ chunkCount: 200, paceMs: 20 });
  const abortedBefore = upstream.abortedRequests();
  const controller = new AbortController();
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: "POST",
    signal: controller.signal,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      stream: true,
      max_tokens: 400_000,
      messages: [{ role: "user", content: "hello there" }],
    }),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  controller.abort();
  await upstream.whenAborted(abortedBefore + 1);
  // Settled: the 400,000 reserved tokens come back (less what was streamed), seen on the next call.
  t.true(
    await within(30_000, async () => {
      const probe = await chat(app.url, key, "m", { max_tokens: 1 });
      return Number(probe.headers.get("x-ratelimit-remaining-tokens")) > 400_000;
    }),
  );
});

test.serial("an enterprise customer is unlimited until an admin sets custom limits", async (t) => {
  const { key, customerId } = await newCustomer(app.url, app.adminKey, "enterprise");
  const free = await chat(app.url, key, "m");
  t.is(free.status, 200);
  t.is(free.headers.get("x-ratelimit-limit-requests"), null, "no headers when unlimited");
  const byMember = await call(app.url, "PATCH", "/api/v1/budget/config", key, {
    rate_limits: { requests_per_minute: 1000 },
  });
  t.is(byMember.status, 403, "a member key cannot change its own limits");
  const set = await call(
    app.url,
    "PATCH",
    `/api/v1/budget/config?customer_id=${customerId}`,
    app.adminKey,
    { rate_limits: { requests_per_minute: 2 } },
  );
  t.is(set.status, 200);
  t.deepEqual((set.json.rate_limits as Record<string, unknown>).effective, {
    requests_per_minute: 2,
    tokens_per_minute: null,
  });
  t.is((await chat(app.url, key, "m")).status, 200);
  const second = await chat(app.url, key, "m");
  t.is(second.status, 200);
  t.is(second.headers.get("x-ratelimit-limit-requests"), "2");
  t.is(second.headers.get("x-ratelimit-limit-tokens"), null);
  const third = await chat(app.url, key, "m");
  t.is(third.status, 429);
  t.true(errorOf(third.json).message.includes("requests per minute (2)"));
});

test.serial("the bootstrap admin's customer is enterprise: no inference limit", async (t) => {
  const res = await chat(app.url, app.adminKey, "m");
  t.is(res.status, 200);
  t.is(res.headers.get("x-ratelimit-limit-requests"), null);
});

import { createServer } from "node:net";
import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

let upstream: FakeUpstream;
let strict: RunningApp;
let widened: RunningApp;
test.before(async () => {
  upstream = await startFakeUpstream();
  strict = await startTestApp();
  widened = await startTestApp({ env: { UPSTREAM_ALLOWED_CIDRS: "127.0.0.1/32" } });
});
test.after.always(async () => {
  await strict?.close();
  await widened?.close();
  await upstream?.close();
});

const chat = (gw: RunningApp, key: string, model: string, headers: Record<string, string> = {}) =>
  call(
    gw.url,
    "POST",
    "/v1/chat/completions",
    key,
    { model, messages: [{ role: "user", content: "hello" }] },
    headers,
  );

async function backend(gw: RunningApp, key: string, baseUrl: string, model: string) {
  const res = await call(gw.url, "POST", "/api/v1/gateway/backends", key, {
    name: model,
    base_url: baseUrl,
    credential: key,
    models: [model],
  });
  if (res.status !== 201) throw new Error(`backend: ${res.status} ${JSON.stringify(res.json)}`);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

test.serial(
  "a customer's backend cannot reach loopback in any spelling; nothing is sent and the error says nothing (fake upstream)",
  async (t) => {
    const key = await customerKey(strict.url, strict.adminKey, "pro");
    const port = new URL(upstream.url).port;
    const spellings = [
      `http://127.0.0.1:${port}/v1`,
      `http://2130706433:${port}/v1`,
      `http://0x7f.1:${port}/v1`,
      `http://[::1]:${port}/v1`,
      `http://[::ffff:127.0.0.1]:${port}/v1`,
      `http://0.0.0.0:${port}/v1`,
      `http://localhost:${port}/v1`,
    ];
    const before = upstream.requests.length;
    const messages = new Set<string>();
    for (const [i, url] of spellings.entries()) {
      await backend(strict, key, url, `ssrf-${i}`);
      const res = await chat(strict, key, `ssrf-${i}`);
      t.is(res.status, 502, url);
      t.is(errorOf(res.json).code, "upstream_unavailable", url);
      messages.add(errorOf(res.json).message);
    }
    t.is(upstream.requests.length, before, "no request reached the loopback server");
    t.is(messages.size, 1, "one message for every refusal");

    // A closed port behind an allowed address fails with that very same message.
    const widenedKey = await customerKey(widened.url, widened.adminKey, "pro");
    await backend(widened, widenedKey, `http://127.0.0.1:${await closedPort()}/v1`, "closed");
    const closed = await chat(widened, widenedKey, "closed");
    t.is(closed.status, 502);
    t.true(messages.has(errorOf(closed.json).message), errorOf(closed.json).message);
  },
);

test.serial(
  "a guardrail model check cannot reach loopback through the customer's own backend (fake upstream)",
  async (t) => {
    await deployModel(strict.url, strict.adminKey, { name: "checked" }, upstream.url);
    const key = await customerKey(strict.url, strict.adminKey, "pro");
    await backend(strict, key, upstream.url, "my-guard");
    const policy = await call(strict.url, "PATCH", "/api/v1/guardrails/policy", key, {
      model_checks: [
        { name: "mine", model: "my-guard", check: "content_safety", fail_mode: "closed" },
      ],
    });
    t.is(policy.status, 200, JSON.stringify(policy.json));
    const before = upstream.requests.length;
    const res = await chat(strict, key, "checked");
    t.is(res.status, 400, "closed: the check could not run, so the call is blocked");
    t.is(upstream.requests.length, before, "neither the classifier nor the model was called");
  },
);

test.serial("userinfo in a backend URL is refused at registration", async (t) => {
  const key = await customerKey(strict.url, strict.adminKey, "pro");
  const res = await call(strict.url, "POST", "/api/v1/gateway/backends", key, {
    name: "userinfo",
    base_url: "http://user:pw@example.com/v1",
    models: ["u"],
  });
  t.is(res.status, 422);
});

test.serial(
  "deployments the operator provisions are trusted destinations; allowlisted backends work (fake upstream)",
  async (t) => {
    await deployModel(strict.url, strict.adminKey, { name: "in-cluster" }, upstream.url);
    const key = await customerKey(strict.url, strict.adminKey, "pro");
    t.is((await chat(strict, key, "in-cluster")).status, 200);

    const widenedKey = await customerKey(widened.url, widened.adminKey, "pro");
    await backend(widened, widenedKey, upstream.url, "allowed-byo");
    t.is((await chat(widened, widenedKey, "allowed-byo")).status, 200);
  },
);

async function chatRequestsByStatus(gw: RunningApp): Promise<Record<string, number>> {
  const metric = await gw.app.ctx.metrics.httpRequests.get();
  const out: Record<string, number> = {};
  for (const v of metric.values) {
    if (v.labels.route !== "/v1/chat/completions") continue;
    const status = String(v.labels.status);
    out[status] = (out[status] ?? 0) + v.value;
  }
  return out;
}

test.serial(
  "a backend pointing at the gateway itself: one nested call, refused as a loop, not hundreds",
  async (t) => {
    const key = await customerKey(widened.url, widened.adminKey, "enterprise");
    const before = await chatRequestsByStatus(widened);
    await backend(widened, key, `${widened.url}/v1`, "myself");
    const res = await chat(widened, key, "myself");
    t.is(res.status, 502);
    t.is(errorOf(res.json).code, "upstream_unavailable");
    const counted = await within(5_000, async () => {
      const now = await chatRequestsByStatus(widened);
      return (now["502"] ?? 0) - (before["502"] ?? 0) === 1;
    });
    t.true(counted);
    const after = await chatRequestsByStatus(widened);
    t.is((after["508"] ?? 0) - (before["508"] ?? 0), 1, "exactly one nested call, refused");
    const total = (s: Record<string, number>) => Object.values(s).reduce((a, b) => a + b, 0);
    t.is(total(after) - total(before), 2);
  },
);

test.serial("a call that has passed too many gateways is refused (hop limit)", async (t) => {
  const key = await customerKey(widened.url, widened.adminKey, "pro");
  const res = await chat(widened, key, "anything", { "x-evident-hops": "99" });
  t.is(res.status, 508);
  t.is(errorOf(res.json).code, "loop_detected");
});

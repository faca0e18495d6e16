import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";

let gw: RunningApp;
let upA: FakeUpstream;
let upB: FakeUpstream;

test.before(async () => {
  gw = await startTestApp();
  upA = await startFakeUpstream();
  upB = await startFakeUpstream();
});

test.after.always(async () => {
  await gw?.close();
  await upA?.close();
  await upB?.close();
});

const chat = (key: string, model: string, headers: Record<string, string> = {}) =>
  call(
    gw.url,
    "POST",
    "/v1/chat/completions",
    key,
    { model, messages: [{ role: "user", content: "hi" }] },
    headers,
  );

/** Model names the fake upstream `up` received since `from`. */
const received = (up: FakeUpstream, from: number) =>
  up.requests.slice(from).map((r) => (r.body as { model?: string }).model);

async function eventually<T>(get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let last = await get();
  for (const deadline = Date.now() + 30_000; !ok(last) && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 25));
    last = await get();
  }
  return last;
}

const route = (body: Record<string, unknown>, key = gw.adminKey) =>
  call(gw.url, "POST", "/api/v1/routes", key, body);

test.serial("weighted 100/0 sends every call to the weight-100 model", async (t) => {
  await deployModel(gw.url, gw.adminKey, { name: "w-heavy" }, upA.url);
  await deployModel(gw.url, gw.adminKey, { name: "w-never" }, upB.url);
  const key = await customerKey(gw.url, gw.adminKey, "free");
  const created = await route(
    {
      match: { model: "w-alias" },
      strategy: "weighted",
      targets: [
        { model: "w-never", weight: 0 },
        { model: "w-heavy", weight: 100 },
      ],
      enabled: true,
    },
    key,
  );
  t.is(created.status, 201);
  const [a, b] = [upA.requests.length, upB.requests.length];
  for (let i = 0; i < 10; i++) {
    const res = await chat(key, "w-alias");
    t.is(res.status, 200);
  }
  t.deepEqual(received(upA, a), Array(10).fill("w-heavy"));
  t.deepEqual(received(upB, b), []);
});

test.serial("evaluate is a dry run: the decision, no upstream call", async (t) => {
  await deployModel(gw.url, gw.adminKey, { name: "e-target", version: "3" }, upA.url);
  const key = await customerKey(gw.url, gw.adminKey, "free");
  const created = await route(
    {
      match: { model: "e-alias" },
      strategy: "fallback",
      targets: [{ model: "e-target", weight: 1 }],
      enabled: true,
    },
    key,
  );
  const [a, b] = [upA.requests.length, upB.requests.length];
  const res = await call(gw.url, "POST", "/api/v1/routes/evaluate", key, { model: "e-alias" });
  t.is(res.status, 200, JSON.stringify(res.json));
  t.like(res.json, {
    object: "routing_decision",
    route_id: created.json.id,
    strategy: "fallback",
    arm: "e-target",
    model: "e-target",
    model_version: "3",
  });
  t.is((res.json.targets as unknown[]).length, 1);
  t.is(upA.requests.length, a);
  t.is(upB.requests.length, b);
  // Without a matching route the requested name resolves as usual.
  const plain = await call(gw.url, "POST", "/api/v1/routes/evaluate", key, { model: "e-target" });
  t.like(plain.json, { route_id: null, model: "e-target" });
  const unknown = await call(gw.url, "POST", "/api/v1/routes/evaluate", key, { model: "nope" });
  t.is(unknown.status, 404);
  const extra = await call(gw.url, "POST", "/api/v1/routes/evaluate", key, { model: "x", n: 1 });
  t.is(extra.status, 422);
});

test.serial("fallback skips a target with no running deployment", async (t) => {
  const registered = await call(gw.url, "POST", "/api/v1/models", gw.adminKey, {
    name: "f-undeployed",
    version: "1",
  });
  t.is(registered.status, 201);
  await deployModel(gw.url, gw.adminKey, { name: "f-second" }, upB.url);
  await deployModel(gw.url, gw.adminKey, { name: "f-third" }, upA.url);
  const key = await customerKey(gw.url, gw.adminKey, "free");
  await route(
    {
      match: { model: "f-alias" },
      strategy: "fallback",
      targets: [
        { model: "f-undeployed", weight: 1 },
        { model: "no-such-model", weight: 1 },
        { model: "f-second", weight: 1 },
        { model: "f-third", weight: 1 },
      ],
      enabled: true,
    },
    key,
  );
  const [a, b] = [upA.requests.length, upB.requests.length];
  const res = await chat(key, "f-alias");
  t.is(res.status, 200);
  t.deepEqual(received(upB, b), ["f-second"]);
  t.deepEqual(received(upA, a), []);
  // When the first routable target's backend fails, the next target takes the call.
  upB.script.next({ status: 503 });
  const failedOver = await chat(key, "f-alias");
  t.is(failedOver.status, 200);
  t.deepEqual(received(upA, a), ["f-third"]);
  // The audit record accounts the failed-over call to the model that served it.
  const records = await eventually(
    async () =>
      (await call(gw.url, "GET", "/api/v1/audit/records?kind=inference", key)).json.data as {
        model: string;
        route: Record<string, unknown>;
      }[],
    (data) => data.length >= 2,
  );
  t.is(records[0]?.model, "f-third");
  t.like(records[0]?.route ?? {}, { strategy: "fallback", arm: "f-third" });
  t.is(records[1]?.model, "f-second");
});

test.serial(
  "cheapest picks the lower-priced model; the audit record names the route",
  async (t) => {
    await deployModel(
      gw.url,
      gw.adminKey,
      { name: "c-pricey", pricing: { input_per_1k: 0.03, output_per_1k: 0.06 } },
      upA.url,
    );
    await deployModel(
      gw.url,
      gw.adminKey,
      { name: "c-cheap", pricing: { input_per_1k: 0.001, output_per_1k: 0.002 } },
      upB.url,
    );
    const key = await customerKey(gw.url, gw.adminKey, "free");
    const created = await route(
      {
        match: { model: "c-alias" },
        strategy: "cheapest",
        targets: [
          { model: "c-pricey", weight: 100 },
          { model: "c-cheap", weight: 0 },
        ],
        enabled: true,
      },
      key,
    );
    const [a, b] = [upA.requests.length, upB.requests.length];
    t.is((await chat(key, "c-alias")).status, 200);
    t.deepEqual(received(upB, b), ["c-cheap"]);
    t.deepEqual(received(upA, a), []);
    const records = await eventually(
      async () =>
        (await call(gw.url, "GET", "/api/v1/audit/records?kind=inference", key)).json.data as {
          model: string;
          route: Record<string, unknown>;
        }[],
      (data) => data.length > 0,
    );
    t.is(records[0]?.model, "c-cheap");
    t.like(records[0]?.route ?? {}, {
      route_id: created.json.id,
      strategy: "cheapest",
      arm: "c-cheap",
    });
  },
);

test.serial(
  "a route with header conditions applies only to calls carrying those headers",
  async (t) => {
    await deployModel(gw.url, gw.adminKey, { name: "h-default" }, upA.url);
    await deployModel(gw.url, gw.adminKey, { name: "h-beta" }, upB.url);
    const key = await customerKey(gw.url, gw.adminKey, "free");
    await route(
      {
        match: { model: "h-default", headers: { "X-Tenant": "beta" } },
        strategy: "weighted",
        targets: [{ model: "h-beta", weight: 100 }],
        enabled: true,
      },
      key,
    );
    const [a, b] = [upA.requests.length, upB.requests.length];
    t.is((await chat(key, "h-default")).status, 200);
    t.is((await chat(key, "h-default", { "x-tenant": "beta" })).status, 200);
    t.is((await chat(key, "h-default", { "x-tenant": "gamma" })).status, 200);
    t.deepEqual(received(upA, a), ["h-default", "h-default"]);
    t.deepEqual(received(upB, b), ["h-beta"]);
  },
);

test.serial("a disabled route is ignored; the tier check applies to the model used", async (t) => {
  await deployModel(gw.url, gw.adminKey, { name: "t-free" }, upA.url);
  await deployModel(gw.url, gw.adminKey, { name: "t-ent", required_tier: "enterprise" }, upB.url);
  const key = await customerKey(gw.url, gw.adminKey, "free");
  const created = await route(
    {
      match: { model: "t-free" },
      strategy: "weighted",
      targets: [{ model: "t-ent", weight: 100 }],
      enabled: true,
    },
    key,
  );
  const res = await chat(key, "t-free");
  t.is(res.status, 403);
  t.is(errorOf(res.json).code, "tier_restricted");
  const id = created.json.id as string;
  await call(gw.url, "PATCH", `/api/v1/routes/${id}`, key, { enabled: false });
  t.is((await chat(key, "t-free")).status, 200);
});

test.serial("ab-results: per-arm calls, errors, latency, tokens and a z-test", async (t) => {
  await deployModel(gw.url, gw.adminKey, { name: "ab-good" }, upA.url);
  await deployModel(gw.url, gw.adminKey, { name: "ab-bad" }, upB.url);
  const key = await customerKey(gw.url, gw.adminKey, "enterprise");
  const created = await route(
    {
      match: { model: "ab-test" },
      strategy: "ab",
      targets: [
        { model: "ab-good", weight: 50 },
        { model: "ab-bad", weight: 50 },
      ],
      enabled: true,
    },
    key,
  );
  const id = created.json.id as string;
  const b = upB.requests.length;
  upB.script.setDefault({ status: 500 });
  const statuses: number[] = [];
  try {
    for (let i = 0; i < 40; i++) statuses.push((await chat(key, "ab-test")).status);
  } finally {
    upB.script.setDefault({});
  }
  const toBad = upB.requests.length - b;
  const results = await eventually(
    async () => (await call(gw.url, "GET", `/api/v1/routes/${id}/ab-results`, key)).json,
    (json) => json.calls === 40,
  );
  t.is(results.calls, 40);
  const arms = results.arms as {
    model: string;
    calls: number;
    errors: number;
    error_rate: number;
    latency_ms: { p50: number | null; p95: number | null };
    tokens: number;
  }[];
  t.deepEqual(
    arms.map((a) => a.model),
    ["ab-good", "ab-bad"],
  );
  const [good, bad] = arms;
  t.is((good?.calls ?? 0) + (bad?.calls ?? 0), 40);
  t.is(good?.errors, 0);
  t.is(bad?.calls, statuses.filter((s) => s !== 200).length);
  t.true(toBad >= (bad?.calls ?? 0), "the bad arm's calls reached its upstream");
  t.is(bad?.errors, bad?.calls);
  t.true((good?.tokens ?? 0) > 0);
  t.not(good?.latency_ms.p50, null);
  const analysis = results.analysis as { test: string; p_value: number; arms: string[] };
  t.is(analysis.test, "two_proportion_z");
  t.deepEqual(analysis.arms, ["ab-good", "ab-bad"]);
  t.true(analysis.p_value >= 0 && analysis.p_value <= 1);
  const other = await customerKey(gw.url, gw.adminKey, "free");
  t.is((await call(gw.url, "GET", `/api/v1/routes/${id}/ab-results`, other)).status, 404);
});

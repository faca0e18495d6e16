import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

let gateway: RunningApp;
let upstream: FakeUpstream;
let deploymentId: string;

async function customer(name: string): Promise<{ id: string; key: string }> {
  const c = await call(gateway.url, "POST", "/api/v1/customers", gateway.adminKey, {
    name,
    tier: "pro",
  });
  const k = await call(gateway.url, "POST", "/api/v1/keys", gateway.adminKey, {
    customer_id: c.json.id,
    name: "member",
  });
  return { id: c.json.id as string, key: k.json.key as string };
}

function chat(key: string, model: string) {
  return call(gateway.url, "POST", "/v1/chat/completions", key, {
    model,
    messages: [{ role: "user", content: "hello" }],
  });
}

const get = (key: string, path: string) => call(gateway.url, "GET", path, key);

let a: { id: string; key: string };
let b: { id: string; key: string };

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp({ env: { USAGE_FLUSH_MS: "50" } });
  ({ deploymentId } = await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "measured", pricing: { input_per_1k: 1, output_per_1k: 2 } },
    upstream.url,
  ));
  a = await customer("analytics-a");
  b = await customer("analytics-b");
  // Customer A: 3 served, 1 failed upstream (its 503 relayed as it came), 1 refused (404).
  for (let i = 0; i < 3; i++) await chat(a.key, "measured");
  upstream.script.next({ status: 503 }); // answered, not retried (one target)
  const failed = await chat(a.key, "measured");
  if (failed.status !== 503) throw new Error(`expected 503, got ${failed.status}`);
  const refused = await chat(a.key, "no-such-model");
  if (refused.status !== 404) throw new Error(`expected 404, got ${refused.status}`);
  // Customer B: 1 served.
  await chat(b.key, "measured");
  const recorded = await within(20_000, async () => {
    const r = await get(gateway.adminKey, "/api/v1/analytics/error-budget?window_days=1");
    return r.json.requests === 6;
  });
  if (!recorded) throw new Error("the calls never reached the rollups");
});
test.after.always(async () => {
  await gateway?.close();
  await upstream?.close();
});

test("availability counts 5xx and upstream failures, not 4xx refusals, per customer", async (t) => {
  const res = await get(a.key, "/api/v1/analytics/availability");
  t.is(res.status, 200);
  const windows = res.json.windows as Record<string, unknown>[];
  t.deepEqual(
    windows.map((w) => w.window),
    ["30d", "7d", "24h"],
  );
  for (const w of windows) {
    t.like(w, { requests: 5, counted_requests: 4, failures: 1, availability_percent: 75 });
  }
  const other = await get(b.key, "/api/v1/analytics/availability");
  t.like((other.json.windows as unknown[])[2], { requests: 1, availability_percent: 100 });
});

test("error budget per SLA tier: one failure in four calls blows every tier", async (t) => {
  const res = await get(a.key, "/api/v1/analytics/error-budget?window_days=7");
  t.is(res.status, 200);
  t.like(res.json, { object: "error_budget", window_days: 7, failures: 1, counted_requests: 4 });
  const tiers = res.json.tiers as Record<string, unknown>[];
  t.deepEqual(
    tiers.map((x) => x.tier),
    ["99.0", "99.5", "99.9", "99.95"],
  );
  t.like(tiers[0], { allowed_failures: 0.04, budget_consumed_percent: 2500, met: false });
  t.like(tiers[0], { budget_remaining_percent: 0 });
  const defaults = await get(a.key, "/api/v1/analytics/error-budget");
  t.is(defaults.json.window_days, 30);
});

test("latency percentiles per model come from completed calls; unrouted calls have none", async (t) => {
  const res = await get(a.key, "/api/v1/analytics/latency");
  t.is(res.status, 200);
  t.is(res.json.window_hours, 24);
  const models = res.json.models as Record<string, unknown>[];
  const measured = models.find((m) => m.model === "measured");
  t.like(measured, { requests: 4, completed: 3 });
  for (const p of ["p50_ms", "p95_ms", "p99_ms"]) t.is(typeof measured?.[p], "number");
  t.true((measured?.p50_ms as number) <= (measured?.p99_ms as number));
  t.like(
    models.find((m) => m.model === "(unrouted)"),
    { requests: 1, completed: 0, p50_ms: null },
  );
});

test("timeseries buckets add up to the calls, with tokens and cost", async (t) => {
  const res = await get(a.key, "/api/v1/analytics/timeseries?window_hours=1&bucket_minutes=5");
  t.is(res.status, 200);
  const buckets = res.json.buckets as Record<string, number>[];
  t.true(buckets.length >= 12 && buckets.length <= 13);
  const sum = (k: string) => buckets.reduce((n, x) => n + (x[k] ?? 0), 0);
  t.is(sum("requests"), 5);
  t.is(sum("failures"), 1);
  t.is(sum("refusals"), 1);
  t.true(sum("completion_tokens") > 0);
  t.true(sum("cost_usd") > 0);
  const hourly = await get(a.key, "/api/v1/analytics/timeseries");
  t.like(hourly.json, { window_hours: 24, bucket_minutes: 60 });
  const total = (hourly.json.buckets as Record<string, number>[]).reduce(
    (n, x) => n + (x.requests ?? 0),
    0,
  );
  t.is(total, 5);
});

test("admins see every customer or one; a member asking for another customer is refused", async (t) => {
  const all = await get(gateway.adminKey, "/api/v1/analytics/availability");
  t.like((all.json.windows as unknown[])[2], { requests: 6, failures: 1 });
  const onlyB = await get(gateway.adminKey, `/api/v1/analytics/availability?customer_id=${b.id}`);
  t.like((onlyB.json.windows as unknown[])[2], { requests: 1 });
  for (const path of ["availability", "latency", "error-budget", "timeseries"]) {
    const res = await get(a.key, `/api/v1/analytics/${path}?customer_id=${b.id}`);
    t.is(res.status, 403, path);
    t.is((res.json.error as { code: string }).code, "insufficient_role");
  }
  const own = await get(a.key, `/api/v1/analytics/availability?customer_id=${a.id}`);
  t.is(own.status, 200);
});

test("out-of-range or malformed parameters are 422", async (t) => {
  for (const path of [
    "latency?window_hours=0",
    "latency?window_hours=721",
    "latency?window_hours=abc",
    "latency?window_hours=1.5",
    "error-budget?window_days=0",
    "error-budget?window_days=91",
    "timeseries?window_hours=721",
    "timeseries?bucket_minutes=4",
    "timeseries?bucket_minutes=1441",
    "timeseries?bucket_minutes=%00",
    "availability?customer_id=%F0%9F",
  ]) {
    const res = await get(a.key, `/api/v1/analytics/${path}`);
    t.true(res.status === 422 || res.status === 403, `${path}: ${res.status}`);
    if (!path.startsWith("availability")) t.is(res.status, 422, path);
  }
  t.is((await get(a.key, "/api/v1/analytics/latency?window_hours=720")).status, 200);
  t.is((await get(a.key, "/api/v1/analytics/timeseries?bucket_minutes=1440")).status, 200);
});

test("capacity lists deployments with concurrency, in-flight calls and health", async (t) => {
  const res = await get(a.key, "/api/v1/system/capacity");
  t.is(res.status, 200);
  const targets = res.json.targets as Record<string, unknown>[];
  t.like(
    targets.find((x) => x.id === deploymentId),
    { kind: "deployment", models: ["measured"], status: "running", in_flight: 0, queued: 0 },
  );
  t.is((await call(gateway.url, "GET", "/api/v1/system/capacity", undefined)).status, 401);
});

test("the analytics endpoints and their named response schemas are in /openapi.json", async (t) => {
  const doc = await call(gateway.url, "GET", "/openapi.json", gateway.adminKey);
  const paths = doc.json.paths as Record<string, { get?: Record<string, unknown> }>;
  const named = {
    availability: "AvailabilityResponse",
    latency: "LatencyResponse",
    "error-budget": "ErrorBudgetResponse",
    timeseries: "TimeseriesResponse",
  };
  for (const [p, name] of Object.entries(named)) {
    const op = paths[`/api/v1/analytics/${p}`]?.get;
    t.truthy(op, p);
    const schema = JSON.stringify(op?.responses);
    // The response refers to the schema by its name (as a definition or a component).
    t.true(schema.includes(`/${name}"`), p);
    t.true(JSON.stringify(op?.parameters ?? []).length > 2 || p === "availability");
  }
  t.truthy(paths["/api/v1/system/capacity"]?.get);
});

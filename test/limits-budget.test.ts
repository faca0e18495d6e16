import test from "ava";
import { manualClock } from "../dataplane/core/clock.js";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { chat, newCustomer, T0 } from "./limits-fixture.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";

// One gateway on embedded Postgres with a frozen clock at Wed 2026-11-18 12:00 UTC; usage history
// is seeded straight into usage_records. The fake upstream is a test double for a model backend.
const clock = manualClock(T0);
const DAY = 86_400_000;
let app: RunningApp;
let upstream: FakeUpstream;

test.before(async () => {
  upstream = await startFakeUpstream();
  app = await startTestApp({ clock });
  const model = (name: string, input: number, output: number) =>
    deployModel(
      app.url,
      app.adminKey,
      { name, pricing: { input_per_1k: input, output_per_1k: output } },
      upstream.url,
    );
  await model("priced", 0, 1);
  await model("big", 0.02, 0.02);
  await model("small", 0.001, 0.002);
});
test.after.always(async () => {
  await app?.close();
  await upstream?.close();
});

async function seedUsage(
  customerId: string,
  at: number,
  fields: {
    model?: string;
    requests?: number;
    rateLimited?: number;
    prompt?: number;
    completion?: number;
    cost: number;
  },
): Promise<void> {
  await app.app.ctx.db.query(
    `INSERT INTO usage_records (bucket_start, customer_id, key_id, model, requests, rate_limited,
       prompt_tokens, completion_tokens, cost_usd)
     VALUES ($1, $2, 'key_seed', $3, $4, $5, $6, $7, $8)`,
    [
      new Date(at),
      customerId,
      fields.model ?? "priced",
      fields.requests ?? 1,
      fields.rateLimited ?? 0,
      fields.prompt ?? 0,
      fields.completion ?? 0,
      fields.cost,
    ],
  );
}

test("budget status and forecast on a seeded history", async (t) => {
  const { customerId, key } = await newCustomer(app.url, app.adminKey, "pro");
  // $5 on Oct 31 (previous period), then $1 a day at 10:00 from Nov 1 to Nov 17.
  await seedUsage(customerId, Date.parse("2026-10-31T10:00:00Z"), { cost: 5 });
  for (let d = 1; d <= 17; d++) {
    await seedUsage(customerId, Date.UTC(2026, 10, d, 10), { cost: 1 });
  }
  const patch = await call(app.url, "PATCH", "/api/v1/budget/config", key, {
    limit_usd: 25,
    mode: "soft",
  });
  t.is(patch.status, 200);
  t.like(patch.json, {
    customer_id: customerId,
    limit_usd: 25,
    period: "monthly",
    mode: "soft",
    alert_thresholds: [0.5, 0.8, 1],
  });
  const status = await call(app.url, "GET", "/api/v1/budget/status", key);
  t.is(status.status, 200);
  // Run rate: $6 over the last 7 days (Nov 12..17) = 6/7 a day; 12.5 days left in November.
  t.deepEqual(status.json, {
    object: "budget_status",
    customer_id: customerId,
    period: "monthly",
    period_start: "2026-11-01T00:00:00.000Z",
    period_end: "2026-12-01T00:00:00.000Z",
    spend_usd: 17,
    reserved_usd: 0,
    limit_usd: 25,
    remaining_usd: 8,
    mode: "soft",
    alert_thresholds: [0.5, 0.8, 1],
    alerts_crossed: [0.5],
    forecast: {
      projected_spend_usd: Math.round((17 + (6 / 7) * 12.5) * 1e6) / 1e6,
      // $8 left at 6/7 a day: 9 days 8 hours.
      projected_exhaustion_date: "2026-11-27T20:00:00.000Z",
      run_rate_usd_per_day: Math.round((6 / 7) * 1e6) / 1e6,
      method: "linear run rate over the last 7 days",
    },
  });

  const weekly = await call(app.url, "PATCH", "/api/v1/budget/config", key, { period: "weekly" });
  t.is(weekly.status, 200);
  const week = await call(app.url, "GET", "/api/v1/budget/status", key);
  // ISO week of Mon Nov 16: Nov 16 and 17 so far.
  t.like(week.json, {
    period_start: "2026-11-16T00:00:00.000Z",
    period_end: "2026-11-23T00:00:00.000Z",
    spend_usd: 2,
    remaining_usd: 23,
  });
  t.is(
    (week.json.forecast as { projected_exhaustion_date: unknown }).projected_exhaustion_date,
    null,
  );
});

test("budget config: own customer by default, only admins name another, validation", async (t) => {
  const a = await newCustomer(app.url, app.adminKey, "free");
  const b = await newCustomer(app.url, app.adminKey, "free");
  const own = await call(app.url, "GET", "/api/v1/budget/config", a.key);
  t.is(own.status, 200);
  t.like(own.json, {
    customer_id: a.customerId,
    limit_usd: null,
    period: "monthly",
    mode: "soft",
    rate_limits: {
      requests_per_minute: null,
      tokens_per_minute: null,
      tier: "free",
      effective: { requests_per_minute: 20, tokens_per_minute: 40_000 },
    },
  });
  const admin = await call(app.url, "GET", "/api/v1/budget/config", app.adminKey);
  t.is(admin.json.customer_id, "default");
  const foreign = await call(
    app.url,
    "GET",
    `/api/v1/budget/status?customer_id=${b.customerId}`,
    a.key,
  );
  t.is(foreign.status, 403);
  t.is(errorOf(foreign.json).code, "insufficient_role");
  const byAdmin = await call(
    app.url,
    "GET",
    `/api/v1/budget/status?customer_id=${b.customerId}`,
    app.adminKey,
  );
  t.is(byAdmin.status, 200);
  t.is(byAdmin.json.customer_id, b.customerId);
  const missing = await call(
    app.url,
    "GET",
    "/api/v1/budget/config?customer_id=nobody",
    app.adminKey,
  );
  t.is(missing.status, 404);
  for (const bad of [
    {},
    { limit_usd: -1 },
    { period: "yearly" },
    { mode: "strict" },
    { extra: 1 },
  ]) {
    const res = await call(app.url, "PATCH", "/api/v1/budget/config", a.key, bad);
    t.is(res.status, 422, JSON.stringify(bad));
  }
});

test("a hard budget refuses a call whose estimated cost does not fit, before the model (402)", async (t) => {
  const { key } = await newCustomer(app.url, app.adminKey, "pro");
  const set = await call(app.url, "PATCH", "/api/v1/budget/config", key, {
    limit_usd: 0.25,
    mode: "hard",
  });
  t.is(set.status, 200);
  // "priced": $1 per 1k completion tokens. max_tokens 100 reserves $0.10; the fake answers with
  // 5 completion tokens, so each call settles to $0.005.
  for (let i = 0; i < 3; i++)
    t.is((await chat(app.url, key, "priced", { max_tokens: 100 })).status, 200);
  const before = upstream.requests.length;
  const refused = await chat(app.url, key, "priced", { max_tokens: 300 });
  t.is(refused.status, 402);
  t.is(errorOf(refused.json).type, "budget_error");
  t.is(errorOf(refused.json).code, "budget_exceeded");
  t.regex(errorOf(refused.json).message, /monthly hard budget of \$0\.25 has \$0\.235 left/);
  t.is(upstream.requests.length, before, "nothing reached the model");
  const status = await call(app.url, "GET", "/api/v1/budget/status", key);
  t.like(status.json, { spend_usd: 0.015, reserved_usd: 0, remaining_usd: 0.235, mode: "hard" });

  const soft = await call(app.url, "PATCH", "/api/v1/budget/config", key, {
    mode: "soft",
    limit_usd: 0.01,
  });
  t.is(soft.status, 200);
  t.is((await chat(app.url, key, "priced", { max_tokens: 300 })).status, 200, "soft: allowed");
  const after = await call(app.url, "GET", "/api/v1/budget/status", key);
  t.like(after.json, { spend_usd: 0.02, remaining_usd: 0, alerts_crossed: [0.5, 0.8, 1] });
});

test("recommendations return evidence-backed hints on a seeded history", async (t) => {
  const { customerId, key } = await newCustomer(app.url, app.adminKey, "free");
  // 1,000 calls to "big" with short prompts (100 tokens on average): $3 there, $0.20 on "small".
  await seedUsage(customerId, T0 - 2 * DAY, {
    model: "big",
    requests: 1000,
    rateLimited: 50,
    prompt: 100_000,
    completion: 50_000,
    cost: 3,
  });
  // Three identical requests and one other, in the audit log.
  const digests = ["aaa", "aaa", "aaa", "bbb"];
  for (const [i, digest] of digests.entries()) {
    await app.app.ctx.db.query(
      `INSERT INTO audit_records (id, customer_id, seq, occurred_at, kind, outcome, fields,
         record_digest, prev_hash, hash)
       VALUES ($1, $2, $3, $4, 'inference', 'completed', $5::json, 'x', 'x', 'x')`,
      [
        `aud_seed_${customerId}_${i}`,
        customerId,
        1_000_000 + i,
        new Date(T0 - DAY),
        JSON.stringify({
          kind: "inference",
          request_sha256: digest,
          cost_usd: 0.01,
          outcome: "completed",
        }),
      ],
    );
  }
  await call(app.url, "PATCH", "/api/v1/budget/config", key, { limit_usd: 5, mode: "hard" });

  const res = await call(app.url, "GET", "/api/v1/recommendations", key);
  t.is(res.status, 200);
  t.is(res.json.window_days, 30);
  const data = res.json.data as {
    kind: string;
    evidence: Record<string, unknown>;
    estimated_monthly_saving_usd: number;
  }[];
  const byKind = Object.fromEntries(data.map((r) => [r.kind, r]));
  t.like(byKind.cheaper_model, {
    evidence: {
      model: "big",
      calls: 1000,
      avg_prompt_tokens: 100,
      cost_usd: 3,
      alternative: "small",
      alternative_cost_usd: 0.2,
    },
    estimated_monthly_saving_usd: 2.8,
  });
  t.like(byKind.cache_repeated_prompts, {
    evidence: { distinct_repeated_requests: 1, repeat_calls: 2, repeat_cost_usd: 0.02 },
    estimated_monthly_saving_usd: 0.02,
  });
  t.like(byKind.tier_upgrade, { evidence: { tier: "free", requests: 1000, rate_limited: 50 } });
  // $3 since first use 2 days ago: $1.50 a day; $2 left lasts 1 day 8 hours.
  t.like(byKind.budget_exhaustion, {
    evidence: {
      spend_usd: 3,
      limit_usd: 5,
      run_rate_usd_per_day: 1.5,
      projected_exhaustion_date: "2026-11-19T20:00:00.000Z",
    },
  });

  const narrow = await call(app.url, "GET", "/api/v1/recommendations?window_days=1", key);
  t.false(
    (narrow.json.data as { kind: string }[]).some((r) => r.kind === "cheaper_model"),
    "outside the window",
  );
  for (const bad of ["0", "91", "abc", "1.5"]) {
    const r = await call(app.url, "GET", `/api/v1/recommendations?window_days=${bad}`, key);
    t.is(r.status, 422, bad);
    t.is(errorOf(r.json).code, "validation_failed");
  }
});

import test from "ava";
import OpenAI from "openai";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

let gateway: RunningApp;
let upstream: FakeUpstream;

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp();
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "audited", pricing: { input_per_1k: 1, output_per_1k: 2 } },
    upstream.url,
  );
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "premium-a", required_tier: "enterprise" },
    upstream.url,
  );
});
test.after.always(async () => {
  await gateway?.close();
  await upstream?.close();
});

interface AuditRow {
  request_id: string;
  outcome: string;
  status: number;
  error_code: string | null;
  key_id: string;
  usage: { total_tokens: number } | null;
  cost_usd: number | null;
  request_sha256: string;
  response_sha256: string | null;
  kind: string;
  action: string;
}

async function recordsFor(key: string, requestId: string): Promise<AuditRow[]> {
  const res = await call(gateway.url, "GET", `/api/v1/audit/records?request_id=${requestId}`, key);
  return res.json.data as AuditRow[];
}

test.serial(
  "every outcome of an inference call leaves exactly one record, without the key (fake upstream)",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const cases: {
      id: string;
      run: () => Promise<unknown>;
      outcome: string;
      status: number;
      code: string | null;
    }[] = [
      {
        id: "ok-json",
        run: () =>
          client.chat.completions.create(
            { model: "audited", messages: [{ role: "user", content: "a" }] },
            { headers: { "x-request-id": "ok-json" } },
          ),
        outcome: "completed",
        status: 200,
        code: null,
      },
      {
        id: "ok-stream",
        run: async () => {
          const s = await client.chat.completions.create(
            { model: "audited", messages: [{ role: "user", content: "a" }], stream: true },
            { headers: { "x-request-id": "ok-stream" } },
          );
          for await (const _c of s) {
            // drain
          }
        },
        outcome: "completed",
        status: 200,
        code: null,
      },
      {
        id: "no-model",
        run: () =>
          client.chat.completions.create(
            { model: "nope", messages: [{ role: "user", content: "a" }] },
            { headers: { "x-request-id": "no-model" } },
          ),
        outcome: "refused",
        status: 404,
        code: "model_not_found",
      },
      {
        id: "tier",
        run: () =>
          client.chat.completions.create(
            { model: "premium-a", messages: [{ role: "user", content: "a" }] },
            { headers: { "x-request-id": "tier" } },
          ),
        outcome: "refused",
        status: 403,
        code: "tier_restricted",
      },
      {
        id: "upstream-down",
        run: () => {
          // One target: a 503 is relayed as the backend said it, not retried.
          upstream.script.next({ status: 503 });
          return client.chat.completions.create(
            { model: "audited", messages: [{ role: "user", content: "a" }] },
            { headers: { "x-request-id": "upstream-down" } },
          );
        },
        outcome: "upstream_error",
        status: 503,
        code: null,
      },
    ];
    for (const c of cases) {
      await c.run().catch(() => undefined);
      const rows = await recordsFor(key, c.id);
      t.is(rows.length, 1, c.id);
      t.is(rows[0]?.outcome, c.outcome, c.id);
      t.is(rows[0]?.status, c.status, c.id);
      t.is(rows[0]?.error_code, c.code, c.id);
      t.regex(rows[0]?.request_sha256 ?? "", /^[0-9a-f]{64}$/);
      t.false(JSON.stringify(rows).includes(key), "the key itself is never recorded");
    }
    const ok = (await recordsFor(key, "ok-json"))[0];
    t.true((ok?.usage?.total_tokens ?? 0) > 0);
    t.true((ok?.cost_usd ?? 0) > 0, "cost from the model's prices");
    t.regex(ok?.response_sha256 ?? "", /^[0-9a-f]{64}$/);
  },
);

test.serial(
  "a stream abandoned by the client is recorded as client_aborted (fake upstream)",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    // Long enough that even a stalled client aborts before the backend finishes.
    upstream.script.next({ chunkCount: 60, paceMs: 100 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "audited", messages: [{ role: "user", content: "long" }], stream: true },
      { signal: controller.signal, headers: { "x-request-id": "abandoned" } },
    );
    let n = 0;
    try {
      for await (const _c of stream) if (++n === 2) controller.abort();
    } catch {
      // aborted
    }
    let rows: AuditRow[] = [];
    for (const deadline = Date.now() + 30_000; rows.length === 0 && Date.now() < deadline;) {
      rows = await recordsFor(key, "abandoned");
      if (rows.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    t.is(rows.length, 1);
    t.is(rows[0]?.outcome, "client_aborted");
  },
);

test.serial(
  "records count matches calls under concurrent load, and the chain verifies (fake upstream)",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "enterprise");
    const calls = Array.from({ length: 60 }, (_, i) =>
      call(
        gateway.url,
        "POST",
        "/v1/chat/completions",
        key,
        { model: "audited", messages: [{ role: "user", content: `n${i}` }] },
        { "x-request-id": `load-${i}` },
      ),
    );
    const results = await Promise.all(calls);
    t.true(results.every((r) => r.status === 200));
    const all = await call(
      gateway.url,
      "GET",
      "/api/v1/audit/records?kind=inference&limit=1000",
      key,
    );
    const ids = new Set((all.json.data as AuditRow[]).map((r) => r.request_id));
    t.is(ids.size, 60);
    const verify = await call(gateway.url, "GET", "/api/v1/audit/verify", key);
    t.true(verify.json.ok as boolean);
    t.is(verify.json.checked, 61, "60 calls plus the management record of the key's creation");
  },
);

test.serial(
  "management actions are audited with the acting key, secrets never recorded",
  async (t) => {
    const created = await call(gateway.url, "POST", "/api/v1/keys", gateway.adminKey, {
      name: "audited-key",
    });
    const rows = await call(
      gateway.url,
      "GET",
      "/api/v1/audit/records?kind=management&limit=1000",
      gateway.adminKey,
    );
    const data = rows.json.data as (AuditRow & {
      subject: string;
      details: Record<string, unknown>;
    })[];
    const rec = data.find((r) => r.action === "key.create" && r.subject === created.json.id);
    t.truthy(rec);
    t.is(
      rec?.key_id,
      gateway.app.ctx.repos &&
        (await gateway.app.ctx.authenticator.authenticate(`Bearer ${gateway.adminKey}`)).key.id,
    );
    t.false(JSON.stringify(rows.json).includes(created.json.key as string));
    t.true(
      data.some((r) => r.action === "deployment.update"),
      "deployment changes are audited",
    );
  },
);

test.serial("records are scoped to the caller's customer", async (t) => {
  const a = await customerKey(gateway.url, gateway.adminKey, "pro");
  const b = await customerKey(gateway.url, gateway.adminKey, "pro");
  await call(
    gateway.url,
    "POST",
    "/v1/chat/completions",
    a,
    { model: "audited", messages: [{ role: "user", content: "x" }] },
    { "x-request-id": "scoped-a" },
  );
  t.is((await recordsFor(b, "scoped-a")).length, 0);
  t.is((await recordsFor(a, "scoped-a")).length, 1);
  const other = await call(gateway.url, "GET", "/api/v1/audit/records?customer_id=default", b);
  t.is(other.status, 403);
});

test.serial("a rate-limited call is recorded too (outcome rate_limited, 429)", async (t) => {
  const key = await customerKey(gateway.url, gateway.adminKey, "free");
  for (let i = 0; i < 20; i++)
    await call(gateway.url, "POST", "/v1/chat/completions", key, {
      model: "audited",
      messages: [{ role: "user", content: "x" }],
    });
  const limited = await call(
    gateway.url,
    "POST",
    "/v1/chat/completions",
    key,
    { model: "audited", messages: [{ role: "user", content: "x" }] },
    { "x-request-id": "limited-1" },
  );
  t.is(limited.status, 429);
  const rows = await recordsFor(key, "limited-1");
  t.is(rows.length, 1);
  t.is(rows[0]?.outcome, "rate_limited");
  t.is(rows[0]?.status, 429);
  t.is(rows[0]?.error_code, "rate_limit_exceeded");
});

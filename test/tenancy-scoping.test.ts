import test from "ava";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

let app: RunningApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

async function tenant(): Promise<{ customerId: string; member: string; compliance: string }> {
  const c = await call(app.url, "POST", "/api/v1/customers", app.adminKey, {
    name: "t",
    tier: "pro",
  });
  const customerId = c.json.id as string;
  const mk = async (role: string) =>
    (
      await call(app.url, "POST", "/api/v1/keys", app.adminKey, {
        customer_id: customerId,
        name: role,
        role,
      })
    ).json.key as string;
  return { customerId, member: await mk("member"), compliance: await mk("compliance") };
}

function created(res: { status: number; json: Record<string, unknown> }): string {
  if (res.status !== 201)
    throw new Error(`create failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.id as string;
}

test("every by-id route answers 404 (or 403) for another customer's ids, and changes nothing", async (t) => {
  const a = await tenant();
  const b = await tenant();
  const as = (key: string, method: string, path: string, body?: unknown) =>
    call(app.url, method, path, key, body);

  // Customer A's resources, one of each kind that has an id.
  const keyId = created(
    await as(a.member, "POST", "/api/v1/keys", { name: "victim", customer_id: a.customerId }),
  );
  await as(a.member, "PATCH", `/api/v1/guardrails/policy?key_id=${keyId}`, {
    pii: { action: "block" },
  });
  const ruleId = created(
    await as(a.member, "POST", "/api/v1/guardrails/rules", {
      name: "kw",
      kind: "keyword",
      keywords: ["nightjar"],
    }),
  );
  const routeId = created(
    await as(a.member, "POST", "/api/v1/routes", {
      name: "r",
      match: { model: "m" },
      strategy: "weighted",
      targets: [{ model: "m", weight: 100 }],
    }),
  );
  const backendId = created(
    await as(a.member, "POST", "/api/v1/gateway/backends", {
      name: "b",
      base_url: "http://127.0.0.1:9/v1",
      models: ["byo"],
    }),
  );
  const holdId = created(
    await as(a.compliance, "POST", "/api/v1/audit/legal-hold", {
      from: "2026-01-01T00:00:00Z",
      to: "2026-02-01T00:00:00Z",
      reason: "r",
    }),
  );
  const exportId = (
    await as(a.member, "POST", "/api/v1/compliance/exports", {
      kind: "hipaa",
      from: "2026-01-01T00:00:00Z",
      to: "2026-02-01T00:00:00Z",
    })
  ).json.id as string;
  t.truthy(exportId);

  const attempts: [string, string, string, unknown?][] = [
    [b.member, "GET", `/api/v1/keys/${keyId}`],
    [b.member, "DELETE", `/api/v1/keys/${keyId}`],
    [b.member, "GET", `/api/v1/customers/${a.customerId}`],
    [b.member, "PATCH", `/api/v1/customers/${a.customerId}`, { name: "mine" }],
    [b.member, "GET", `/api/v1/guardrails/policy?key_id=${keyId}`],
    [b.member, "PATCH", `/api/v1/guardrails/policy?key_id=${keyId}`, { pii: { action: "redact" } }],
    [b.member, "GET", `/api/v1/guardrails/rules/${ruleId}`],
    [b.member, "PATCH", `/api/v1/guardrails/rules/${ruleId}`, { name: "mine" }],
    [b.member, "DELETE", `/api/v1/guardrails/rules/${ruleId}`],
    [b.member, "GET", `/api/v1/routes/${routeId}`],
    [b.member, "PATCH", `/api/v1/routes/${routeId}`, { name: "mine" }],
    [b.member, "DELETE", `/api/v1/routes/${routeId}`],
    [b.member, "GET", `/api/v1/routes/${routeId}/ab-results`],
    [b.member, "PATCH", `/api/v1/gateway/backends/${backendId}`, { name: "mine" }],
    [b.member, "DELETE", `/api/v1/gateway/backends/${backendId}`],
    [b.compliance, "DELETE", `/api/v1/audit/legal-hold/${holdId}`],
    [b.member, "GET", `/api/v1/compliance/exports/${exportId}`],
    [b.member, "GET", `/api/v1/compliance/exports/${exportId}/download`],
    [b.member, "DELETE", `/api/v1/compliance/exports/${exportId}`],
    [b.member, "GET", `/api/v1/audit/records?customer_id=${a.customerId}`],
    [b.member, "GET", `/api/v1/budget/status?customer_id=${a.customerId}`],
  ];
  for (const [key, method, path, body] of attempts) {
    const res = await as(key, method, path, body);
    t.true([403, 404].includes(res.status), `${method} ${path}: ${res.status}`);
    const text = JSON.stringify(res.json);
    t.false(
      /victim|nightjar|pii_policy|"key_override"/.test(text),
      `${method} ${path} leaks nothing`,
    );
  }

  // Nothing changed for A.
  t.is((await as(a.member, "GET", `/api/v1/keys/${keyId}`)).json.status, "active");
  const policy = await as(a.member, "GET", `/api/v1/guardrails/policy?key_id=${keyId}`);
  t.deepEqual(policy.json.key_override, { pii: { action: "block" } });
  t.is((await as(a.member, "GET", `/api/v1/guardrails/rules/${ruleId}`)).json.name, "kw");
  t.is((await as(a.member, "GET", `/api/v1/routes/${routeId}`)).json.name, "r");
  const backends = await as(a.member, "GET", "/api/v1/gateway/backends");
  t.is((backends.json.data as { name: string }[])[0]?.name, "b");
  const holds = await as(a.member, "GET", "/api/v1/audit/legal-hold");
  t.true((holds.json.data as { active: boolean }[])[0]?.active);
});

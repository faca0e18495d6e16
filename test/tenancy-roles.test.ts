import test from "ava";
import { pino } from "pino";
import { createApp } from "../dataplane/app/create-app.js";
import { memoryBroadcast } from "../dataplane/broadcast/broadcast.js";
import { loadConfig } from "../dataplane/config/config.js";
import { generateApiKey, hashApiKey } from "../dataplane/core/api-key-format.js";
import { openPglite } from "../dataplane/store/pglite-database.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

let app: RunningApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

interface Key {
  id: string;
  key: string;
}

async function customer(tier = "pro"): Promise<string> {
  const res = await call(app.url, "POST", "/api/v1/customers", app.adminKey, { name: "c", tier });
  return res.json.id as string;
}

async function key(by: string, body: Record<string, unknown>): Promise<Key> {
  const res = await call(app.url, "POST", "/api/v1/keys", by, { name: "k", ...body });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.json)}`);
  return { id: res.json.id as string, key: res.json.key as string };
}

const hold = { from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z", reason: "litigation" };

test("a member cannot revoke an admin key (the bootstrap admin included) nor a compliance key", async (t) => {
  const member = await key(app.adminKey, { customer_id: "default", role: "member" });
  const admin = await key(app.adminKey, { customer_id: "default", role: "admin" });
  const compliance = await key(app.adminKey, { customer_id: "default", role: "compliance" });
  const keys = await call(app.url, "GET", "/api/v1/keys", member.key);
  const bootstrap = (keys.json.data as { id: string; name: string }[]).find(
    (k) => k.name === "bootstrap-admin",
  );
  for (const id of [bootstrap?.id, admin.id, compliance.id]) {
    const res = await call(app.url, "DELETE", `/api/v1/keys/${String(id)}`, member.key);
    t.is(res.status, 403);
    t.is(errorOf(res.json).code, "insufficient_role");
  }
  t.is((await call(app.url, "GET", "/api/v1/health", app.adminKey)).status, 200);
  t.is((await call(app.url, "GET", "/api/v1/health", admin.key)).status, 200);
  // Nor set a guardrail override on an admin key.
  const override = await call(
    app.url,
    "PATCH",
    `/api/v1/guardrails/policy?key_id=${admin.id}`,
    member.key,
    { pii: { action: "block" } },
  );
  t.is(override.status, 403);
  // A member still revokes member keys of its customer.
  const other = await key(app.adminKey, { customer_id: "default", role: "member" });
  t.is((await call(app.url, "DELETE", `/api/v1/keys/${other.id}`, member.key)).status, 200);
});

test("only an admin grants compliance, operator or admin roles", async (t) => {
  const cus = await customer();
  const member = await key(app.adminKey, { customer_id: cus });
  const compliance = await key(app.adminKey, { customer_id: cus, role: "compliance" });
  for (const creator of [member, compliance]) {
    for (const role of ["admin", "compliance", "operator"]) {
      const res = await call(app.url, "POST", "/api/v1/keys", creator.key, {
        customer_id: cus,
        name: "x",
        role,
      });
      t.is(res.status, 403, `${role} by a non-admin`);
    }
  }
});

test("a created key's classification floor is never below its creator's", async (t) => {
  const cus = await customer();
  const strict = await key(app.adminKey, { customer_id: cus, classification_floor: "restricted" });
  const lower = await call(app.url, "POST", "/api/v1/keys", strict.key, {
    customer_id: cus,
    name: "lower",
    classification_floor: "public",
  });
  t.is(lower.status, 403);
  t.is(errorOf(lower.json).code, "insufficient_role");
  const inherited = await call(app.url, "POST", "/api/v1/keys", strict.key, {
    customer_id: cus,
    name: "same",
  });
  t.is(inherited.status, 201);
  t.is(inherited.json.classification_floor, "restricted", "the default is the creator's floor");
});

test("a member cannot mint a key above its own floor (the floor is its RAG clearance); an admin can", async (t) => {
  const cus = await customer();
  const member = await key(app.adminKey, { customer_id: cus, classification_floor: "internal" });
  for (const floor of ["confidential", "restricted"]) {
    const higher = await call(app.url, "POST", "/api/v1/keys", member.key, {
      customer_id: cus,
      name: "higher",
      classification_floor: floor,
    });
    t.is(higher.status, 403, floor);
    t.is(errorOf(higher.json).code, "insufficient_role");
  }
  const same = await call(app.url, "POST", "/api/v1/keys", member.key, {
    customer_id: cus,
    name: "same",
    classification_floor: "internal",
  });
  t.is(same.status, 201);
  const byAdmin = await key(app.adminKey, { customer_id: cus, classification_floor: "restricted" });
  t.truthy(byAdmin.key);
});

test("legal holds and retention need the compliance role; a member cannot undo them; changes are audited with who did it", async (t) => {
  const cus = await customer();
  const member = await key(app.adminKey, { customer_id: cus });
  const compliance = await key(app.adminKey, { customer_id: cus, role: "compliance" });
  const placed = await call(
    app.url,
    "POST",
    `/api/v1/audit/legal-hold?customer_id=${cus}`,
    app.adminKey,
    hold,
  );
  t.is(placed.status, 201);
  const holdId = placed.json.id as string;

  const release = await call(app.url, "DELETE", `/api/v1/audit/legal-hold/${holdId}`, member.key);
  t.is(release.status, 403);
  const cut = await call(app.url, "PATCH", "/api/v1/audit/retention", member.key, {
    metadata_days: 1,
  });
  t.is(cut.status, 403);
  t.is((await call(app.url, "POST", "/api/v1/audit/legal-hold", member.key, hold)).status, 403);
  const holds = await call(app.url, "GET", "/api/v1/audit/legal-hold", member.key);
  t.true((holds.json.data as { active: boolean }[])[0]?.active, "members still read holds");

  const changed = await call(app.url, "PATCH", "/api/v1/audit/retention", compliance.key, {
    metadata_days: 400,
  });
  t.is(changed.status, 200);
  t.is(
    (await call(app.url, "DELETE", `/api/v1/audit/legal-hold/${holdId}`, compliance.key)).status,
    204,
  );
  let actions: { action: string; key_id: string }[] = [];
  const audited = await within(10_000, async () => {
    const records = await call(
      app.url,
      "GET",
      "/api/v1/audit/records?kind=management",
      compliance.key,
    );
    actions = (records.json.data as { action: string; key_id: string }[]).filter((r) =>
      ["retention.update", "legal_hold.release"].includes(r.action),
    );
    return actions.length === 2;
  });
  t.true(audited);
  t.true(actions.every((r) => r.key_id === compliance.id));
});

test("the bootstrap admin key is restored from EVIDENT_ADMIN_KEY at start when it was revoked", async (t) => {
  const db = await openPglite(undefined);
  const stores = { db, redis: undefined, broadcast: memoryBroadcast() };
  const adminKey = generateApiKey();
  const config = loadConfig({ LOG_LEVEL: "silent", EVIDENT_ADMIN_KEY: adminKey });
  const logger = pino({ level: "silent" });
  try {
    const first = await createApp(config, { logger, stores });
    const bootstrap = await first.ctx.repos.apiKeys.findByHash(hashApiKey(adminKey));
    await first.ctx.repos.apiKeys.revoke(String(bootstrap?.id), null);
    await t.throwsAsync(first.ctx.authenticator.authenticate(`Bearer ${adminKey}`));
    await first.close();
    const second = await createApp(config, { logger, stores });
    const caller = await second.ctx.authenticator.authenticate(`Bearer ${adminKey}`);
    t.is(caller.key.role, "admin");
    t.is(caller.key.revokedAt, null);
    await second.close();
  } finally {
    await db.close();
  }
});

test("platform-wide metrics are for admin keys only", async (t) => {
  const cus = await customer();
  const member = await key(app.adminKey, { customer_id: cus });
  const res = await call(app.url, "GET", "/api/v1/system/metrics", member.key);
  t.is(res.status, 403);
  t.is(errorOf(res.json).code, "insufficient_role");
  t.is((await call(app.url, "GET", "/api/v1/system/metrics", app.adminKey)).status, 200);
});

test("members do not see deployments' endpoint URLs", async (t) => {
  const model = await call(app.url, "POST", "/api/v1/models", app.adminKey, {
    name: "hidden-endpoint",
    version: "1",
  });
  const dep = await call(app.url, "POST", "/api/v1/deployments", app.adminKey, {
    model_id: model.json.id,
  });
  const id = dep.json.id as string;
  await call(app.url, "PATCH", `/api/v1/deployments/${id}`, app.adminKey, {
    status: "provisioning",
  });
  await call(app.url, "PATCH", `/api/v1/deployments/${id}`, app.adminKey, {
    status: "running",
    endpoint_url: "http://10.1.2.3:8000/v1",
  });
  const member = await key(app.adminKey, { customer_id: await customer() });
  const one = await call(app.url, "GET", `/api/v1/deployments/${id}`, member.key);
  t.is(one.status, 200);
  t.is(one.json.endpoint_url, null);
  const list = await call(app.url, "GET", "/api/v1/deployments", member.key);
  t.false(JSON.stringify(list.json).includes("10.1.2.3"));
  const asAdmin = await call(app.url, "GET", `/api/v1/deployments/${id}`, app.adminKey);
  t.is(asAdmin.json.endpoint_url, "http://10.1.2.3:8000/v1");
});

test("an operator key manages models, deployments, routes, rules and holds for any customer, and nothing else", async (t) => {
  const cus = await customer();
  const operator = await key(app.adminKey, { customer_id: "default", role: "operator" });
  const op = (method: string, path: string, body?: unknown) =>
    call(app.url, method, path, operator.key, body);
  const model = await op("POST", "/api/v1/models", { name: "op-model", version: "1" });
  t.is(model.status, 201);
  const dep = await op("POST", "/api/v1/deployments", { model_id: model.json.id });
  t.is(dep.status, 201);
  const routeRes = await op("POST", "/api/v1/routes", {
    customer_id: cus,
    name: "r",
    match: { model: "op-model" },
    strategy: "weighted",
    targets: [{ model: "op-model", weight: 100 }],
  });
  t.is(routeRes.status, 201, JSON.stringify(routeRes.json));
  t.is(routeRes.json.customer_id, cus);
  const rule = await op("POST", `/api/v1/guardrails/rules?customer_id=${cus}`, {
    name: "kw",
    kind: "keyword",
    keywords: ["nightjar"],
  });
  t.is(rule.status, 201, JSON.stringify(rule.json));
  t.is((await op("GET", `/api/v1/guardrails/rules/${rule.json.id as string}`)).status, 200);
  const held = await op("POST", `/api/v1/audit/legal-hold?customer_id=${cus}`, hold);
  t.is(held.status, 201);
  t.is((await op("DELETE", `/api/v1/audit/legal-hold/${held.json.id as string}`)).status, 204);

  const forbidden: [string, string, unknown?][] = [
    ["POST", "/api/v1/keys", { customer_id: cus, name: "x" }],
    ["GET", "/api/v1/keys"],
    ["GET", `/api/v1/keys/${operator.id}`],
    ["DELETE", `/api/v1/keys/${operator.id}`],
    ["POST", "/api/v1/customers", { name: "x", tier: "free" }],
    ["GET", "/api/v1/customers"],
    ["GET", `/api/v1/audit/records?customer_id=${cus}`],
    ["GET", `/api/v1/audit/verify?customer_id=${cus}`],
    ["PATCH", `/api/v1/audit/retention?customer_id=${cus}`, { metadata_days: 1 }],
    ["GET", `/api/v1/guardrails/policy?customer_id=${cus}`],
    ["GET", "/api/v1/system/metrics"],
    ["GET", `/api/v1/compliance/exports?customer_id=${cus}`],
    [
      "POST",
      "/v1/chat/completions",
      { model: "op-model", messages: [{ role: "user", content: "hi" }] },
    ],
  ];
  for (const [method, path, body] of forbidden) {
    const res = await op(method, path, body);
    t.is(res.status, 403, `${method} ${path}`);
    t.is(errorOf(res.json).code, "insufficient_role", `${method} ${path}`);
  }
});

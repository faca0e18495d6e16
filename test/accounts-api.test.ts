import test from "ava";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";

let app: RunningApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

async function newCustomer(name: string, tier = "pro") {
  const res = await call(app.url, "POST", "/api/v1/customers", app.adminKey, { name, tier });
  return res.json as { id: string; name: string; tier: string };
}

async function newKey(key: string, body: Record<string, unknown>) {
  return call(app.url, "POST", "/api/v1/keys", key, body);
}

test("an admin creates a customer and a key; the key works at once and is shown only once", async (t) => {
  const customer = await newCustomer("Acme");
  t.regex(customer.id, /^cus_/);
  t.is(customer.tier, "pro");
  const created = await newKey(app.adminKey, {
    customer_id: customer.id,
    name: "ci",
    role: "member",
    classification_floor: "internal",
  });
  t.is(created.status, 201);
  const key = created.json.key as string;
  t.regex(key, /^ev_sk_[A-Za-z0-9]{40}$/);
  t.is(created.json.classification_floor, "internal");
  t.is((await call(app.url, "GET", "/api/v1/health", key)).status, 200);
  const fetched = await call(app.url, "GET", `/api/v1/keys/${created.json.id as string}`, key);
  t.is(fetched.status, 200);
  t.is(fetched.json.key, undefined, "the plaintext is never returned again");
  t.false(JSON.stringify(fetched.json).includes(key));
});

test("revocation takes effect immediately", async (t) => {
  const customer = await newCustomer("Revokers");
  const created = await newKey(app.adminKey, { customer_id: customer.id, name: "temp" });
  const key = created.json.key as string;
  t.is((await call(app.url, "GET", "/api/v1/health", key)).status, 200);
  const revoked = await call(
    app.url,
    "DELETE",
    `/api/v1/keys/${created.json.id as string}`,
    app.adminKey,
  );
  t.is(revoked.status, 200);
  t.is(revoked.json.status, "revoked");
  const after = await call(app.url, "GET", "/api/v1/health", key);
  t.is(after.status, 401);
  t.is(errorOf(after.json).code, "invalid_api_key");
});

test("a member sees and manages only its own customer's keys and cannot act as admin", async (t) => {
  const mine = await newCustomer("Mine");
  const theirs = await newCustomer("Theirs");
  const member = (await newKey(app.adminKey, { customer_id: mine.id, name: "m" })).json
    .key as string;
  const otherKey = await newKey(app.adminKey, { customer_id: theirs.id, name: "o" });

  const list = await call(app.url, "GET", "/api/v1/keys", member);
  t.is(list.status, 200);
  const data = list.json.data as { customer_id: string }[];
  t.true(data.length >= 1);
  t.true(data.every((k) => k.customer_id === mine.id));

  const peek = await call(app.url, "GET", `/api/v1/keys/${otherKey.json.id as string}`, member);
  t.is(peek.status, 404, "another customer's key does not exist for a member");
  const revokeOther = await call(
    app.url,
    "DELETE",
    `/api/v1/keys/${otherKey.json.id as string}`,
    member,
  );
  t.is(revokeOther.status, 404);

  const forOther = await newKey(member, { customer_id: theirs.id, name: "x" });
  t.is(forOther.status, 403);
  t.is(errorOf(forOther.json).code, "insufficient_role");
  const adminKey = await newKey(member, { customer_id: mine.id, name: "x", role: "admin" });
  t.is(adminKey.status, 403);
  const own = await newKey(member, { customer_id: mine.id, name: "self-service" });
  t.is(own.status, 201);

  for (const [method, path, body] of [
    ["POST", "/api/v1/customers", { name: "n", tier: "free" }],
    ["GET", "/api/v1/customers", undefined],
    ["PATCH", `/api/v1/customers/${mine.id}`, { tier: "enterprise" }],
  ] as const) {
    const res = await call(app.url, method, path, member, body);
    t.is(res.status, 403, `${method} ${path}`);
    t.is(errorOf(res.json).type, "permission_error");
  }
  t.is((await call(app.url, "GET", `/api/v1/customers/${mine.id}`, member)).status, 200);
  t.is((await call(app.url, "GET", `/api/v1/customers/${theirs.id}`, member)).status, 404);
});

test("a tier change is visible to the customer's keys at once", async (t) => {
  const customer = await newCustomer("Upgrader", "free");
  const patched = await call(app.url, "PATCH", `/api/v1/customers/${customer.id}`, app.adminKey, {
    tier: "business",
  });
  t.is(patched.status, 200);
  t.is(patched.json.tier, "business");
  t.is(
    (await call(app.url, "GET", `/api/v1/customers/${customer.id}`, app.adminKey)).json.tier,
    "business",
  );
  const bad = await call(app.url, "PATCH", `/api/v1/customers/${customer.id}`, app.adminKey, {});
  t.is(bad.status, 422);
  t.is(
    (await call(app.url, "PATCH", "/api/v1/customers/cus_missing", app.adminKey, { tier: "pro" }))
      .status,
    404,
  );
});

test("keys for unknown customers and hostile strings are refused or stored literally", async (t) => {
  const unknown = await newKey(app.adminKey, { customer_id: "cus_doesnotexist", name: "x" });
  t.is(unknown.status, 422);
  const hostile = "x'); DROP TABLE api_keys; --<script>";
  const c = await newCustomer(hostile);
  t.is(c.name, hostile);
  const ctrl = await call(app.url, "POST", "/api/v1/customers", app.adminKey, {
    name: "a\u0000b",
    tier: "pro",
  });
  t.is(ctrl.status, 422);
  t.is((await call(app.url, "GET", "/api/v1/keys", app.adminKey)).status, 200, "tables intact");
});

test("lists page with limit, offset and has_more", async (t) => {
  for (let i = 0; i < 3; i++) await newCustomer(`page-${i}`);
  const first = await call(app.url, "GET", "/api/v1/customers?limit=2", app.adminKey);
  t.is((first.json.data as unknown[]).length, 2);
  t.true(first.json.has_more as boolean);
  const all = await call(app.url, "GET", "/api/v1/customers?limit=1000", app.adminKey);
  t.false(all.json.has_more as boolean);
  const tail = await call(app.url, "GET", `/api/v1/customers?limit=1000&offset=1`, app.adminKey);
  t.is((tail.json.data as unknown[]).length, (all.json.data as unknown[]).length - 1);
});

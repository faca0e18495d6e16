import test from "ava";
import { customerKey } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";

let gw: RunningApp;

test.before(async () => {
  gw = await startTestApp();
});

test.after.always(async () => {
  await gw?.close();
});

const route = (body: Record<string, unknown>, key = gw.adminKey) =>
  call(gw.url, "POST", "/api/v1/routes", key, body);

test.serial("routes: create, list, get, patch, delete; scoped to the key's customer", async (t) => {
  const alice = await customerKey(gw.url, gw.adminKey, "free");
  const bob = await customerKey(gw.url, gw.adminKey, "free");
  const created = await route(
    {
      name: "gpt split",
      match: { model: "gpt-x" },
      strategy: "weighted",
      targets: [
        { model: "m1", weight: 70 },
        { model: "m2", weight: 30 },
      ],
      enabled: true,
    },
    alice,
  );
  t.is(created.status, 201, JSON.stringify(created.json));
  const id = created.json.id as string;
  const customerId = created.json.customer_id as string;
  t.regex(id, /^route_/);
  t.deepEqual(created.json.match, { model: "gpt-x", headers: {} });

  const list = await call(gw.url, "GET", "/api/v1/routes", alice);
  t.deepEqual(
    (list.json.data as { id: string }[]).map((r) => r.id),
    [id],
  );
  t.is((await call(gw.url, "GET", `/api/v1/routes/${id}`, alice)).json.name, "gpt split");

  // Another customer neither sees nor changes it, nor acts for alice's customer.
  t.is((await call(gw.url, "GET", `/api/v1/routes/${id}`, bob)).status, 404);
  t.is((await call(gw.url, "PATCH", `/api/v1/routes/${id}`, bob, { enabled: false })).status, 404);
  t.is((await call(gw.url, "DELETE", `/api/v1/routes/${id}`, bob)).status, 404);
  t.deepEqual((await call(gw.url, "GET", "/api/v1/routes", bob)).json.data, []);
  const forOther = await call(gw.url, "GET", `/api/v1/routes?customer_id=${customerId}`, bob);
  t.is(forOther.status, 403);
  // An admin may name any customer.
  const adminList = await call(
    gw.url,
    "GET",
    `/api/v1/routes?customer_id=${customerId}`,
    gw.adminKey,
  );
  t.is((adminList.json.data as unknown[]).length, 1);
  t.is((await call(gw.url, "GET", `/api/v1/routes/${id}`, gw.adminKey)).status, 200);

  const patched = await call(gw.url, "PATCH", `/api/v1/routes/${id}`, alice, {
    strategy: "fallback",
    enabled: false,
  });
  t.is(patched.status, 200);
  t.is(patched.json.strategy, "fallback");
  t.is(patched.json.enabled, false);
  t.is(patched.json.name, "gpt split", "fields not sent are kept");

  t.is((await call(gw.url, "DELETE", `/api/v1/routes/${id}`, alice)).status, 204);
  t.is((await call(gw.url, "GET", `/api/v1/routes/${id}`, alice)).status, 404);

  const audit = await call(
    gw.url,
    "GET",
    `/api/v1/audit/records?customer_id=${customerId}&kind=management`,
    gw.adminKey,
  );
  const actions = (audit.json.data as { action: string }[]).map((r) => r.action);
  for (const a of ["route.create", "route.update", "route.delete"]) t.true(actions.includes(a), a);
});

test.serial("routes: invalid bodies are 422", async (t) => {
  const valid = {
    match: { model: "x" },
    strategy: "weighted",
    targets: [{ model: "y", weight: 50 }],
    enabled: true,
  };
  t.is((await route(valid)).status, 201);
  const bad: Record<string, unknown>[] = [
    { ...valid, strategy: "random" },
    { ...valid, targets: [] },
    { ...valid, targets: [{ model: "y", weight: 101 }] },
    { ...valid, targets: [{ model: "y", weight: -1 }] },
    { ...valid, targets: [{ model: "y", weight: 0 }] },
    { ...valid, priority: 1 },
    { ...valid, match: { model: "x", region: "eu" } },
    { ...valid, match: { model: "x".repeat(257) } },
    { ...valid, targets: [{ model: "", weight: 1 }] },
    { ...valid, strategy: "ab" },
  ];
  for (const body of bad) {
    const res = await route(body);
    t.is(res.status, 422, JSON.stringify(body).slice(0, 120));
    t.is(errorOf(res.json).code, "validation_failed");
  }
  const id = (await route(valid)).json.id as string;
  const patch = await call(gw.url, "PATCH", `/api/v1/routes/${id}`, gw.adminKey, { colour: 1 });
  t.is(patch.status, 422);
});

import test from "ava";
import type { FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { eventually, useRoutingGateway } from "./support/routing-gateway.js";
import { call, errorOf } from "./support/test-app.js";

const rig = useRoutingGateway(test);

/** Model names the fake upstream `up` received since `from`. */
const received = (up: FakeUpstream, from: number) =>
  up.requests.slice(from).map((r) => (r.body as { model?: string }).model);

test.serial("weighted 100/0 sends every call to the weight-100 model", async (t) => {
  await deployModel(rig.gw.url, rig.gw.adminKey, { name: "w-heavy" }, rig.upA.url);
  await deployModel(rig.gw.url, rig.gw.adminKey, { name: "w-never" }, rig.upB.url);
  const key = await customerKey(rig.gw.url, rig.gw.adminKey, "free");
  const created = await rig.route(
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
  const [a, b] = [rig.upA.requests.length, rig.upB.requests.length];
  for (let i = 0; i < 10; i++) {
    const res = await rig.chat(key, "w-alias");
    t.is(res.status, 200);
  }
  t.deepEqual(received(rig.upA, a), Array(10).fill("w-heavy"));
  t.deepEqual(received(rig.upB, b), []);
});

test.serial("evaluate is a dry run: the decision, no upstream call", async (t) => {
  await deployModel(rig.gw.url, rig.gw.adminKey, { name: "e-target", version: "3" }, rig.upA.url);
  const key = await customerKey(rig.gw.url, rig.gw.adminKey, "free");
  const created = await rig.route(
    {
      match: { model: "e-alias" },
      strategy: "fallback",
      targets: [{ model: "e-target", weight: 1 }],
      enabled: true,
    },
    key,
  );
  const [a, b] = [rig.upA.requests.length, rig.upB.requests.length];
  const res = await call(rig.gw.url, "POST", "/api/v1/routes/evaluate", key, { model: "e-alias" });
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
  t.is(rig.upA.requests.length, a);
  t.is(rig.upB.requests.length, b);
  // Without a matching route the requested name resolves as usual.
  const plain = await call(rig.gw.url, "POST", "/api/v1/routes/evaluate", key, {
    model: "e-target",
  });
  t.like(plain.json, { route_id: null, model: "e-target" });
  const unknown = await call(rig.gw.url, "POST", "/api/v1/routes/evaluate", key, { model: "nope" });
  t.is(unknown.status, 404);
  const extra = await call(rig.gw.url, "POST", "/api/v1/routes/evaluate", key, {
    model: "x",
    n: 1,
  });
  t.is(extra.status, 422);
});

test.serial("fallback skips a target with no running deployment", async (t) => {
  const registered = await call(rig.gw.url, "POST", "/api/v1/models", rig.gw.adminKey, {
    name: "f-undeployed",
    version: "1",
  });
  t.is(registered.status, 201);
  await deployModel(rig.gw.url, rig.gw.adminKey, { name: "f-second" }, rig.upB.url);
  await deployModel(rig.gw.url, rig.gw.adminKey, { name: "f-third" }, rig.upA.url);
  const key = await customerKey(rig.gw.url, rig.gw.adminKey, "free");
  await rig.route(
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
  const [a, b] = [rig.upA.requests.length, rig.upB.requests.length];
  const res = await rig.chat(key, "f-alias");
  t.is(res.status, 200);
  t.deepEqual(received(rig.upB, b), ["f-second"]);
  t.deepEqual(received(rig.upA, a), []);
  // When the first routable target's backend fails, the next target takes the call.
  rig.upB.script.next({ status: 503 });
  const failedOver = await rig.chat(key, "f-alias");
  t.is(failedOver.status, 200);
  t.deepEqual(received(rig.upA, a), ["f-third"]);
  // The audit record accounts the failed-over call to the model that served it.
  const records = await eventually(
    async () =>
      (await call(rig.gw.url, "GET", "/api/v1/audit/records?kind=inference", key)).json.data as {
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
      rig.gw.url,
      rig.gw.adminKey,
      { name: "c-pricey", pricing: { input_per_1k: 0.03, output_per_1k: 0.06 } },
      rig.upA.url,
    );
    await deployModel(
      rig.gw.url,
      rig.gw.adminKey,
      { name: "c-cheap", pricing: { input_per_1k: 0.001, output_per_1k: 0.002 } },
      rig.upB.url,
    );
    const key = await customerKey(rig.gw.url, rig.gw.adminKey, "free");
    const created = await rig.route(
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
    const [a, b] = [rig.upA.requests.length, rig.upB.requests.length];
    t.is((await rig.chat(key, "c-alias")).status, 200);
    t.deepEqual(received(rig.upB, b), ["c-cheap"]);
    t.deepEqual(received(rig.upA, a), []);
    const records = await eventually(
      async () =>
        (await call(rig.gw.url, "GET", "/api/v1/audit/records?kind=inference", key)).json.data as {
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
    await deployModel(rig.gw.url, rig.gw.adminKey, { name: "h-default" }, rig.upA.url);
    await deployModel(rig.gw.url, rig.gw.adminKey, { name: "h-beta" }, rig.upB.url);
    const key = await customerKey(rig.gw.url, rig.gw.adminKey, "free");
    await rig.route(
      {
        match: { model: "h-default", headers: { "X-Tenant": "beta" } },
        strategy: "weighted",
        targets: [{ model: "h-beta", weight: 100 }],
        enabled: true,
      },
      key,
    );
    const [a, b] = [rig.upA.requests.length, rig.upB.requests.length];
    t.is((await rig.chat(key, "h-default")).status, 200);
    t.is((await rig.chat(key, "h-default", { "x-tenant": "beta" })).status, 200);
    t.is((await rig.chat(key, "h-default", { "x-tenant": "gamma" })).status, 200);
    t.deepEqual(received(rig.upA, a), ["h-default", "h-default"]);
    t.deepEqual(received(rig.upB, b), ["h-beta"]);
  },
);

test.serial("a disabled route is ignored; the tier check applies to the model used", async (t) => {
  await deployModel(rig.gw.url, rig.gw.adminKey, { name: "t-free" }, rig.upA.url);
  await deployModel(
    rig.gw.url,
    rig.gw.adminKey,
    { name: "t-ent", required_tier: "enterprise" },
    rig.upB.url,
  );
  const key = await customerKey(rig.gw.url, rig.gw.adminKey, "free");
  const created = await rig.route(
    {
      match: { model: "t-free" },
      strategy: "weighted",
      targets: [{ model: "t-ent", weight: 100 }],
      enabled: true,
    },
    key,
  );
  const res = await rig.chat(key, "t-free");
  t.is(res.status, 403);
  t.is(errorOf(res.json).code, "tier_restricted");
  const id = created.json.id as string;
  await call(rig.gw.url, "PATCH", `/api/v1/routes/${id}`, key, { enabled: false });
  t.is((await rig.chat(key, "t-free")).status, 200);
});

import test from "ava";
import type { RoutableModel, Target } from "../routing-types.js";
import { matchRoute } from "./match-route.js";
import { pickTarget } from "./pick-target.js";
import type { RouteConfig, RouteStrategy, RouteTarget } from "./route-config.js";

const target = (id: string): Target => ({
  id,
  kind: "deployment",
  baseUrl: `http://${id}/v1`,
  upstreamModel: id,
  credential: undefined,
});
const model = (name: string, deployed: boolean, price = 0): RoutableModel => ({
  name,
  model: undefined,
  aliases: [],
  requiredTier: "free",
  pricing: { inputPer1k: price, outputPer1k: price },
  modality: "text",
  contextWindow: null,
  targets: deployed ? [target(`d-${name}`)] : [],
  createdAt: new Date(0),
});
const catalogue = new Map(
  [
    model("a", true, 0.02),
    model("b", true, 0.01),
    model("c", true, 0.01),
    model("down", false, 0),
  ].map((m) => [m.name, m]),
);
const resolve = (name: string) => catalogue.get(name);
const routeOf = (
  strategy: RouteStrategy,
  targets: RouteTarget[],
  extra: Partial<RouteConfig> = {},
): RouteConfig => ({
  id: "route_1",
  customerId: "cus_1",
  name: "r",
  match: { model: "alias", headers: {} },
  strategy,
  targets,
  enabled: true,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...extra,
});

test("weighted: the random point falls in each target's share of the total weight", (t) => {
  const r = routeOf("weighted", [
    { model: "a", weight: 25 },
    { model: "b", weight: 75 },
  ]);
  t.is(pickTarget(r, resolve, () => 0)?.arm, "a");
  t.is(pickTarget(r, resolve, () => 0.2499)?.arm, "a");
  t.is(pickTarget(r, resolve, () => 0.25)?.arm, "b");
  t.is(pickTarget(r, resolve, () => 0.9999)?.arm, "b");
  t.deepEqual(
    pickTarget(r, resolve, () => 0)?.fallbacks.map((f) => f.model.name),
    ["b"],
  );
});

test("weighted: weight 0 and undeployed targets are never picked", (t) => {
  const r = routeOf("weighted", [
    { model: "a", weight: 0 },
    { model: "down", weight: 90 },
    { model: "b", weight: 10 },
  ]);
  for (const x of [0, 0.5, 0.99]) t.is(pickTarget(r, resolve, () => x)?.arm, "b");
  t.deepEqual(pickTarget(r, resolve, () => 0)?.fallbacks, []);
  const none = routeOf("weighted", [{ model: "down", weight: 100 }]);
  t.is(
    pickTarget(none, resolve, () => 0),
    undefined,
  );
});

test("ab: splits by weight and keeps each call in its arm (no fallbacks)", (t) => {
  const r = routeOf("ab", [
    { model: "a", weight: 50 },
    { model: "b", weight: 50 },
  ]);
  t.like(
    pickTarget(r, resolve, () => 0.1),
    { arm: "a", fallbacks: [] },
  );
  t.like(
    pickTarget(r, resolve, () => 0.6),
    { arm: "b", fallbacks: [] },
  );
});

test("fallback: the first routable target in order wins, the rest follow in order", (t) => {
  const r = routeOf("fallback", [
    { model: "down", weight: 0 },
    { model: "missing", weight: 0 },
    { model: "c", weight: 0 },
    { model: "a", weight: 0 },
  ]);
  const pick = pickTarget(r, resolve, () => 0.5);
  t.is(pick?.chosen.name, "c");
  t.deepEqual(
    pick?.fallbacks.map((f) => f.model.name),
    ["a"],
  );
});

test("cheapest: lowest input+output price, ties in route order, the rest cheapest first", (t) => {
  const r = routeOf("cheapest", [
    { model: "a", weight: 100 },
    { model: "c", weight: 0 },
    { model: "b", weight: 0 },
    { model: "down", weight: 0 },
  ]);
  const pick = pickTarget(r, resolve, () => 0);
  t.is(pick?.chosen.name, "c");
  t.deepEqual(
    pick?.fallbacks.map((f) => f.model.name),
    ["b", "a"],
  );
});

test("matchRoute: enabled, same requested name, every header condition (case-insensitive name)", (t) => {
  const plain = routeOf("weighted", [{ model: "a", weight: 1 }], { id: "plain" });
  const beta = routeOf("weighted", [{ model: "b", weight: 1 }], {
    id: "beta",
    match: { model: "alias", headers: { "X-Tenant": "beta" } },
  });
  const off = routeOf("weighted", [{ model: "b", weight: 1 }], { id: "off", enabled: false });
  t.is(matchRoute([beta, plain], "alias", { "x-tenant": "beta" })?.id, "beta");
  t.is(matchRoute([beta, plain], "alias", { "x-tenant": "gamma" })?.id, "plain");
  t.is(matchRoute([beta, plain], "alias", undefined)?.id, "plain");
  t.is(matchRoute([off], "alias", {}), undefined);
  t.is(matchRoute([plain], "other", {}), undefined);
});

import test from "ava";
import { GatewayError } from "../../dataplane/core/errors.js";
import { GUARDRAIL_RULES, ROUTES } from "../kube/resources.js";
import { ReconcileHarness } from "../testing/reconcile-harness.js";

const ROUTE_SPEC = {
  customerId: "acme",
  match: { model: "chat", headers: { "x-tier": "gold" } },
  strategy: "weighted",
  targets: [
    { model: "llama-3-8b", weight: 80 },
    { model: "gpt-4o-mini", weight: 20 },
  ],
  enabled: true,
};

const RULE_SPEC = {
  customerId: "acme",
  name: "no-card-numbers",
  kind: "regex",
  pattern: "\\b\\d{16}\\b",
  action: "block",
  appliesTo: "both",
  enabled: true,
};

test("a Route CR creates the native route in snake_case, named after the CR, and shows routeId and synced", async (t) => {
  const h = new ReconcileHarness();
  h.apply(ROUTES, "chat-split", ROUTE_SPEC);
  await h.reconcile(ROUTES, "chat-split");
  const [route] = [...h.native.routeStore.values()];
  t.like(route, { customer_id: "acme", name: "chat-split", strategy: "weighted", enabled: true });
  t.deepEqual(route?.match, { model: "chat", headers: { "x-tier": "gold" } });
  t.like(h.status(ROUTES, "chat-split"), { routeId: route?.id, synced: true });
  t.is(h.condition(ROUTES, "chat-split", "Synced")?.status, "True");
});

test("changing a Route CR updates the same native route; a second reconcile writes nothing", async (t) => {
  const h = new ReconcileHarness();
  h.apply(ROUTES, "chat-split", ROUTE_SPEC);
  await h.reconcile(ROUTES, "chat-split");
  h.apply(ROUTES, "chat-split", { ...ROUTE_SPEC, strategy: "fallback" });
  await h.reconcile(ROUTES, "chat-split");
  t.is(h.native.routeStore.size, 1);
  t.is([...h.native.routeStore.values()][0]?.strategy, "fallback");
  t.true(h.eventReasons("chat-split").includes("Updated"));
  const writes = h.native.writes.length;
  await h.reconcile(ROUTES, "chat-split");
  t.is(h.native.writes.length, writes);
});

test("a Route edited through the REST API is reverted to the CR's spec (GitOps wins)", async (t) => {
  const h = new ReconcileHarness();
  h.apply(ROUTES, "chat-split", ROUTE_SPEC);
  await h.reconcile(ROUTES, "chat-split");
  const id = String(h.status(ROUTES, "chat-split").routeId);
  await h.native.routes.patch(id, { enabled: false, targets: [{ model: "gpt-4o", weight: 1 }] });
  await h.reconcile(ROUTES, "chat-split");
  t.like(h.native.routeStore.get(id), {
    enabled: true,
    targets: [
      { model: "llama-3-8b", weight: 80 },
      { model: "gpt-4o-mini", weight: 20 },
    ],
  });
  t.true(h.eventReasons("chat-split").includes("DriftReverted"));
});

test("a Route deleted through the REST API is recreated and the new id is shown", async (t) => {
  const h = new ReconcileHarness();
  h.apply(ROUTES, "chat-split", ROUTE_SPEC);
  await h.reconcile(ROUTES, "chat-split");
  const first = String(h.status(ROUTES, "chat-split").routeId);
  await h.native.routes.delete(first);
  await h.reconcile(ROUTES, "chat-split");
  const second = String(h.status(ROUTES, "chat-split").routeId);
  t.not(second, first);
  t.true(h.native.routeStore.has(second));
  t.true(h.eventReasons("chat-split").includes("Recreated"));
});

test("a Route the API rejects with 422 shows the validation detail and is fixed by editing the CR", async (t) => {
  const h = new ReconcileHarness();
  h.apply(ROUTES, "zero", { ...ROUTE_SPEC, targets: [{ model: "a", weight: 0 }] });
  await h.reconcile(ROUTES, "zero");
  t.like(h.status(ROUTES, "zero"), { synced: false });
  t.is(h.condition(ROUTES, "zero", "Synced")?.reason, "ValidationFailed");
  t.regex(
    h.condition(ROUTES, "zero", "Synced")?.message ?? "",
    /body\.targets: weights sum to zero/,
  );
  h.apply(ROUTES, "zero", ROUTE_SPEC);
  await h.reconcile(ROUTES, "zero");
  t.like(h.status(ROUTES, "zero"), { synced: true });
  t.is(h.condition(ROUTES, "zero", "Synced")?.observedGeneration, 2);
});

test("a native 409 on a Route is shown as Conflict and retried", async (t) => {
  const h = new ReconcileHarness();
  h.native.failNext("routes.create", new GatewayError("resource_conflict", "route name taken"));
  h.apply(ROUTES, "chat-split", ROUTE_SPEC);
  await t.throwsAsync(h.reconcile(ROUTES, "chat-split"));
  t.is(h.condition(ROUTES, "chat-split", "Synced")?.reason, "Conflict");
  await h.reconcile(ROUTES, "chat-split");
  t.is(h.native.routeStore.size, 1);
});

test("a crash after creating a native Route but before the final status write does not create a second one", async (t) => {
  const h = new ReconcileHarness();
  h.apply(ROUTES, "chat-split", ROUTE_SPEC);
  // The id checkpoint succeeds; the final status write fails.
  const original = h.kube.patchStatus.bind(h.kube);
  let calls = 0;
  h.kube.patchStatus = async (...args) => {
    calls += 1;
    if (calls === 2) throw new GatewayError("service_unavailable", "apiserver went away");
    return original(...args);
  };
  await t.throwsAsync(h.reconcile(ROUTES, "chat-split"));
  await h.reconcile(ROUTES, "chat-split");
  t.is(h.native.routeStore.size, 1);
  t.like(h.status(ROUTES, "chat-split"), { synced: true });
});

test("deleting a Route CR deletes the native route", async (t) => {
  const h = new ReconcileHarness();
  h.apply(ROUTES, "chat-split", ROUTE_SPEC);
  await h.reconcile(ROUTES, "chat-split");
  h.delete(ROUTES, "chat-split");
  await h.reconcile(ROUTES, "chat-split");
  t.is(h.native.routeStore.size, 0);
  t.is(h.get(ROUTES, "chat-split"), undefined);
});

test("a GuardrailRule CR creates, reverts drift on, and deletes its native rule", async (t) => {
  const h = new ReconcileHarness();
  h.apply(GUARDRAIL_RULES, "cards", RULE_SPEC);
  await h.reconcile(GUARDRAIL_RULES, "cards");
  const id = String(h.status(GUARDRAIL_RULES, "cards").ruleId);
  t.like(h.native.ruleStore.get(id), {
    customer_id: "acme",
    kind: "regex",
    applies_to: "both",
    action: "block",
  });
  await h.native.guardrailRules.patch(id, { action: "flag" });
  await h.reconcile(GUARDRAIL_RULES, "cards");
  t.is(h.native.ruleStore.get(id)?.action, "block");
  h.delete(GUARDRAIL_RULES, "cards");
  await h.reconcile(GUARDRAIL_RULES, "cards");
  t.is(h.native.ruleStore.size, 0);
});

test("a GuardrailRule with a pattern the API rejects shows why", async (t) => {
  const h = new ReconcileHarness();
  h.apply(GUARDRAIL_RULES, "broken", { ...RULE_SPEC, pattern: "([" });
  await h.reconcile(GUARDRAIL_RULES, "broken");
  t.regex(
    h.condition(GUARDRAIL_RULES, "broken", "Synced")?.message ?? "",
    /body\.pattern: not a valid regular expression/,
  );
  t.is(h.native.ruleStore.size, 0);
});

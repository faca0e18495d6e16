import test from "ava";
import { NAMESPACES, ROUTES } from "../kube/resources.js";
import { reconcileObject } from "../runtime/reconciler.js";
import { NS, ReconcileHarness } from "../testing/reconcile-harness.js";
import {
  bindToNamespaceCustomer,
  CUSTOMER_LABEL,
  namespaceLabelBinding,
} from "./customer-binding.js";
import { routeController } from "./route.js";

// Namespaces are objects of the in-memory API server double; the native API is the in-memory double.
const ROUTE_SPEC = {
  customerId: "acme",
  match: { model: "chat" },
  targets: [{ model: "llama-3-8b", weight: 1 }],
};

async function reconcileRoute(h: ReconcileHarness): Promise<void> {
  const controller = bindToNamespaceCustomer(
    routeController(h.native),
    namespaceLabelBinding(h.kube),
  );
  await reconcileObject(
    controller,
    { kube: h.kube, clock: h.clock, logger: h.logger, events: h.events },
    NS,
    "chat",
  );
}

function labelNamespace(h: ReconcileHarness, customer: string | undefined): void {
  const labels: Record<string, string> =
    customer === undefined ? {} : { [CUSTOMER_LABEL]: customer };
  try {
    h.store.update(NAMESPACES, "", NS, (n) => ({ ...n, metadata: { ...n.metadata, labels } }));
  } catch {
    h.store.create(NAMESPACES, "", { metadata: { name: NS, labels } });
  }
}

test("a Route in a namespace without the customer label is refused and nothing reaches the native API", async (t) => {
  const h = new ReconcileHarness();
  labelNamespace(h, undefined);
  h.apply(ROUTES, "chat", ROUTE_SPEC);
  await reconcileRoute(h);
  t.is(h.condition(ROUTES, "chat", "Ready")?.reason, "NamespaceNotBound");
  t.is(h.condition(ROUTES, "chat", "Stalled")?.status, "True");
  t.deepEqual(h.native.writes, []);
});

test("a Route for another customer than its namespace's is refused; the bound customer's is created", async (t) => {
  const h = new ReconcileHarness();
  labelNamespace(h, "globex");
  h.apply(ROUTES, "chat", ROUTE_SPEC);
  await reconcileRoute(h);
  t.is(h.condition(ROUTES, "chat", "Ready")?.reason, "CustomerMismatch");
  t.deepEqual(h.native.writes, []);
  labelNamespace(h, "acme");
  await reconcileRoute(h);
  t.is(h.condition(ROUTES, "chat", "Ready")?.status, "True");
  t.deepEqual(h.native.writes, ["POST routes"]);
});

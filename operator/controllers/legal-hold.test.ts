import test from "ava";
import { LEGAL_HOLDS } from "../kube/resources.js";
import { ReconcileHarness } from "../testing/reconcile-harness.js";

const HOLD_SPEC = {
  customerId: "acme",
  from: "2026-01-01T00:00:00Z",
  to: "2026-06-30T23:59:59Z",
  reason: "litigation 2026-17",
};

test("a LegalHold CR places a hold and shows holdId and active", async (t) => {
  const h = new ReconcileHarness();
  h.apply(LEGAL_HOLDS, "case-17", HOLD_SPEC);
  await h.reconcile(LEGAL_HOLDS, "case-17");
  const [hold] = [...h.native.holdStore.values()];
  t.like(hold, { customer_id: "acme", reason: "litigation 2026-17", active: true });
  t.like(h.status(LEGAL_HOLDS, "case-17"), { holdId: hold?.id, active: true });
  await h.reconcile(LEGAL_HOLDS, "case-17");
  t.is(h.native.holdStore.size, 1);
});

test("changing a LegalHold's range places the new hold before releasing the old one", async (t) => {
  const h = new ReconcileHarness();
  h.apply(LEGAL_HOLDS, "case-17", HOLD_SPEC);
  await h.reconcile(LEGAL_HOLDS, "case-17");
  const first = String(h.status(LEGAL_HOLDS, "case-17").holdId);
  h.apply(LEGAL_HOLDS, "case-17", { ...HOLD_SPEC, to: "2026-12-31T23:59:59Z" });
  await h.reconcile(LEGAL_HOLDS, "case-17");
  const second = String(h.status(LEGAL_HOLDS, "case-17").holdId);
  t.not(second, first);
  t.is(h.native.holdStore.get(first)?.active, false);
  t.is(h.native.holdStore.get(second)?.to, "2026-12-31T23:59:59Z");
  t.deepEqual(h.native.writes.slice(-2), ["POST legal-hold", "DELETE legal-hold"]);
});

test("a hold released through the REST API is placed again", async (t) => {
  const h = new ReconcileHarness();
  h.apply(LEGAL_HOLDS, "case-17", HOLD_SPEC);
  await h.reconcile(LEGAL_HOLDS, "case-17");
  await h.native.legalHolds.delete(String(h.status(LEGAL_HOLDS, "case-17").holdId));
  await h.reconcile(LEGAL_HOLDS, "case-17");
  const active = [...h.native.holdStore.values()].filter((x) => x.active);
  t.is(active.length, 1);
  t.is(h.status(LEGAL_HOLDS, "case-17").holdId, active[0]?.id);
  t.true(h.eventReasons("case-17").includes("DriftReverted"));
});

test("an inverted range is rejected by the API and shown on the CR", async (t) => {
  const h = new ReconcileHarness();
  h.apply(LEGAL_HOLDS, "bad", { ...HOLD_SPEC, from: "2027-01-01T00:00:00Z" });
  await h.reconcile(LEGAL_HOLDS, "bad");
  t.is(h.condition(LEGAL_HOLDS, "bad", "Synced")?.reason, "ValidationFailed");
  t.is(h.native.holdStore.size, 0);
});

test("deleting a LegalHold CR keeps the hold by default (deletionPolicy Retain): a prune cannot release it", async (t) => {
  const h = new ReconcileHarness();
  h.apply(LEGAL_HOLDS, "case-17", HOLD_SPEC);
  await h.reconcile(LEGAL_HOLDS, "case-17");
  h.delete(LEGAL_HOLDS, "case-17");
  await h.reconcile(LEGAL_HOLDS, "case-17");
  t.true([...h.native.holdStore.values()][0]?.active);
  t.is(h.get(LEGAL_HOLDS, "case-17"), undefined);
});

test("deleting a LegalHold CR with deletionPolicy Delete releases the hold", async (t) => {
  const h = new ReconcileHarness();
  h.apply(LEGAL_HOLDS, "case-17", { ...HOLD_SPEC, deletionPolicy: "Delete" });
  await h.reconcile(LEGAL_HOLDS, "case-17");
  h.delete(LEGAL_HOLDS, "case-17");
  await h.reconcile(LEGAL_HOLDS, "case-17");
  t.false([...h.native.holdStore.values()][0]?.active);
  t.is(h.get(LEGAL_HOLDS, "case-17"), undefined);
});

test("a hold whose dates the API echoes in another time zone is not replaced", async (t) => {
  const h = new ReconcileHarness();
  h.apply(LEGAL_HOLDS, "case-17", { ...HOLD_SPEC, from: "2026-01-01T01:00:00+01:00" });
  await h.reconcile(LEGAL_HOLDS, "case-17");
  const [hold] = [...h.native.holdStore.values()];
  if (hold) hold.from = "2026-01-01T00:00:00.000Z";
  await h.reconcile(LEGAL_HOLDS, "case-17");
  t.is(h.native.holdStore.size, 1);
  t.is(h.status(LEGAL_HOLDS, "case-17").holdId, hold?.id);
});

test("moving a LegalHold to another customer places the new hold and releases the old one", async (t) => {
  const h = new ReconcileHarness();
  h.apply(LEGAL_HOLDS, "case-17", HOLD_SPEC);
  await h.reconcile(LEGAL_HOLDS, "case-17");
  const first = String(h.status(LEGAL_HOLDS, "case-17").holdId);
  h.apply(LEGAL_HOLDS, "case-17", { ...HOLD_SPEC, customerId: "globex" });
  await h.reconcile(LEGAL_HOLDS, "case-17");
  const second = String(h.status(LEGAL_HOLDS, "case-17").holdId);
  t.is(h.native.holdStore.get(second)?.customer_id, "globex");
  t.false(h.native.holdStore.get(first)?.active);
});

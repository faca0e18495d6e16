import { legalHoldSpec, type LegalHoldSpec } from "../crd/specs.js";
import { LEGAL_HOLDS } from "../kube/resources.js";
import type { LegalHoldBody, NativeApi, NativeLegalHold } from "../native/native-api.js";
import { legalHoldBody } from "../native/native-request-bodies.js";
import type { Controller, SyncContext, SyncResult } from "../runtime/controller.js";
import { readyConditions } from "../runtime/controller.js";
import { driftedFields } from "../runtime/json-compare.js";
import { nativeFailure } from "../runtime/sync-failure.js";
import { deletionPolicyOf } from "./deletion-policy.js";

/**
 * LegalHold CR -> /api/v1/audit/legal-hold. Holds cannot be edited, so a spec change (or a hold
 * released outside Kubernetes) places a new hold first and only then releases the old one: audit
 * records are never left uncovered. Deleting the CR releases the hold only with deletionPolicy Delete.
 */
export function legalHoldController(native: NativeApi): Controller<LegalHoldSpec> {
  return {
    resource: LEGAL_HOLDS,
    schema: legalHoldSpec,
    async sync(context: SyncContext<LegalHoldSpec>): Promise<SyncResult> {
      const body = legalHoldBody(context.spec);
      const knownId = typeof context.status.holdId === "string" ? context.status.holdId : undefined;
      try {
        const holds = await native.legalHolds.list(body.customer_id);
        const current = holds.find((h) => h.id === knownId);
        const specChanged = current !== undefined && holdDiffers(body, current);
        if (current && current.active && !specChanged) {
          return {
            status: { holdId: current.id, active: true },
            conditions: readyConditions(true, "Active", `hold ${current.id} is active`),
          };
        }
        const created = await native.legalHolds.create(body);
        await context.checkpoint({ holdId: created.id, active: created.active });
        if (current?.active) await native.legalHolds.delete(current.id);
        // A hold of another customer (customerId edited) is not in this list: release it by id.
        else if (knownId !== undefined && current === undefined)
          await native.legalHolds.delete(knownId);
        const events: SyncResult["events"] = [];
        if (knownId === undefined)
          events.push({ type: "Normal", reason: "Placed", message: `placed hold ${created.id}` });
        else if (specChanged)
          events.push({
            type: "Normal",
            reason: "Replaced",
            message: `replaced hold ${knownId} with ${created.id}`,
          });
        else
          events.push({
            type: "Warning",
            reason: "DriftReverted",
            message: `hold ${knownId} was released outside Kubernetes; placed ${created.id}`,
          });
        return {
          status: { holdId: created.id, active: created.active },
          conditions: readyConditions(true, "Active", `hold ${created.id} is active`),
          events,
        };
      } catch (err) {
        return nativeFailure(err, {});
      }
    },
    async cleanup({ object, status }): Promise<void> {
      // Retain (the default): a pruned or deleted CR never releases a hold by accident.
      if (typeof status.holdId === "string" && deletionPolicyOf(object, "Retain") === "Delete")
        await native.legalHolds.delete(status.holdId);
    },
  };
}

/** Dates compare as instants: "2026-01-01T01:00:00+01:00" and "2026-01-01T00:00:00Z" are the same hold. */
function holdDiffers(body: LegalHoldBody, hold: NativeLegalHold): boolean {
  const sameInstant = (a: string, b: string | undefined): boolean =>
    b === undefined || Date.parse(a) === Date.parse(b);
  if (!sameInstant(body.from, hold.from) || !sameInstant(body.to, hold.to)) return true;
  const { from: _from, to: _to, ...rest } = body;
  return driftedFields(rest, hold).length > 0;
}

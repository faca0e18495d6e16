import { GatewayError } from "../../dataplane/core/errors.js";
import type { DeploymentSpec } from "../crd/specs.js";
import type { NativeApi, NativeDeployment, Scaling } from "../native/native-api.js";
import { findCondition, type ConditionInput } from "../runtime/conditions.js";
import type { SyncContext } from "../runtime/controller.js";

/** Deadlines, failure conditions and native PATCH helpers of the Deployment controller. */

/** PATCH failed; a 409 (e.g. a running deployment the API will not fail) leaves it as it is. */
export async function patchFailed(
  native: NativeApi,
  id: string,
  reason: string,
  message: string,
): Promise<boolean> {
  try {
    await native.deployments.patch(id, { status: "failed", reason: `${reason}: ${message}` });
    return true;
  } catch (err) {
    if (err instanceof GatewayError && err.status === 409) return false;
    throw err;
  }
}

export function failedConditions(
  reason: string,
  message: string,
  synced: boolean,
): ConditionInput[] {
  return [
    { type: "Synced", status: synced ? "True" : "False", reason, message },
    { type: "Ready", status: "False", reason, message },
    { type: "Provisioning", status: "False", reason, message },
  ];
}

function provisioningSince(context: SyncContext<DeploymentSpec>): number {
  const condition = findCondition(context.status.conditions, "Provisioning");
  if (condition?.status === "True") {
    const since = Date.parse(condition.lastTransitionTime);
    if (Number.isFinite(since)) return since;
  }
  return context.clock.now();
}

export function remainingMs(context: SyncContext<DeploymentSpec>): number {
  const deadline = provisioningSince(context) + context.spec.provisioningTimeoutSeconds * 1000;
  return Math.max(1000, deadline - context.clock.now() + 1);
}

export function timedOut(context: SyncContext<DeploymentSpec>): boolean {
  return (
    context.clock.now() - provisioningSince(context) >
    context.spec.provisioningTimeoutSeconds * 1000
  );
}

export function pickScaling(scaling: NativeDeployment["scaling"]): Partial<Scaling> | undefined {
  if (!scaling) return undefined;
  const { min_replicas, max_replicas, target_concurrency } = scaling;
  return { min_replicas, max_replicas, target_concurrency };
}

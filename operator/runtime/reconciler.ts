import type { Logger } from "pino";
import { GatewayError } from "../../dataplane/core/errors.js";
import { describeSpecError } from "../crd/specs.js";
import type { KubeClient } from "../kube/kube-client.js";
import { FINALIZER } from "../kube/resources.js";
import { isRecord, type KubeObject, type ResourceType } from "../kube/types.js";
import type { Clock } from "./clock.js";
import { findCondition, setConditions, type Condition, type ConditionInput } from "./conditions.js";
import type { Controller, Status, SyncResult } from "./controller.js";
import type { EventRecorder, OperatorEvent } from "./event-recorder.js";
import { sameJson } from "./json-compare.js";

export interface ReconcilerDeps {
  kube: KubeClient;
  clock: Clock;
  logger: Logger;
  events: EventRecorder;
}

export interface ReconcileOutcome {
  requeueAfterMs?: number;
}

/**
 * One reconcile of one object: fetch it fresh, finalize it if it is being deleted, make sure our
 * finalizer is on it, check its spec, sync, then write status (only when it changed) and record
 * Events for Ready transitions. Throws to make the queue retry with backoff.
 */
export async function reconcileObject<Spec>(
  controller: Controller<Spec>,
  deps: ReconcilerDeps,
  namespace: string,
  name: string,
): Promise<ReconcileOutcome> {
  const { kube, clock } = deps;
  const resource = controller.resource;
  let object = await kube.get(resource, namespace, name);
  if (!object) return {};
  const status = statusOf(object);

  if (object.metadata.deletionTimestamp !== undefined) {
    if (!(object.metadata.finalizers ?? []).includes(FINALIZER)) return {};
    try {
      await controller.cleanup({ object, namespace, name, status });
    } catch (err) {
      const message = err instanceof GatewayError ? err.message : "cleanup failed";
      await writeStatus(deps, resource, object, {
        status: {},
        conditions: [{ type: "Ready", status: "False", reason: "CleanupFailed", message }],
      });
      throw err;
    }
    await kube.patch(resource, namespace, name, {
      metadata: {
        resourceVersion: object.metadata.resourceVersion,
        finalizers: (object.metadata.finalizers ?? []).filter((f) => f !== FINALIZER),
      },
    });
    await deps.events.record(object, {
      type: "Normal",
      reason: "CleanedUp",
      message: "removed what this resource created",
    });
    return {};
  }

  if (!(object.metadata.finalizers ?? []).includes(FINALIZER)) {
    object = await kube.patch(resource, namespace, name, {
      metadata: {
        resourceVersion: object.metadata.resourceVersion,
        finalizers: [...(object.metadata.finalizers ?? []), FINALIZER],
      },
    });
  }

  const parsed = controller.schema.safeParse(object.spec ?? {});
  if (!parsed.success) {
    const message = describeSpecError(parsed.error);
    await writeStatus(deps, resource, object, {
      status: {},
      conditions: [
        { type: "Synced", status: "False", reason: "InvalidSpec", message },
        { type: "Ready", status: "False", reason: "InvalidSpec", message },
      ],
    });
    return {};
  }

  let current = object;
  const checkpoint = async (fields: Status): Promise<void> => {
    current = await kube.patchStatus(resource, namespace, name, { status: fields });
  };
  let result: SyncResult;
  try {
    result = await controller.sync({
      object,
      spec: parsed.data,
      namespace,
      name,
      status,
      clock,
      checkpoint,
    });
  } catch (err) {
    const message = err instanceof GatewayError ? err.message : "unexpected error";
    await writeStatus(deps, resource, current, {
      status: {},
      conditions: [{ type: "Synced", status: "False", reason: "SyncFailed", message }],
    });
    throw err;
  }
  await writeStatus(deps, resource, current, result);
  if (result.retry !== undefined) throw result.retry;
  return result.requeueAfterMs === undefined ? {} : { requeueAfterMs: result.requeueAfterMs };
}

/** Merges the result into the status, sets observedGeneration, patches only on change, records events. */
async function writeStatus(
  deps: ReconcilerDeps,
  resource: ResourceType,
  object: KubeObject,
  result: SyncResult,
): Promise<void> {
  const previous = statusOf(object);
  const generation = object.metadata.generation;
  const now = new Date(deps.clock.now());
  const merged = setConditions(conditionsOf(previous), result.conditions, generation, now);
  const conditions = setConditions(merged, kstatusConditions(merged), generation, now);
  const next: Status = { ...previous, ...result.status, conditions };
  if (generation !== undefined) next.observedGeneration = generation;
  for (const [key, value] of Object.entries(next))
    if (value === null || value === undefined) delete next[key];
  const events = [...transitionEvents(previous, next), ...(result.events ?? [])];
  if (!sameJson(previous, next)) {
    const patch: Status = { ...next };
    for (const key of Object.keys(previous)) if (!(key in next)) patch[key] = null;
    const { namespace = "default", name } = object.metadata;
    await deps.kube.patchStatus(resource, namespace, name, { status: patch });
  }
  for (const event of events) await deps.events.record(object, event);
}

function transitionEvents(previous: Status, next: Status): OperatorEvent[] {
  const before = findCondition(previous.conditions, "Ready");
  const after = findCondition(next.conditions, "Ready");
  if (!after || (before && before.status === after.status && before.reason === after.reason))
    return [];
  return [
    {
      type: after.status === "True" || !isFailureReason(after.reason) ? "Normal" : "Warning",
      reason: after.reason,
      message: after.message,
    },
  ];
}

const NORMAL_PENDING_REASONS = new Set([
  "Provisioning",
  "Pending",
  "ModelNotReady",
  "Creating",
  "ErrImagePull",
  "ImagePullBackOff",
  "Unavailable",
  "SyncFailed",
  "Conflict",
]);

/**
 * kstatus conditions (what Argo CD and Flux health checks read): Reconciling while the operator
 * is still working towards Ready (provisioning, waiting for the model, retrying a transient
 * error), Stalled when it cannot get there without a change (an invalid spec, a refusal, a
 * failed deployment). Derived from Ready and Synced.
 */
function kstatusConditions(conditions: readonly Condition[]): ConditionInput[] {
  const ready = conditions.find((c) => c.type === "Ready");
  const synced = conditions.find((c) => c.type === "Synced");
  const blocking = [ready, synced].find(
    (c) => c !== undefined && c.status === "False" && isFailureReason(c.reason),
  );
  if (ready?.status === "True" && synced?.status !== "False")
    return [
      { type: "Reconciling", status: "False", reason: ready.reason, message: ready.message },
      { type: "Stalled", status: "False", reason: ready.reason, message: ready.message },
    ];
  if (blocking)
    return [
      { type: "Reconciling", status: "False", reason: blocking.reason, message: blocking.message },
      { type: "Stalled", status: "True", reason: blocking.reason, message: blocking.message },
    ];
  const progress = ready ?? synced;
  if (!progress) return [];
  return [
    { type: "Reconciling", status: "True", reason: progress.reason, message: progress.message },
    { type: "Stalled", status: "False", reason: progress.reason, message: progress.message },
  ];
}

function isFailureReason(reason: string): boolean {
  return !NORMAL_PENDING_REASONS.has(reason);
}

export function statusOf(object: KubeObject): Status {
  return isRecord(object.status) ? { ...object.status } : {};
}

function conditionsOf(status: Status): Condition[] {
  return Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
}

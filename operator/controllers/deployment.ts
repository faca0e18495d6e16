import { GatewayError } from "../../dataplane/core/errors.js";
import { deploymentSpec, modelSpec, type DeploymentSpec, type ModelSpec } from "../crd/specs.js";
import type { KubeClient } from "../kube/kube-client.js";
import {
  APPS_DEPLOYMENTS,
  DEPLOYMENTS,
  HORIZONTAL_POD_AUTOSCALERS,
  MODELS,
  SERVICES,
} from "../kube/resources.js";
import { isRecord } from "../kube/types.js";
import type { NativeApi, NativeDeployment, Scaling } from "../native/native-client.js";
import { findCondition, type ConditionInput } from "../runtime/conditions.js";
import type { Controller, SyncContext, SyncResult } from "../runtime/controller.js";
import { sameJson } from "../runtime/json-compare.js";
import { nativeFailure } from "../runtime/sync-failure.js";
import { DEFAULT_ENDPOINT_TEMPLATE, endpointUrl, workloadName } from "./deployment-workload.js";
import { ensureWorkload } from "./ensure-workload.js";
import { workloadHealth, type WorkloadHealth } from "./workload-health.js";

const MODEL_WAIT_MS = 30_000;

/**
 * Deployment CR -> an engine workload (apps/v1 Deployment + Service) and a native deployment moved
 * pending -> provisioning -> running (with the Service's endpoint_url) or -> failed (crash loop,
 * image pull error, rollout deadline, provisioningTimeoutSeconds). A failed deployment stays failed
 * until its spec changes; then a new native deployment is created. Deleting the CR DELETEs the
 * native deployment (terminated, out of routing) and the workload.
 */
export function deploymentController(
  native: NativeApi,
  kube: KubeClient,
  endpointTemplate = DEFAULT_ENDPOINT_TEMPLATE,
  concurrencyMetric?: string,
): Controller<DeploymentSpec> {
  return {
    resource: DEPLOYMENTS,
    schema: deploymentSpec,
    async sync(context) {
      const model = await readyModel(kube, context.namespace, context.spec.modelRef);
      if (!model) {
        const message = `waiting for Model ${context.spec.modelRef} to be registered`;
        return {
          status: {
            phase:
              typeof context.status.deploymentId === "string" ? context.status.phase : "pending",
          },
          conditions: [
            { type: "Synced", status: "False", reason: "ModelNotReady", message },
            { type: "Ready", status: "False", reason: "ModelNotReady", message },
          ],
          requeueAfterMs: MODEL_WAIT_MS,
        };
      }
      if (model.spec.engine === "generic" && model.spec.image === undefined) {
        const message = `Model ${context.spec.modelRef} uses the generic engine and has no spec.image`;
        return {
          status: { phase: "pending" },
          conditions: failedConditions("ImageRequired", message, false),
        };
      }
      const workload = await ensureWorkload(
        kube,
        {
          crName: context.name,
          namespace: context.namespace,
          uid: context.object.metadata.uid ?? "",
          spec: context.spec,
          model: model.spec,
        },
        concurrencyMetric,
      );
      if (!workload.ok) {
        return {
          status: {},
          conditions: failedConditions("NameConflict", workload.message, false),
        };
      }
      try {
        return await syncNative(
          native,
          context,
          endpointTemplate,
          model.id,
          workloadHealth(workload.appsDeployment, workload.pods),
        );
      } catch (err) {
        return nativeFailure(err, {});
      }
    },
    async cleanup({ namespace, name, status }) {
      if (typeof status.deploymentId === "string")
        await native.deployments.delete(status.deploymentId);
      await kube.delete(HORIZONTAL_POD_AUTOSCALERS, namespace, workloadName(name));
      await kube.delete(APPS_DEPLOYMENTS, namespace, workloadName(name));
      await kube.delete(SERVICES, namespace, workloadName(name));
    },
  };
}

async function readyModel(
  kube: KubeClient,
  namespace: string,
  name: string,
): Promise<{ id: string; spec: ModelSpec } | undefined> {
  const object = await kube.get(MODELS, namespace, name);
  if (!object || object.metadata.deletionTimestamp !== undefined) return undefined;
  const id = isRecord(object.status) ? object.status.modelId : undefined;
  const spec = modelSpec.safeParse(object.spec);
  return typeof id === "string" && spec.success ? { id, spec: spec.data } : undefined;
}

export function desiredScaling(spec: DeploymentSpec): Scaling {
  const min = spec.scaling?.minReplicas ?? 1;
  return {
    min_replicas: min,
    max_replicas: Math.max(min, spec.scaling?.maxReplicas ?? min),
    ...(spec.scaling?.targetConcurrency === undefined
      ? {}
      : { target_concurrency: spec.scaling.targetConcurrency }),
  };
}

async function syncNative(
  native: NativeApi,
  context: SyncContext<DeploymentSpec>,
  endpointTemplate: string,
  modelId: string,
  health: WorkloadHealth,
): Promise<SyncResult> {
  const { spec, status, object } = context;
  const scaling = desiredScaling(spec);
  const specChanged = status.observedGeneration !== object.metadata.generation;
  const events: SyncResult["events"] = [];
  let id = typeof status.deploymentId === "string" ? status.deploymentId : undefined;
  let current: NativeDeployment | undefined =
    id === undefined ? undefined : await native.deployments.get(id);

  if (status.phase === "failed" && current?.status === "failed" && !specChanged) {
    return { status: { phase: "failed" }, conditions: [] };
  }
  if (current && (current.status === "terminated" || current.status === "failed")) {
    // Failed earlier and the spec changed (a retry), or failed/terminated outside Kubernetes (drift).
    if (current.status === "failed") await native.deployments.delete(current.id);
    events.push({
      type: "Normal",
      reason: "Recreating",
      message: `native deployment ${current.id} was ${current.status}; creating a new one`,
    });
    current = undefined;
  }
  if (!current) {
    current = await native.deployments.create({ model_id: modelId, scaling });
    id = current.id;
    await context.checkpoint({
      deploymentId: id,
      phase: current.status,
      endpointUrl: null,
      reason: null,
    });
  }
  if (current.status === "pending") {
    current = await native.deployments.patch(current.id, { status: "provisioning" });
  }
  if (!sameJson(pickScaling(current.scaling), scaling)) {
    current = await native.deployments.patch(current.id, { scaling });
  }

  const endpoint = endpointUrl(context.name, context.namespace, spec.port, endpointTemplate);
  if (health.state === "failed" || (current.status === "provisioning" && timedOut(context))) {
    const reason = health.state === "failed" ? health.reason : "ProvisioningTimeout";
    const message =
      health.state === "failed"
        ? health.message
        : `not available within provisioningTimeoutSeconds=${spec.provisioningTimeoutSeconds}`;
    const moved = await patchFailed(native, current.id, reason, message);
    if (moved)
      return {
        status: { deploymentId: current.id, phase: "failed", reason: message, endpointUrl: null },
        conditions: failedConditions(reason, message, true),
        events,
      };
    return {
      status: { deploymentId: current.id, phase: current.status, reason: message },
      conditions: [
        { type: "Ready", status: "False", reason, message },
        { type: "Synced", status: "True", reason: "Degraded", message },
      ],
      events,
    };
  }
  if (health.state === "available") {
    if (current.status !== "running" || current.endpoint_url !== endpoint) {
      const patch =
        current.status === "running"
          ? { endpoint_url: endpoint }
          : { status: "running" as const, endpoint_url: endpoint };
      current = await native.deployments.patch(current.id, patch);
    }
    return {
      status: { deploymentId: current.id, phase: "running", endpointUrl: endpoint, reason: null },
      conditions: [
        { type: "Synced", status: "True", reason: "Running", message: `routable at ${endpoint}` },
        { type: "Ready", status: "True", reason: "Running", message: `routable at ${endpoint}` },
        {
          type: "Provisioning",
          status: "False",
          reason: "Available",
          message: "workload available",
        },
      ],
      events,
    };
  }
  if (current.status === "running") {
    // A rollout in progress on a running deployment: the Service still serves the old pods.
    return {
      status: { deploymentId: current.id, phase: "running", endpointUrl: endpoint },
      conditions: [],
      events,
    };
  }
  const message = `waiting for ${workloadName(context.name)} to become available`;
  return {
    status: { deploymentId: current.id, phase: "provisioning", reason: null },
    conditions: [
      { type: "Synced", status: "True", reason: "Provisioning", message },
      { type: "Ready", status: "False", reason: "Provisioning", message },
      { type: "Provisioning", status: "True", reason: "Provisioning", message },
    ],
    events,
    requeueAfterMs: remainingMs(context),
  };
}

/** PATCH failed; a 409 (e.g. a running deployment the API will not fail) leaves it as it is. */
async function patchFailed(
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

function failedConditions(reason: string, message: string, synced: boolean): ConditionInput[] {
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

function remainingMs(context: SyncContext<DeploymentSpec>): number {
  const deadline = provisioningSince(context) + context.spec.provisioningTimeoutSeconds * 1000;
  return Math.max(1000, deadline - context.clock.now() + 1);
}

function timedOut(context: SyncContext<DeploymentSpec>): boolean {
  return (
    context.clock.now() - provisioningSince(context) >
    context.spec.provisioningTimeoutSeconds * 1000
  );
}

function pickScaling(scaling: NativeDeployment["scaling"]): Partial<Scaling> | undefined {
  if (!scaling) return undefined;
  const { min_replicas, max_replicas, target_concurrency } = scaling;
  return { min_replicas, max_replicas, target_concurrency };
}

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
import type { NativeApi, NativeDeployment, Scaling } from "../native/native-api.js";
import type { Controller, SyncContext, SyncResult } from "../runtime/controller.js";
import { sameJson } from "../runtime/json-compare.js";
import { nativeFailure } from "../runtime/sync-failure.js";
import { DEFAULT_ENDPOINT_TEMPLATE, endpointUrl, workloadName } from "./deployment-workload.js";
import { ensureWorkload } from "./ensure-workload.js";
import { workloadHealth, type WorkloadHealth } from "./workload-health.js";
import {
  failedConditions,
  patchFailed,
  pickScaling,
  remainingMs,
  timedOut,
} from "./deployment-progress.js";

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
  const generation = object.metadata.generation;
  const scaling = desiredScaling(spec);
  const events: SyncResult["events"] = [];
  let id = typeof status.deploymentId === "string" ? status.deploymentId : undefined;
  let current: NativeDeployment | undefined =
    id === undefined ? undefined : await native.deployments.get(id);

  // Failed stays failed until the spec (a new generation) or the model's registration changes.
  if (
    status.phase === "failed" &&
    current?.status === "failed" &&
    status.failedGeneration === generation &&
    (current.model_id === undefined || current.model_id === modelId)
  ) {
    return { status: { phase: "failed" }, conditions: [] };
  }
  if (current && (current.status === "terminated" || current.status === "failed")) {
    // Failed earlier and the spec changed (a retry), out of routing while no replica was ready,
    // or failed/terminated outside Kubernetes (drift).
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
      failedGeneration: null,
    });
  }
  if (current.status === "pending") {
    current = await native.deployments.patch(current.id, { status: "provisioning" });
  }
  if (!sameJson(pickScaling(current.scaling), scaling)) {
    current = await native.deployments.patch(current.id, { scaling });
  }

  const endpoint = endpointUrl(context.name, context.namespace, spec.port, endpointTemplate);
  if (health.state === "available") {
    if (current.status !== "running" || current.endpoint_url !== endpoint) {
      const patch =
        current.status === "running"
          ? { endpoint_url: endpoint }
          : { status: "running" as const, endpoint_url: endpoint };
      current = await native.deployments.patch(current.id, patch);
    }
    const message = `routable at ${endpoint}`;
    return {
      status: { deploymentId: current.id, phase: "running", endpointUrl: endpoint, reason: null },
      conditions: [
        { type: "Synced", status: "True", reason: "Running", message },
        { type: "Ready", status: "True", reason: "Running", message },
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
  if (current.status === "running") return leaveRouting(native, current, health, events);

  const failure =
    health.state === "failed"
      ? { reason: health.reason, message: health.message }
      : timedOut(context)
        ? {
            reason: "ProvisioningTimeout",
            message: `not available within provisioningTimeoutSeconds=${spec.provisioningTimeoutSeconds}${health.waiting ? ` (last: ${health.waiting.message})` : ""}`,
          }
        : undefined;
  if (failure) {
    const moved = await patchFailed(native, current.id, failure.reason, failure.message);
    if (moved)
      return {
        status: {
          deploymentId: current.id,
          phase: "failed",
          reason: failure.message,
          endpointUrl: null,
          failedGeneration: generation ?? null,
        },
        conditions: failedConditions(failure.reason, failure.message, true),
        events,
      };
  }
  const waiting = health.state === "progressing" ? health.waiting : undefined;
  const reason = waiting?.reason ?? "Provisioning";
  const message = waiting
    ? `${waiting.message}; the kubelet retries until provisioningTimeoutSeconds`
    : `waiting for ${workloadName(context.name)} to become available`;
  return {
    status: { deploymentId: current.id, phase: "provisioning", reason: waiting ? message : null },
    conditions: [
      { type: "Synced", status: "True", reason: "Provisioning", message },
      { type: "Ready", status: "False", reason, message },
      { type: "Provisioning", status: "True", reason: "Provisioning", message },
    ],
    events,
    requeueAfterMs: remainingMs(context),
  };
}

/**
 * A running deployment with no ready replica left (crashed, evicted, every pod failing) cannot
 * serve: it leaves routing (the native deployment is terminated) and a new one is provisioned,
 * which becomes running, and routable again, when a replica is ready.
 */
async function leaveRouting(
  native: NativeApi,
  current: NativeDeployment,
  health: Exclude<WorkloadHealth, { state: "available" }>,
  events: NonNullable<SyncResult["events"]>,
): Promise<SyncResult> {
  const cause =
    health.state === "failed" ? health.message : (health.waiting?.message ?? "no ready replica");
  const message = `no replica is ready (${cause}); out of routing until one is`;
  await native.deployments.delete(current.id);
  events.push({ type: "Warning", reason: "OutOfRouting", message });
  return {
    status: { deploymentId: current.id, phase: "provisioning", endpointUrl: null, reason: message },
    conditions: [
      { type: "Synced", status: "True", reason: "Unavailable", message },
      { type: "Ready", status: "False", reason: "Unavailable", message },
      { type: "Provisioning", status: "True", reason: "Unavailable", message },
    ],
    events,
    requeueAfterMs: 1000,
  };
}

import { createHash } from "node:crypto";
import type { KubeClient } from "../kube/kube-client.js";
import {
  APPS_DEPLOYMENTS,
  DEPLOYMENT_LABEL,
  FIELD_MANAGER,
  HORIZONTAL_POD_AUTOSCALERS,
  PODS,
  SERVICES,
} from "../kube/resources.js";
import { isRecord, type KubeObject, type ResourceType } from "../kube/types.js";
import { containsJson } from "../runtime/json-compare.js";
import {
  autoscaled,
  buildAppsDeployment,
  buildHpa,
  buildService,
  TEMPLATE_HASH,
  workloadName,
  type WorkloadInput,
} from "./deployment-workload.js";

export type EnsuredWorkload =
  { ok: true; appsDeployment: KubeObject; pods: KubeObject[] } | { ok: false; message: string };

/** Annotation with the hash of the configuration last applied: a change we make is always applied. */
export const APPLIED_HASH = "evident.dev/applied-hash";

/**
 * Server-side applies the engine's Service, apps/v1 Deployment and (with autoscaling) its
 * HorizontalPodAutoscaler as field manager "evident-operator": fields the operator stops setting
 * (a stale nodeSelector, replicas once an HPA owns them) go away, and GitOps tools see one clean
 * owner. Nothing is written when the stored object already holds what we would apply (same applied
 * hash, every field equal, quantities compared by value). An object of the same name that another
 * CR (by UID) or someone else owns is never touched.
 */
export async function ensureWorkload(
  kube: KubeClient,
  input: WorkloadInput,
  metricName?: string,
): Promise<EnsuredWorkload> {
  const service = await ensure(kube, SERVICES, input, buildService(input));
  if (typeof service === "string") return { ok: false, message: service };
  const appsDeployment = await ensure(kube, APPS_DEPLOYMENTS, input, buildAppsDeployment(input));
  if (typeof appsDeployment === "string") return { ok: false, message: appsDeployment };
  const hpa = autoscaled(input.spec)
    ? await ensure(kube, HORIZONTAL_POD_AUTOSCALERS, input, buildHpa(input, metricName))
    : await removeOwned(kube, HORIZONTAL_POD_AUTOSCALERS, input);
  if (typeof hpa === "string") return { ok: false, message: hpa };
  const pods = await kube.list(PODS, input.namespace, `${DEPLOYMENT_LABEL}=${input.crName}`);
  const hash = templateAnnotation(appsDeployment);
  const current = pods.items.filter(
    (pod) => pod.metadata.annotations?.[TEMPLATE_HASH] === hash && !pod.metadata.deletionTimestamp,
  );
  return { ok: true, appsDeployment, pods: current };
}

/** undefined when `object` is ours to manage, else why not. */
function notOurs(object: KubeObject, input: WorkloadInput, kind: string): string | undefined {
  const controller = object.metadata.ownerReferences?.find((r) => r.controller === true);
  if (object.metadata.labels?.[DEPLOYMENT_LABEL] !== input.crName)
    return `${kind} ${object.metadata.name} exists and is not managed by this Deployment`;
  if (controller && controller.uid !== input.uid)
    return `${kind} ${object.metadata.name} belongs to another Deployment ${input.crName} (uid ${controller.uid}); wait for it to be deleted`;
  return undefined;
}

async function ensure(
  kube: KubeClient,
  resource: ResourceType,
  input: WorkloadInput,
  desired: KubeObject,
): Promise<KubeObject | string> {
  const existing = await kube.get(resource, input.namespace, desired.metadata.name);
  const refused = existing && notOurs(existing, input, resource.kind);
  if (refused) return refused;
  const hash = createHash("sha256").update(JSON.stringify(desired)).digest("hex").slice(0, 16);
  const config: KubeObject = {
    ...desired,
    metadata: {
      ...desired.metadata,
      annotations: { ...desired.metadata.annotations, [APPLIED_HASH]: hash },
    },
  };
  if (
    existing &&
    existing.metadata.annotations?.[APPLIED_HASH] === hash &&
    containsJson(existing, {
      metadata: {
        labels: desired.metadata.labels,
        ownerReferences: desired.metadata.ownerReferences,
      },
      spec: desired.spec,
    })
  )
    return existing;
  return kube.apply(resource, input.namespace, config, FIELD_MANAGER);
}

async function removeOwned(
  kube: KubeClient,
  resource: ResourceType,
  input: WorkloadInput,
): Promise<string | undefined> {
  const name = workloadName(input.crName);
  const existing = await kube.get(resource, input.namespace, name);
  if (existing && notOurs(existing, input, resource.kind) === undefined)
    await kube.delete(resource, input.namespace, name);
  return undefined;
}

function templateAnnotation(appsDeployment: KubeObject): string | undefined {
  const spec = isRecord(appsDeployment.spec) ? appsDeployment.spec : {};
  const template = isRecord(spec.template) ? spec.template : {};
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const hash = annotations[TEMPLATE_HASH];
  return typeof hash === "string" ? hash : undefined;
}

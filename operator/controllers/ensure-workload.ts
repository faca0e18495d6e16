import type { KubeClient } from "../kube/kube-client.js";
import { APPS_DEPLOYMENTS, DEPLOYMENT_LABEL, PODS, SERVICES } from "../kube/resources.js";
import { isRecord, type KubeObject, type ResourceType } from "../kube/types.js";
import { containsJson } from "../runtime/json-compare.js";
import {
  buildAppsDeployment,
  buildService,
  TEMPLATE_HASH,
  type WorkloadInput,
} from "./deployment-workload.js";

export type EnsuredWorkload =
  { ok: true; appsDeployment: KubeObject; pods: KubeObject[] } | { ok: false; message: string };

/**
 * Creates or updates the engine's apps/v1 Deployment and Service. Fields we set are merge-patched
 * back when they differ (drift); fields the API server defaults are left alone. An object of the
 * same name that we do not own is never touched.
 */
export async function ensureWorkload(
  kube: KubeClient,
  input: WorkloadInput,
): Promise<EnsuredWorkload> {
  const service = await ensure(kube, SERVICES, input, buildService(input));
  if (typeof service === "string") return { ok: false, message: service };
  const appsDeployment = await ensure(kube, APPS_DEPLOYMENTS, input, buildAppsDeployment(input));
  if (typeof appsDeployment === "string") return { ok: false, message: appsDeployment };
  const pods = await kube.list(PODS, input.namespace, `${DEPLOYMENT_LABEL}=${input.crName}`);
  const hash = templateAnnotation(appsDeployment);
  const current = pods.items.filter(
    (pod) => pod.metadata.annotations?.[TEMPLATE_HASH] === hash && !pod.metadata.deletionTimestamp,
  );
  return { ok: true, appsDeployment, pods: current };
}

async function ensure(
  kube: KubeClient,
  resource: ResourceType,
  input: WorkloadInput,
  desired: KubeObject,
): Promise<KubeObject | string> {
  const name = desired.metadata.name;
  const existing = await kube.get(resource, input.namespace, name);
  if (!existing) return kube.create(resource, input.namespace, desired);
  if (existing.metadata.labels?.[DEPLOYMENT_LABEL] !== input.crName) {
    return `${resource.kind} ${name} exists and is not managed by this Deployment`;
  }
  const wanted = {
    metadata: {
      labels: desired.metadata.labels,
      ownerReferences: desired.metadata.ownerReferences,
    },
    spec: desired.spec,
  };
  if (containsJson(existing, wanted)) return existing;
  return kube.patch(resource, input.namespace, name, wanted);
}

function templateAnnotation(appsDeployment: KubeObject): string | undefined {
  const spec = isRecord(appsDeployment.spec) ? appsDeployment.spec : {};
  const template = isRecord(spec.template) ? spec.template : {};
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const hash = annotations[TEMPLATE_HASH];
  return typeof hash === "string" ? hash : undefined;
}

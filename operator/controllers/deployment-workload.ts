import { createHash } from "node:crypto";
import type { DeploymentSpec, ModelSpec } from "../crd/specs.js";
import { DEPLOYMENT_LABEL, EVIDENT_API_VERSION, MANAGED_BY } from "../kube/resources.js";
import type { KubeObject } from "../kube/types.js";
import { enginePodSpec, type EngineContainer } from "./engine-pod.js";

/** Default images per engine; Model.spec.image overrides them (and is required for "generic"). */
export const ENGINE_IMAGES = {
  vllm: "vllm/vllm-openai:v0.11.0",
  tgi: "ghcr.io/huggingface/text-generation-inference:3.3.6",
  ollama: "ollama/ollama:0.12.6",
} as const;

export interface WorkloadInput {
  crName: string;
  namespace: string;
  uid: string;
  spec: DeploymentSpec;
  model: ModelSpec;
}

/** Name of the apps/v1 Deployment and Service: "<cr>-engine", shortened with a hash to fit 63 chars. */
export function workloadName(crName: string): string {
  const name = `${crName}-engine`;
  if (name.length <= 63) return name;
  const hash = createHash("sha256").update(crName).digest("hex").slice(0, 8);
  return `${crName.slice(0, 46).replace(/-+$/, "")}-${hash}-engine`;
}

export function workloadLabels(crName: string): Record<string, string> {
  return {
    "app.kubernetes.io/name": "evident-engine",
    "app.kubernetes.io/managed-by": MANAGED_BY,
    [DEPLOYMENT_LABEL]: crName,
  };
}

/** Default endpoint_url: the Service's cluster DNS name and the OpenAI-compatible path. */
export const DEFAULT_ENDPOINT_TEMPLATE = "http://{service}.{namespace}.svc:{port}/v1";

/**
 * The endpoint_url the data plane routes to, from a template with {service}, {namespace} and
 * {port} (e.g. "http://{service}.{namespace}.svc.cluster.local:{port}/v1").
 */
export function endpointUrl(
  crName: string,
  namespace: string,
  port: number,
  template = DEFAULT_ENDPOINT_TEMPLATE,
): string {
  return template
    .replaceAll("{service}", workloadName(crName))
    .replaceAll("{namespace}", namespace)
    .replaceAll("{port}", String(port));
}

function ownerReference(input: WorkloadInput): KubeObject["metadata"]["ownerReferences"] {
  return [
    {
      apiVersion: EVIDENT_API_VERSION,
      kind: "Deployment",
      name: input.crName,
      uid: input.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}

/** The model identifier the engine loads: engineArtifacts.modelUri when given, else the model name. */
function modelSource(model: ModelSpec): string {
  const uri = model.engineArtifacts?.modelUri;
  return typeof uri === "string" && uri !== "" ? uri : model.name;
}

function extraArgs(engineArgs: DeploymentSpec["engineArgs"]): string[] {
  if (engineArgs === undefined) return [];
  if (Array.isArray(engineArgs)) return engineArgs;
  return Object.entries(engineArgs).flatMap(([key, value]) =>
    value === true ? [`--${key}`] : value === false ? [] : [`--${key}`, String(value)],
  );
}

function engineContainer(input: WorkloadInput): EngineContainer {
  const { model, spec } = input;
  const port = String(spec.port);
  const args = extraArgs(spec.engineArgs);
  switch (model.engine) {
    case "vllm":
      return {
        image: model.image ?? ENGINE_IMAGES.vllm,
        args: [
          "--model",
          modelSource(model),
          "--served-model-name",
          model.name,
          "--port",
          port,
          ...args,
        ],
        env: [],
        probePath: "/health",
      };
    case "tgi":
      return {
        image: model.image ?? ENGINE_IMAGES.tgi,
        args: ["--model-id", modelSource(model), "--port", port, ...args],
        env: [],
        probePath: "/health",
      };
    case "ollama":
      return {
        image: model.image ?? ENGINE_IMAGES.ollama,
        args,
        env: [{ name: "OLLAMA_HOST", value: `0.0.0.0:${port}` }],
        probePath: "/",
      };
    case "generic":
      return { image: model.image ?? "", args, env: [], probePath: undefined };
  }
}

/** requests/limits from spec.resources plus the GPU request: nvidia.com/gpu, or gpu.type when it names a resource. */
function resourceRequirements(spec: DeploymentSpec): {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
} {
  const asStrings = (map?: Record<string, string | number>): Record<string, string> | undefined =>
    map && Object.fromEntries(Object.entries(map).map(([k, v]) => [k, String(v)]));
  const requests = asStrings(spec.resources?.requests) ?? {};
  const limits = asStrings(spec.resources?.limits) ?? {};
  if (spec.gpu && spec.gpu.count > 0) {
    const resource = spec.gpu.type?.includes("/") ? spec.gpu.type : "nvidia.com/gpu";
    requests[resource] = String(spec.gpu.count);
    limits[resource] = String(spec.gpu.count);
  }
  return {
    ...(Object.keys(requests).length > 0 ? { requests } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
  };
}

/** Autoscaling is on when the CR gives a target and room to scale (maxReplicas > minReplicas). */
export function autoscaled(spec: DeploymentSpec): boolean {
  const min = spec.scaling?.minReplicas ?? 1;
  const max = spec.scaling?.maxReplicas ?? min;
  return spec.scaling?.targetConcurrency !== undefined && max > min;
}

export function buildAppsDeployment(input: WorkloadInput): KubeObject {
  const { spec, crName } = input;
  const name = workloadName(crName);
  const labels = workloadLabels(crName);
  const gpuType = spec.gpu?.type;
  const nodeSelector =
    spec.gpu && spec.gpu.count > 0 && gpuType && !gpuType.includes("/")
      ? { "nvidia.com/gpu.product": gpuType }
      : undefined;
  const podSpec = enginePodSpec({
    spec,
    model: input.model,
    engine: engineContainer(input),
    resources: resourceRequirements(spec),
    nodeSelector,
  });
  const templateMeta = spec.podTemplate?.metadata;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: input.namespace, labels, ownerReferences: ownerReference(input) },
    spec: {
      // With autoscaling on, the HorizontalPodAutoscaler owns replicas: the operator leaves them out.
      ...(autoscaled(spec) ? {} : { replicas: spec.scaling?.minReplicas ?? 1 }),
      selector: { matchLabels: { [DEPLOYMENT_LABEL]: crName } },
      progressDeadlineSeconds: spec.provisioningTimeoutSeconds,
      template: {
        metadata: {
          labels: { ...templateMeta?.labels, ...labels },
          annotations: { ...templateMeta?.annotations, [TEMPLATE_HASH]: templateHash(podSpec) },
        },
        spec: podSpec,
      },
    },
  };
}

/** Annotation on the pod template: pods of an older template are ignored when judging health. */
export const TEMPLATE_HASH = "evident.dev/template-hash";

function templateHash(podSpec: unknown): string {
  return createHash("sha256").update(JSON.stringify(podSpec)).digest("hex").slice(0, 16);
}

/** Default name of the engines' in-flight requests metric, as a custom metrics adapter serves it. */
export const DEFAULT_CONCURRENCY_METRIC = "evident_engine_requests_in_flight";

/**
 * autoscaling/v2 HorizontalPodAutoscaler between minReplicas and maxReplicas, on the average
 * in-flight requests per pod (a Pods metric a custom metrics adapter such as prometheus-adapter
 * serves from the engines' own metrics, see docs/operator.md).
 */
export function buildHpa(
  input: WorkloadInput,
  metricName = DEFAULT_CONCURRENCY_METRIC,
): KubeObject {
  const { spec } = input;
  const min = spec.scaling?.minReplicas ?? 1;
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: {
      name: workloadName(input.crName),
      namespace: input.namespace,
      labels: workloadLabels(input.crName),
      ownerReferences: ownerReference(input),
    },
    spec: {
      scaleTargetRef: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: workloadName(input.crName),
      },
      minReplicas: min,
      maxReplicas: Math.max(min, spec.scaling?.maxReplicas ?? min),
      metrics: [
        {
          type: "Pods",
          pods: {
            metric: { name: metricName },
            target: {
              type: "AverageValue",
              averageValue: String(spec.scaling?.targetConcurrency ?? 1),
            },
          },
        },
      ],
    },
  };
}

export function buildService(input: WorkloadInput): KubeObject {
  const name = workloadName(input.crName);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name,
      namespace: input.namespace,
      labels: workloadLabels(input.crName),
      ownerReferences: ownerReference(input),
    },
    spec: {
      type: "ClusterIP",
      selector: { [DEPLOYMENT_LABEL]: input.crName },
      ports: [
        { name: "http", port: input.spec.port, targetPort: input.spec.port, protocol: "TCP" },
      ],
    },
  };
}

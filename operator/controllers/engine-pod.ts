import type { DeploymentSpec, ModelSpec } from "../crd/specs.js";
import { isRecord } from "../kube/types.js";

/** Where the engine keeps downloaded weights; the caches of every engine point there. */
export const MODEL_CACHE_PATH = "/models";
const PROBE_PERIOD_SECONDS = 10;

export interface EngineContainer {
  image: string;
  args: string[];
  env: { name: string; value: string }[];
  probePath: string | undefined;
}

type Json = Record<string, unknown>;

/** Environment every engine gets: a writable HOME and caches on the model cache volume. */
function cacheEnv(model: ModelSpec): { name: string; value: string }[] {
  const env = [
    { name: "HOME", value: "/tmp" },
    { name: "HF_HOME", value: `${MODEL_CACHE_PATH}/huggingface` },
    { name: "HUGGINGFACE_HUB_CACHE", value: `${MODEL_CACHE_PATH}/huggingface/hub` },
    { name: "XDG_CACHE_HOME", value: `${MODEL_CACHE_PATH}/cache` },
  ];
  if (model.engine === "ollama")
    env.push({ name: "OLLAMA_MODELS", value: `${MODEL_CACHE_PATH}/ollama` });
  return env;
}

/** Engine env first, then the CR's env; a CR entry replaces an engine entry of the same name. */
function containerEnv(engine: EngineContainer, spec: DeploymentSpec, model: ModelSpec): Json[] {
  const own = spec.env ?? [];
  const names = new Set(own.map((e) => e.name));
  return [...engine.env, ...cacheEnv(model)]
    .filter((e) => !names.has(e.name))
    .concat(own.map((e) => ({ ...e })) as { name: string; value: string }[]);
}

function probe(
  engine: EngineContainer,
  port: number,
  failureThreshold: number,
  periodSeconds: number,
): Json {
  return {
    ...(engine.probePath === undefined
      ? { tcpSocket: { port } }
      : { httpGet: { path: engine.probePath, port } }),
    periodSeconds,
    failureThreshold,
  };
}

function cacheVolume(spec: DeploymentSpec): Json {
  const claim = spec.modelCache?.persistentVolumeClaim;
  if (claim) return { name: "model-cache", persistentVolumeClaim: { claimName: claim.claimName } };
  const sizeLimit = spec.modelCache?.emptyDir?.sizeLimit;
  return {
    name: "model-cache",
    emptyDir: sizeLimit === undefined ? {} : { sizeLimit: String(sizeLimit) },
  };
}

export interface PodInput {
  spec: DeploymentSpec;
  model: ModelSpec;
  engine: EngineContainer;
  resources: Json;
  nodeSelector: Record<string, string> | undefined;
}

/**
 * The engine's pod spec: a startupProbe sized to provisioningTimeoutSeconds (a slow download is
 * not a crash loop), then readiness and liveness; the model cache, a memory-backed /dev/shm and a
 * writable /tmp; a restrictive securityContext (non-root, no privilege escalation, no
 * capabilities, read-only root filesystem, RuntimeDefault seccomp); the CR's env, Secrets,
 * scheduling and pull secrets; finally the CR's podTemplate.spec merged on top.
 */
export function enginePodSpec(input: PodInput): Json {
  const { spec, engine } = input;
  const startupThreshold = Math.max(
    1,
    Math.ceil(spec.provisioningTimeoutSeconds / PROBE_PERIOD_SECONDS),
  );
  const container: Json = {
    name: "engine",
    image: engine.image,
    ...(engine.args.length > 0 ? { args: engine.args } : {}),
    env: containerEnv(engine, spec, input.model),
    ...(spec.envFrom ? { envFrom: spec.envFrom } : {}),
    ports: [{ name: "http", containerPort: spec.port, protocol: "TCP" }],
    resources: input.resources,
    startupProbe: probe(engine, spec.port, startupThreshold, PROBE_PERIOD_SECONDS),
    readinessProbe: probe(engine, spec.port, 3, PROBE_PERIOD_SECONDS),
    livenessProbe: probe(engine, spec.port, 6, 20),
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    },
    volumeMounts: [
      { name: "model-cache", mountPath: MODEL_CACHE_PATH },
      { name: "dshm", mountPath: "/dev/shm" },
      { name: "tmp", mountPath: "/tmp" },
    ],
  };
  const nodeSelector = { ...input.nodeSelector, ...spec.nodeSelector };
  const pod: Json = {
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      fsGroup: 1000,
      seccompProfile: { type: "RuntimeDefault" },
    },
    ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
    ...(spec.tolerations ? { tolerations: spec.tolerations } : {}),
    ...(spec.affinity ? { affinity: spec.affinity } : {}),
    ...(spec.priorityClassName ? { priorityClassName: spec.priorityClassName } : {}),
    ...(spec.imagePullSecrets ? { imagePullSecrets: spec.imagePullSecrets } : {}),
    containers: [container],
    volumes: [
      cacheVolume(spec),
      { name: "dshm", emptyDir: { medium: "Memory", sizeLimit: String(spec.shmSize) } },
      { name: "tmp", emptyDir: {} },
    ],
  };
  const override = spec.podTemplate?.spec;
  return override ? mergePodSpec(pod, override) : pod;
}

/** Objects merge key by key; containers, initContainers and volumes merge by name; other lists replace. */
export function mergePodSpec(base: Json, override: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    if (["containers", "initContainers", "volumes"].includes(key) && Array.isArray(value)) {
      out[key] = mergeByName(Array.isArray(current) ? current : [], value);
    } else if (isRecord(value) && isRecord(current)) out[key] = mergePodSpec(current, value);
    else out[key] = structuredClone(value);
  }
  return out;
}

function mergeByName(base: unknown[], override: unknown[]): unknown[] {
  const out = base.map((item) => (isRecord(item) ? { ...item } : item));
  for (const item of override) {
    const index = out.findIndex((b) => isRecord(b) && isRecord(item) && b.name === item.name);
    const current = out[index];
    if (index >= 0 && isRecord(current) && isRecord(item)) out[index] = mergePodSpec(current, item);
    else out.push(structuredClone(item));
  }
  return out;
}

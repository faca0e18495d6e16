import { isRecord, type KubeObject } from "../kube/types.js";

/** A replica in one of these states has failed (the kubelet's retries will not fix it). */
const FAILED_REPLICA_REASONS = new Set([
  "CrashLoopBackOff",
  "InvalidImageName",
  "CreateContainerConfigError",
]);
/** Transient: the kubelet retries pulls with its own backoff; only the deadline fails them. */
const RETRYING_REASONS = new Set(["ErrImagePull", "ImagePullBackOff"]);

export type WorkloadHealth =
  /** At least one replica is available: routable. */
  | { state: "available"; available: number }
  /** Starting, rolling out, or retrying a pull; `waiting` says why when a pod is stuck. */
  | { state: "progressing"; waiting?: { reason: string; message: string } }
  /** Every replica failed, or the rollout deadline passed. */
  | { state: "failed"; reason: string; message: string };

interface PodProblem {
  reason: string;
  message: string;
}

function podProblem(pod: KubeObject): PodProblem | undefined {
  const status = isRecord(pod.status) ? pod.status : {};
  const containers = [
    ...(Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses : []),
    ...(Array.isArray(status.containerStatuses) ? status.containerStatuses : []),
  ];
  for (const container of containers) {
    const waiting =
      isRecord(container) && isRecord(container.state) && isRecord(container.state.waiting)
        ? container.state.waiting
        : undefined;
    const reason = typeof waiting?.reason === "string" ? waiting.reason : undefined;
    if (reason && (FAILED_REPLICA_REASONS.has(reason) || RETRYING_REASONS.has(reason))) {
      const detail = typeof waiting?.message === "string" ? `: ${waiting.message}` : "";
      return { reason, message: `pod ${pod.metadata.name}: ${reason}${detail}`.slice(0, 500) };
    }
  }
  return undefined;
}

function isReady(pod: KubeObject): boolean {
  const status = isRecord(pod.status) ? pod.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  return conditions.some((c) => c.type === "Ready" && c.status === "True");
}

/**
 * Reads an apps/v1 Deployment's status and its current pods. Failed only when every current pod
 * has failed (crash loop, invalid image, bad container config) and none is ready, or when the
 * rollout deadline passed; one bad pod among serving ones, or an image pull the kubelet is still
 * retrying, is progress (with the reason shown), not failure.
 */
export function workloadHealth(
  appsDeployment: KubeObject | undefined,
  pods: readonly KubeObject[],
): WorkloadHealth {
  const problems = pods.map(podProblem);
  const failed = problems.filter((p) => p !== undefined && FAILED_REPLICA_REASONS.has(p.reason));
  if (pods.length > 0 && failed.length === pods.length && !pods.some(isReady)) {
    const first = failed[0] as PodProblem;
    return { state: "failed", reason: first.reason, message: first.message };
  }
  const status = appsDeployment && isRecord(appsDeployment.status) ? appsDeployment.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  const progressing = conditions.find((c) => c.type === "Progressing");
  const available = typeof status.availableReplicas === "number" ? status.availableReplicas : 0;
  if (progressing?.status === "False" && progressing.reason === "ProgressDeadlineExceeded") {
    if (available === 0)
      return {
        state: "failed",
        reason: "ProgressDeadlineExceeded",
        message: String(progressing.message ?? "rollout did not progress"),
      };
  }
  const observed = typeof status.observedGeneration === "number" ? status.observedGeneration : 0;
  const generation = appsDeployment?.metadata.generation ?? 0;
  const availableCondition = conditions.find((c) => c.type === "Available");
  if (
    appsDeployment &&
    observed >= generation &&
    available >= 1 &&
    availableCondition?.status !== "False"
  )
    return { state: "available", available };
  if (appsDeployment && available >= 1) return { state: "available", available };
  const waiting = problems.find((p) => p !== undefined);
  return waiting ? { state: "progressing", waiting } : { state: "progressing" };
}

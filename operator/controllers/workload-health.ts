import { isRecord, type KubeObject } from "../kube/types.js";

/** Container waiting reasons that will not fix themselves: the deployment is failed. */
const FATAL_WAITING_REASONS = new Set([
  "CrashLoopBackOff",
  "ImagePullBackOff",
  "ErrImagePull",
  "InvalidImageName",
  "CreateContainerConfigError",
]);

export type WorkloadHealth =
  | { state: "available" }
  | { state: "progressing" }
  | { state: "failed"; reason: string; message: string };

/** Reads an apps/v1 Deployment's status and its pods' container states. */
export function workloadHealth(
  appsDeployment: KubeObject | undefined,
  pods: readonly KubeObject[],
): WorkloadHealth {
  for (const pod of pods) {
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
      if (reason && FATAL_WAITING_REASONS.has(reason)) {
        const detail = typeof waiting?.message === "string" ? `: ${waiting.message}` : "";
        return {
          state: "failed",
          reason,
          message: `pod ${pod.metadata.name}: ${reason}${detail}`.slice(0, 500),
        };
      }
    }
  }
  if (!appsDeployment) return { state: "progressing" };
  const status = isRecord(appsDeployment.status) ? appsDeployment.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  const progressing = conditions.find((c) => c.type === "Progressing");
  if (progressing?.status === "False" && progressing.reason === "ProgressDeadlineExceeded") {
    return {
      state: "failed",
      reason: "ProgressDeadlineExceeded",
      message: String(progressing.message ?? "rollout did not progress"),
    };
  }
  const observed = typeof status.observedGeneration === "number" ? status.observedGeneration : 0;
  const generation = appsDeployment.metadata.generation ?? 0;
  const available = typeof status.availableReplicas === "number" ? status.availableReplicas : 0;
  const availableCondition = conditions.find((c) => c.type === "Available");
  if (observed >= generation && available >= 1 && availableCondition?.status !== "False")
    return { state: "available" };
  return { state: "progressing" };
}

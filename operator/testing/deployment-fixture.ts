import { DEPLOYMENTS, MODELS } from "../kube/resources.js";
import { MODEL_SPEC, ReconcileHarness } from "./reconcile-harness.js";

/** A Deployment CR spec for the model "llama", used by the Deployment controller's tests. */
export const DEPLOYMENT_SPEC = {
  modelRef: "llama",
  scaling: { minReplicas: 2, maxReplicas: 4, targetConcurrency: 8 },
  gpu: { count: 1 },
  resources: { requests: { cpu: "4", memory: "16Gi" } },
  port: 8000,
  provisioningTimeoutSeconds: 600,
};
export const WORKLOAD = "llama-serve-engine";

/** A harness with the Model "llama" applied and reconciled. */
export async function withModel(): Promise<ReconcileHarness> {
  const h = new ReconcileHarness();
  h.apply(MODELS, "llama", MODEL_SPEC);
  await h.reconcile(MODELS, "llama");
  return h;
}

/** The native deployment behind the Deployment CR "llama-serve". */
export function nativeOf(h: ReconcileHarness) {
  return h.native.deploymentStore.get(String(h.status(DEPLOYMENTS, "llama-serve").deploymentId));
}

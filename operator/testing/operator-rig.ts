/**
 * Test rig: the operator in-process against the fake Kubernetes API server (a test double) and any
 * native API: the fake one, or the real data plane in an end-to-end test. Apply CRs, play the
 * kube-controller-manager (workload availability), read status.
 *
 *   const rig = await startOperatorRig({ nativeUrl: dataPlaneUrl, adminKey,
 *     endpointTemplate: `${fakeUpstreamUrl}/v1` });   // running deployments route to the fake upstream
 *   rig.apply(MODELS, "llama", {...}); rig.apply(DEPLOYMENTS, "llama-serve", { modelRef: "llama" });
 *   await rig.until(() => rig.status(DEPLOYMENTS, "llama-serve").phase === "provisioning");
 *   rig.markWorkloadAvailable("llama-serve");
 *   await rig.until(() => rig.status(DEPLOYMENTS, "llama-serve").phase === "running");
 */
import { pino } from "pino";
import { FakeKubeApiServer } from "../../test/fakes/kube-apiserver.js";
import { workloadName } from "../controllers/deployment-workload.js";
import { ClientNodeKube } from "../kube/client-node-kube.js";
import { ALL_RESOURCES, APPS_DEPLOYMENTS, EVIDENT_API_VERSION } from "../kube/resources.js";
import { isRecord, type ResourceType } from "../kube/types.js";
import { httpNativeApi } from "../native/native-client.js";
import { startOperator, type RunningOperator } from "../operator.js";
import { systemClock } from "../runtime/clock.js";
import { OperatorMetrics } from "../runtime/metrics.js";

export interface OperatorRigOptions {
  nativeUrl: string;
  adminKey: string;
  endpointTemplate?: string;
  namespace?: string;
  resyncMs?: number;
  /** Lease duration; long by default so load never expires it in a test. */
  leaseDurationMs?: number;
}

export interface OperatorRig {
  readonly kubeServer: FakeKubeApiServer;
  readonly metrics: OperatorMetrics;
  readonly namespace: string;
  /** Starts one more operator replica (they elect a leader on a Lease). */
  startReplica(identity: string): RunningOperator;
  apply(resource: ResourceType, name: string, spec: unknown): void;
  remove(resource: ResourceType, name: string): void;
  status(resource: ResourceType, name: string): Record<string, unknown>;
  exists(resource: ResourceType, name: string): boolean;
  /** Plays kube-controller-manager: the engine workload of a Deployment CR becomes available. */
  markWorkloadAvailable(deploymentCr: string): void;
  until(condition: () => boolean, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startOperatorRig(options: OperatorRigOptions): Promise<OperatorRig> {
  const kubeServer = new FakeKubeApiServer(ALL_RESOURCES);
  await kubeServer.start();
  const namespace = options.namespace ?? "team-a";
  const metrics = new OperatorMetrics();
  const replicas: RunningOperator[] = [];
  const store = kubeServer.store;

  const rig: OperatorRig = {
    kubeServer,
    metrics,
    namespace,
    startReplica(identity) {
      const operator = startOperator({
        kube: new ClientNodeKube(kubeServer.kubeConfig()),
        native: httpNativeApi({ baseUrl: options.nativeUrl, apiKey: options.adminKey }),
        clock: systemClock,
        logger: pino({ level: "silent" }),
        metrics,
        watchNamespace: undefined,
        resyncMs: options.resyncMs ?? 400,
        identity,
        lease: {
          namespace: "evident-system",
          name: "evident-operator",
          durationMs: options.leaseDurationMs ?? 30_000,
          retryPeriodMs: 100,
        },
        backoff: { baseMs: 20, maxMs: 200, jitter: 0.5 },
        ...(options.endpointTemplate === undefined
          ? {}
          : { endpointTemplate: options.endpointTemplate }),
      });
      replicas.push(operator);
      return operator;
    },
    apply(resource, name, spec) {
      try {
        store.update(resource, namespace, name, (current) => ({
          ...current,
          spec: structuredClone(spec),
        }));
      } catch {
        store.create(resource, namespace, {
          apiVersion: EVIDENT_API_VERSION,
          kind: resource.kind,
          metadata: { name },
          spec,
        });
      }
    },
    remove(resource, name) {
      store.delete(resource, namespace, name);
    },
    status(resource, name) {
      try {
        const object = store.get(resource, namespace, name);
        return isRecord(object.status) ? object.status : {};
      } catch {
        return {};
      }
    },
    exists(resource, name) {
      return store.list(resource, namespace).items.some((o) => o.metadata.name === name);
    },
    markWorkloadAvailable(deploymentCr) {
      store.update(
        APPS_DEPLOYMENTS,
        namespace,
        workloadName(deploymentCr),
        (d) => ({
          ...d,
          status: {
            observedGeneration: d.metadata.generation,
            replicas: 1,
            availableReplicas: 1,
            conditions: [{ type: "Available", status: "True" }],
          },
        }),
        "status",
      );
    },
    async until(condition, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error("condition not reached in time");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop() {
      for (const operator of replicas) await operator.stop();
      await kubeServer.stop();
    },
  };
  return rig;
}

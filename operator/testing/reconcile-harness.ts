/**
 * Test harness: every controller wired to the in-memory API server double and the in-memory native
 * API double, with a manual clock. No I/O.
 */
import { pino } from "pino";
import { KubeApiStore } from "../../test/fakes/kube-apiserver-store.js";
import { MemoryKubeClient } from "../../test/fakes/kube-apiserver-memory-client.js";
import { deploymentController } from "../controllers/deployment.js";
import { guardrailRuleController } from "../controllers/guardrail-rule.js";
import { legalHoldController } from "../controllers/legal-hold.js";
import { modelController } from "../controllers/model.js";
import { kubeModelClaimants } from "../controllers/model-ownership.js";
import { routeController } from "../controllers/route.js";
import {
  ALL_RESOURCES,
  APPS_DEPLOYMENTS,
  EVENTS,
  EVIDENT_API_VERSION,
  PODS,
} from "../kube/resources.js";
import { workloadLabels } from "../controllers/deployment-workload.js";
import { isRecord, type KubeObject, type ResourceType } from "../kube/types.js";
import { ManualClock } from "../runtime/clock.js";
import type { Controller } from "../runtime/controller.js";
import { EventRecorder } from "../runtime/event-recorder.js";
import { reconcileObject, type ReconcileOutcome } from "../runtime/reconciler.js";
import { MemoryNativeApi } from "./memory-native-api.js";

export const NS = "team-a";

export class ReconcileHarness {
  readonly clock = new ManualClock();
  readonly store = new KubeApiStore(ALL_RESOURCES, 1000, () => new Date(this.clock.now()));
  readonly kube = new MemoryKubeClient(this.store);
  readonly native = new MemoryNativeApi();
  readonly logger = pino({ level: "silent" });
  readonly events = new EventRecorder(this.kube, this.clock, this.logger, "test");
  private readonly controllers = new Map<string, Controller<unknown>>(
    (
      [
        modelController(this.native, kubeModelClaimants(this.kube, undefined)),
        deploymentController(this.native, this.kube),
        routeController(this.native),
        guardrailRuleController(this.native),
        legalHoldController(this.native),
      ] as Controller<unknown>[]
    ).map((c) => [c.resource.kind, c]),
  );

  controller(kind: string): Controller<unknown> {
    const controller = this.controllers.get(kind);
    if (!controller) throw new Error(`no controller ${kind}`);
    return controller;
  }

  /** kubectl apply: create, or replace the spec of an existing object. */
  apply(resource: ResourceType, name: string, spec: unknown, namespace = NS): KubeObject {
    try {
      return this.store.update(resource, namespace, name, (current) => ({
        ...current,
        spec: structuredClone(spec),
      }));
    } catch {
      return this.store.create(resource, namespace, {
        apiVersion: EVIDENT_API_VERSION,
        kind: resource.kind,
        metadata: { name, namespace },
        spec: structuredClone(spec),
      });
    }
  }

  reconcile(resource: ResourceType, name: string, namespace = NS): Promise<ReconcileOutcome> {
    const events = new EventRecorder(this.kube, this.clock, this.logger, "test");
    return reconcileObject(
      this.controller(resource.kind),
      { kube: this.kube, clock: this.clock, logger: this.logger, events },
      namespace,
      name,
    );
  }

  get(resource: ResourceType, name: string, namespace = NS): KubeObject | undefined {
    try {
      return this.store.get(resource, namespace, name);
    } catch {
      return undefined;
    }
  }

  status(resource: ResourceType, name: string, namespace = NS): Record<string, unknown> {
    const status = this.get(resource, name, namespace)?.status;
    return isRecord(status) ? status : {};
  }

  condition(
    resource: ResourceType,
    name: string,
    type: string,
  ): { status: string; reason: string; message: string; observedGeneration?: number } | undefined {
    const conditions = this.status(resource, name).conditions;
    if (!Array.isArray(conditions)) return undefined;
    return conditions.find((c) => isRecord(c) && c.type === type);
  }

  /** Reasons of the Events recorded about an object, oldest first. */
  eventReasons(name: string): string[] {
    return this.store
      .list(EVENTS, NS)
      .items.filter((e) => isRecord(e.regarding) && e.regarding.name === name)
      .map((e) => String(e.reason));
  }

  /** Plays kube-controller-manager: the engine's apps/v1 Deployment reports available replicas. */
  markWorkloadAvailable(workload: string): void {
    this.store.update(
      APPS_DEPLOYMENTS,
      NS,
      workload,
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
  }

  /** Plays the kubelet: a pod of the current template whose container waits with reason. */
  addPod(workload: string, crName: string, waitingReason?: string, ready = false): string {
    const apps = this.store.get(APPS_DEPLOYMENTS, NS, workload);
    const template = isRecord(apps.spec) && isRecord(apps.spec.template) ? apps.spec.template : {};
    const metadata = isRecord(template.metadata) ? template.metadata : {};
    const annotations = isRecord(metadata.annotations)
      ? (metadata.annotations as Record<string, string>)
      : {};
    const pod = this.store.create(PODS, NS, {
      metadata: {
        name: `${workload}-${this.store.currentResourceVersion()}`,
        namespace: NS,
        labels: workloadLabels(crName),
        annotations,
      },
    });
    this.store.update(PODS, NS, pod.metadata.name, (p) => ({
      ...p,
      status: {
        containerStatuses: [
          {
            name: "engine",
            ready: false,
            state: waitingReason
              ? { waiting: { reason: waitingReason, message: "back-off restarting" } }
              : { running: {} },
          },
        ],
        conditions: [{ type: "Ready", status: ready ? "True" : "False" }],
      },
    }));
    return pod.metadata.name;
  }

  delete(resource: ResourceType, name: string, namespace = NS): void {
    this.store.delete(resource, namespace, name);
  }
}

export const MODEL_SPEC = {
  name: "llama-3-8b",
  version: "1",
  modality: "text",
  engine: "vllm",
  requiredTier: "pro",
  aliases: ["llama"],
  pricing: { inputPer1k: 0.1, outputPer1k: 0.2 },
  engineArtifacts: { modelUri: "meta-llama/Meta-Llama-3-8B-Instruct" },
};

import type { Logger } from "pino";
import { GatewayError } from "../dataplane/core/errors.js";
import { bindToNamespaceCustomer, type CustomerBinding } from "./controllers/customer-binding.js";
import { deploymentController } from "./controllers/deployment.js";
import { guardrailRuleController } from "./controllers/guardrail-rule.js";
import { legalHoldController } from "./controllers/legal-hold.js";
import { modelController } from "./controllers/model.js";
import { kubeModelClaimants } from "./controllers/model-ownership.js";
import { routeController } from "./controllers/route.js";
import type { KubeClient } from "./kube/kube-client.js";
import {
  APPS_DEPLOYMENTS,
  DEPLOYMENT_LABEL,
  DEPLOYMENTS,
  MANAGED_BY,
  MODELS,
  PODS,
} from "./kube/resources.js";
import { isRecord, type KubeObject, type ResourceType } from "./kube/types.js";
import type { NativeApi } from "./native/native-api.js";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "./runtime/backoff.js";
import type { Clock } from "./runtime/clock.js";
import type { Controller } from "./runtime/controller.js";
import { EventRecorder } from "./runtime/event-recorder.js";
import { Informer } from "./runtime/informer.js";
import { LeaderElector } from "./runtime/leader-election.js";
import type { OperatorMetrics } from "./runtime/metrics.js";
import { reconcileObject } from "./runtime/reconciler.js";
import { WorkQueue } from "./runtime/work-queue.js";

export interface OperatorOptions {
  kube: KubeClient;
  native: NativeApi;
  clock: Clock;
  logger: Logger;
  metrics: OperatorMetrics;
  /** Only this namespace; undefined watches all namespaces. */
  watchNamespace: string | undefined;
  resyncMs: number;
  identity: string;
  /** undefined: no leader election, this replica always reconciles (single replica only). */
  lease: { namespace: string; name: string; durationMs: number; retryPeriodMs: number } | undefined;
  concurrency?: number;
  backoff?: BackoffPolicy;
  /** endpoint_url template for running deployments; see deployment-workload.ts. */
  endpointTemplate?: string;
  /** Custom metric the engines' HorizontalPodAutoscalers scale on. */
  concurrencyMetric?: string;
  /** Namespace -> customer binding for Route, GuardrailRule and LegalHold; undefined: not enforced. */
  customerBinding?: CustomerBinding;
}

export interface RunningOperator {
  readonly isLeader: boolean;
  ready(): boolean;
  /** Resolves when no key is queued or running (delayed retries excluded). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Wires informers -> one work queue keyed by kind/namespace/name -> one controller per CRD. All
 * replicas keep their caches warm; only the Lease holder's queue runs.
 */
export function startOperator(options: OperatorOptions): RunningOperator {
  const { kube, native, clock, logger, metrics } = options;
  const recorder = new EventRecorder(kube, clock, logger, options.identity);
  const controllers = new Map<string, Controller<unknown>>();
  for (const controller of [
    modelController(native, kubeModelClaimants(kube, options.watchNamespace)),
    deploymentController(native, kube, options.endpointTemplate, options.concurrencyMetric),
    ...[routeController(native), guardrailRuleController(native), legalHoldController(native)].map(
      (c) => {
        const binding = options.customerBinding;
        return binding ? bindToNamespaceCustomer(c as Controller<unknown>, binding) : c;
      },
    ),
  ] as Controller<unknown>[]) {
    controllers.set(controller.resource.kind, controller);
  }

  const queue = new WorkQueue({
    clock,
    concurrency: options.concurrency ?? 4,
    backoff: options.backoff ?? DEFAULT_BACKOFF,
    handler: async (key) => {
      const [kind = "", namespace = "", name = ""] = key.split("/");
      const controller = controllers.get(kind);
      if (!controller) return;
      const end = metrics.reconcileDuration.startTimer({ kind });
      try {
        const outcome = await reconcileObject(
          controller,
          { kube, clock, logger, events: recorder },
          namespace,
          name,
        );
        metrics.reconcileTotal.inc({
          kind,
          result: outcome.requeueAfterMs === undefined ? "success" : "requeue",
        });
        return outcome;
      } finally {
        end();
        metrics.queueDepth.set(queue.depth());
      }
    },
    onError: (key, err, attempt, retryInMs) => {
      const kind = key.split("/")[0] ?? "";
      metrics.reconcileTotal.inc({ kind, result: "error" });
      if (err instanceof GatewayError) metrics.nativeErrors.inc({ kind, code: err.code });
      logger.warn(
        { key, attempt, retryInMs, err: err instanceof Error ? err.message : String(err) },
        "reconcile failed; will retry",
      );
    },
  });

  const enqueue = (kind: string, object: KubeObject): void => {
    queue.add(`${kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`);
    metrics.queueDepth.set(queue.depth());
  };

  const informerFor = (
    resource: ResourceType,
    onChange: (object: KubeObject) => void,
    labelSelector?: string,
  ): Informer =>
    new Informer({
      kube,
      resource,
      namespace: options.watchNamespace,
      labelSelector,
      clock,
      logger,
      resyncMs: options.resyncMs,
      backoff: { baseMs: 500, maxMs: 30_000, jitter: 0.5 },
      onChange: (object) => onChange(object),
      onWatchRestart: (reason) => metrics.watchRestarts.inc({ resource: resource.plural, reason }),
    });

  const deploymentInformer = informerFor(DEPLOYMENTS, (o) => enqueue("Deployment", o));
  const modelInformer = informerFor(MODELS, (model) => {
    enqueue("Model", model);
    // A Deployment waits for its Model's id: wake the ones that reference this Model.
    for (const deployment of deploymentInformer.list()) {
      const spec = isRecord(deployment.spec) ? deployment.spec : {};
      if (
        deployment.metadata.namespace === model.metadata.namespace &&
        spec.modelRef === model.metadata.name
      ) {
        enqueue("Deployment", deployment);
      }
    }
  });
  const customInformers: [string, Informer][] = [
    ["Model", modelInformer],
    ["Deployment", deploymentInformer],
    ...(["Route", "GuardrailRule", "LegalHold"] as const).map((kind): [string, Informer] => {
      const controller = controllers.get(kind);
      if (!controller) throw new Error(`no controller for ${kind}`);
      return [kind, informerFor(controller.resource, (o) => enqueue(kind, o))];
    }),
  ];
  // Workload changes wake the owning Deployment CR.
  const workloadInformers = [APPS_DEPLOYMENTS, PODS].map((resource) =>
    informerFor(
      resource,
      (o) => {
        const owner = o.metadata.labels?.[DEPLOYMENT_LABEL];
        if (owner)
          enqueue("Deployment", { metadata: { name: owner, namespace: o.metadata.namespace } });
      },
      `app.kubernetes.io/managed-by=${MANAGED_BY}`,
    ),
  );
  const informers = [...customInformers.map(([, informer]) => informer), ...workloadInformers];

  let leading = false;
  const startedLeading = (): void => {
    leading = true;
    metrics.isLeader.set(1);
    // Catch up on everything the cache holds: a new leader reconciles the world once.
    for (const [kind, informer] of customInformers)
      for (const object of informer.list()) enqueue(kind, object);
    queue.resume();
  };
  const lease = options.lease;
  const elector =
    lease &&
    new LeaderElector({
      kube,
      clock,
      logger,
      namespace: lease.namespace,
      leaseName: lease.name,
      identity: options.identity,
      leaseDurationMs: lease.durationMs,
      retryPeriodMs: lease.retryPeriodMs,
      onStartedLeading: startedLeading,
      onStoppedLeading: () => {
        leading = false;
        metrics.isLeader.set(0);
        queue.pause();
      },
    });

  for (const informer of informers) informer.start();
  if (elector) elector.start();
  else startedLeading();

  return {
    get isLeader() {
      return leading;
    },
    ready: () => informers.every((i) => i.hasSynced),
    idle: () => queue.idle(),
    async stop() {
      for (const informer of informers) informer.stop();
      queue.pause();
      await queue.idle();
      await queue.shutdown();
      await elector?.release();
    },
  };
}

import type { AnyRouteSpec } from "../adapters/http/route-table.js";
import { analyticsRoutes } from "../adapters/http/routes/analytics.js";
import { AnalyticsService } from "../analytics/analytics-service.js";
import { capacityReport, InFlightTracker } from "../analytics/capacity.js";
import { observedStage } from "../analytics/observed-stage.js";
import { recordedCall, RollupRecorder } from "../analytics/rollup-recorder.js";
import type { Clock } from "../core/clock.js";
import type { PipelineStage } from "../core/pipeline.js";
import type { CallMetrics } from "../observability/call-metrics.js";
import type { Logger } from "../observability/logger.js";
import type { RoutingTableHolder } from "../routing/routing-loader.js";
import type { TargetHealth } from "../routing/target-health.js";
import { AnalyticsRepository } from "../store/analytics-repository.js";
import type { BackendRepository } from "../store/backend-repository.js";
import type { Database } from "../store/database.js";
import type { DeploymentRepository } from "../store/deployment-repository.js";
import { CallState } from "../core/call-state.js";

export interface AnalyticsDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  flushMs: number;
  deployments: DeploymentRepository;
  backends: BackendRepository;
  routing: RoutingTableHolder;
  health: TargetHealth;
  metrics: CallMetrics;
}

/** Rollups recorded as calls finish, the analytics and capacity endpoints, in-flight counts. */
export function buildAnalytics(deps: AnalyticsDeps) {
  const repo = new AnalyticsRepository(deps.db);
  const recorder = new RollupRecorder(repo, (err) =>
    deps.logger.warn(
      { err: String(err) },
      "could not write analytics rollups; kept for next flush",
    ),
  );
  recorder.start(deps.flushMs);
  const tracker = new InFlightTracker();
  const service = new AnalyticsService(repo, deps.clock);
  const capacityDeps = {
    deployments: () =>
      deps.deployments.list(
        { statuses: ["pending", "provisioning", "running", "failed"] },
        { limit: 1000, offset: 0 },
      ),
    backends: (customerId: string | null) => deps.backends.list(customerId),
    modelName: (modelId: string) =>
      deps.routing.current.globalModels.find((m) => m.model?.id === modelId)?.name,
    healthy: (id: string) => deps.health.isHealthy(id),
    tracker,
  };
  const metered = new CallState<number>("metered");
  deps.metrics.countInFlight(() => tracker.total());
  return {
    recorder,
    tracker,
    /** The route stage, counting a call in flight once routed. */
    routeStage: (stage: PipelineStage) =>
      observedStage(stage, {
        admitted: (call) => {
          tracker.begin(call);
        },
      }),
    /** The meter stage, recording each call into the rollups and metrics once metered. */
    meterStage: (stage: PipelineStage) =>
      observedStage(stage, {
        finished: (call) => {
          const now = deps.clock.now();
          metered.set(call, now);
          tracker.end(call);
          const recorded = recordedCall(call, now);
          recorder.record(recorded);
          deps.metrics.observe(call, recorded.latencyMs);
        },
      }),
    /** The audit stage, measuring how long after the call its record became durable. */
    auditStage: (stage: PipelineStage) =>
      observedStage(stage, {
        finished: (call) => {
          const from = metered.get(call);
          if (from !== undefined) deps.metrics.auditLag((deps.clock.now() - from) / 1000);
        },
      }),
    routes: (): AnyRouteSpec[] =>
      analyticsRoutes(service, (caller) => capacityReport(capacityDeps, caller)),
    close: () => recorder.stop(),
  };
}

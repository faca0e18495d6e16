import { Gauge } from "prom-client";
import type { AnyRouteSpec } from "../adapters/http/route-table.js";
import { budgetRoutes } from "../adapters/http/routes/budget.js";
import { recommendationRoutes } from "../adapters/http/routes/recommendations.js";
import type { Config } from "../config/config.js";
import type { Clock } from "../core/clock.js";
import type { Caller } from "../core/identity.js";
import type { PipelineStage } from "../core/pipeline.js";
import { BudgetSettingsCache } from "../limits/budget-settings-cache.js";
import { budgetStatus } from "../limits/budget-status.js";
import { CarriedSpend } from "../limits/carried-spend.js";
import { limitStage, refusalError } from "../limits/limit-stage.js";
import { managementLimitKey, managementLimits } from "../limits/limit-keys.js";
import { meterStage } from "../limits/meter-stage.js";
import { openLimits } from "../limits/open-limits.js";
import { recommendationsFor } from "../limits/recommendations.js";
import { UsageMeter } from "../limits/usage-meter.js";
import type { Logger } from "../observability/logger.js";
import type { Metrics } from "../observability/metrics.js";
import { BudgetRepository } from "../store/budget-repository.js";
import type { Database } from "../store/database.js";
import type { RedisConnection } from "../store/redis-connection.js";
import { UsageRepository } from "../store/usage-repository.js";
import type { AppContext } from "./context.js";

export interface LimitsDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  db: Database;
  redis: RedisConnection | undefined;
}

/** Rate limits, token metering and budgets, as the app wires them in. */
export interface LimitsWiring {
  /** The pipeline's limit stage (admit before forwarding; settle after the call). */
  stage: PipelineStage;
  /** The meter stage (budget reservation, usage and cost aggregation). */
  meter: PipelineStage;
  /** Native routes: budget status/config, recommendations. */
  routes(ctx: AppContext): AnyRouteSpec[];
  /** Per-key limit on the management API; throws a 429 GatewayError when exceeded. */
  checkManagement(caller: Caller): Promise<Record<string, string>>;
  /** Writes metered usage not yet stored (tests, shutdown). */
  flushUsage(): Promise<void>;
  close(): Promise<void>;
}

export async function buildLimits(deps: LimitsDeps): Promise<LimitsWiring> {
  const { config, clock, logger } = deps;
  const degraded = new Gauge({
    name: "evident_rate_limit_degraded",
    help: "Whether rate limits are decided without the shared store (1 while Redis is unreachable)",
    registers: [deps.metrics.registry],
  });
  degraded.set(0);
  const { rateLimiter, budgets: ledger } = openLimits({
    redis: deps.redis,
    clock,
    failMode: config.RATE_LIMIT_FAIL_MODE,
    expectedReplicas: config.EXPECTED_REPLICAS,
    onDegradedChange: (on) => degraded.set(on ? 1 : 0),
    logger: {
      warn: (fields, message) => logger.warn(fields, message),
      info: (message) => logger.info(message),
    },
  });
  const budgetRepo = new BudgetRepository(deps.db);
  const usageRepo = new UsageRepository(deps.db);
  const settings = new BudgetSettingsCache(budgetRepo, clock, config.LIMITS_CONFIG_TTL_MS);
  const carried = new CarriedSpend(usageRepo, ledger, clock, config.LIMITS_CONFIG_TTL_MS);
  const meter = new UsageMeter(usageRepo, (err) =>
    logger.warn({ err: String(err) }, "could not write usage records; kept for the next flush"),
  );
  meter.start(config.USAGE_FLUSH_MS);
  const statusDeps = { budgets: budgetRepo, usage: usageRepo, ledger, meter, clock };
  const management = managementLimits(config.MANAGEMENT_RPM);

  return {
    stage: limitStage({
      limiter: rateLimiter,
      settings,
      defaultMaxTokens: config.DEFAULT_MAX_TOKENS,
      batchShare: config.BATCH_LIMIT_SHARE,
    }),
    meter: meterStage({
      ledger,
      settings,
      carried,
      meter,
      defaultMaxTokens: config.DEFAULT_MAX_TOKENS,
      failClosed: config.RATE_LIMIT_FAIL_MODE === "closed",
      logger,
      now: () => clock.now(),
    }),
    routes: (ctx) => [
      ...budgetRoutes(ctx, {
        status: (id) => budgetStatus(statusDeps, id),
        config: (id) => budgetRepo.get(id),
        async saveConfig(b) {
          await budgetRepo.put(b);
          settings.invalidate(b.customerId);
        },
      }),
      ...recommendationRoutes(ctx, (caller, windowDays) =>
        recommendationsFor(
          {
            usage: usageRepo,
            models: () => ctx.routing.current.globalModels,
            status: (id) => budgetStatus(statusDeps, id),
            now: () => clock.now(),
          },
          caller,
          windowDays,
        ),
      ),
    ],
    async checkManagement(caller) {
      // Admin keys are the platform's own automation (the operator, GitOps) and may already do
      // anything: the per-key limit protects the store from customers' keys.
      if (caller.key.role === "admin") return {};
      const admission = await rateLimiter.admit(managementLimitKey(caller.key.id), management, 0);
      if (!admission.allowed) throw refusalError(admission, management, 0);
      return { ...admission.headers };
    },
    flushUsage: () => meter.flush(),
    async close() {
      await meter.stop();
      deps.metrics.registry.removeSingleMetric("evident_rate_limit_degraded");
    },
  };
}

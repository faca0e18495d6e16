import type { AnyRouteSpec } from "../adapters/http/route-table.js";
import type { Config } from "../config/config.js";
import type { Clock } from "../core/clock.js";
import type { Caller } from "../core/identity.js";
import { passThroughStage, type PipelineStage } from "../core/pipeline.js";
import type { Logger } from "../observability/logger.js";
import type { Metrics } from "../observability/metrics.js";
import type { Database } from "../store/database.js";
import type { RedisConnection } from "../store/redis-connection.js";
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
  /** The meter stage (usage and cost aggregation), after the response. */
  meter: PipelineStage;
  /** Native routes: budget status/config, recommendations. */
  routes(ctx: AppContext): AnyRouteSpec[];
  /** Per-key limit on the management API; throws a 429 GatewayError when exceeded. */
  checkManagement(caller: Caller): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function buildLimits(_deps: LimitsDeps): Promise<LimitsWiring> {
  return {
    stage: passThroughStage("limit"),
    meter: passThroughStage("meter"),
    routes: () => [],
    checkManagement: async () => ({}),
    close: async () => undefined,
  };
}

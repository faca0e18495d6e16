import type { AccountService } from "../accounts/account-service.js";
import type { Broadcast } from "../broadcast/broadcast.js";
import type { Config } from "../config/config.js";
import type { Authenticator } from "../core/authenticator.js";
import type { Clock } from "../core/clock.js";
import type { AuditLog } from "../audit/audit-log.js";
import type { RetentionSweeper } from "../audit/retention-sweeper.js";
import type { Pipeline } from "../core/pipeline.js";
import type { AuditRepository } from "../store/audit-repository.js";
import type { RetentionRepository } from "../store/retention-repository.js";
import type { GuardrailRepository } from "../store/guardrail-repository.js";
import type { ExportRepository } from "../store/export-repository.js";
import type { RouteRepository } from "../store/route-repository.js";
import type { BatchRepository } from "../store/batch-repository.js";
import type { FileRepository } from "../store/file-repository.js";
import type { ExportJobs } from "../audit/export-jobs.js";
import type { GuardConfigService } from "../guardrails/enforcement/guard-config.js";
import type { Logger } from "../observability/logger.js";
import type { BackendService } from "../registry/backend-service.js";
import type { DeploymentService } from "../registry/deployment-service.js";
import type { ModelService } from "../registry/model-service.js";
import type { RoutingTableHolder } from "../routing/routing-loader.js";
import type { TargetHealth } from "../routing/target-health.js";
import type { UpstreamClient } from "../upstream/upstream-client.js";
import type { Metrics } from "../observability/metrics.js";
import type { ApiKeyRepository } from "../store/api-key-repository.js";
import type { CustomerRepository } from "../store/customer-repository.js";
import type { Database } from "../store/database.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { PromptService } from "../prompts/prompt-service.js";
import type { CacheConfigService } from "../cache/cache-config.js";
import type { CacheRepository } from "../store/cache-repository.js";
import type { RagService } from "../rag/rag-service.js";

/** A named readiness condition; /readyz is 200 only when every one holds. */
export type ReadinessCheck = () => Promise<boolean> | boolean;

/** Everything a request handler may use, built once at start and passed in. */
export interface AppContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  db: Database;
  redis: RedisConnection | undefined;
  broadcast: Broadcast;
  repos: {
    customers: CustomerRepository;
    apiKeys: ApiKeyRepository;
    audit: AuditRepository;
    retention: RetentionRepository;
    guardrails: GuardrailRepository;
    exports: ExportRepository;
    routes: RouteRepository;
    files: FileRepository;
    batches: BatchRepository;
  };
  exportJobs: ExportJobs;
  guardConfig: GuardConfigService;
  audit: AuditLog;
  sweeper: RetentionSweeper;
  authenticator: Authenticator;
  accounts: AccountService;
  registry: { models: ModelService; deployments: DeploymentService; backends: BackendService };
  routing: RoutingTableHolder;
  health: TargetHealth;
  upstream: UpstreamClient;
  pipeline: Pipeline;
  readiness: Map<string, ReadinessCheck>;
  startedAt: number;
  prompts: PromptService;
  responseCache: { repo: CacheRepository; configs: CacheConfigService };
  rag: RagService;
}

import type { FastifyInstance } from "fastify";
import { buildHttpServer } from "../adapters/http/server.js";
import type { Config } from "../config/config.js";
import { systemClock, type Clock } from "../core/clock.js";
import { createLogger, type Logger } from "../observability/logger.js";
import { createMetrics } from "../observability/metrics.js";
import { isMigrated, migrate } from "../store/migrate.js";
import { Pipeline } from "../core/pipeline.js";
import { BackendService } from "../registry/backend-service.js";
import { DeploymentService } from "../registry/deployment-service.js";
import { ModelService } from "../registry/model-service.js";
import { routeStage } from "../routing/route-stage.js";
import { RoutingTableHolder } from "../routing/routing-loader.js";
import { TargetHealth } from "../routing/target-health.js";
import { loadCredentialCipher } from "../secrets/credential-cipher.js";
import { BackendRepository } from "../store/backend-repository.js";
import { DeploymentRepository } from "../store/deployment-repository.js";
import { ModelRepository } from "../store/model-repository.js";
import { UpstreamClient } from "../upstream/upstream-client.js";
import { DestinationPolicy } from "../upstream/destination-policy.js";
import { HOP_LABEL } from "../upstream/hop-marker.js";
import { buildLimits } from "./limits-wiring.js";
import { buildAudit } from "./audit-wiring.js";
import { buildAuth } from "./auth-wiring.js";
import { allRoutes } from "./http-routes.js";
import { MemoryConcurrencyCap, withConcurrencyCap } from "../limits/concurrency-cap.js";
import { RedisConcurrencyCap } from "../limits/redis-concurrency-cap.js";
import { GuardConfigService } from "../guardrails/enforcement/guard-config.js";
import { guardStages } from "../guardrails/enforcement/guard-stages.js";
import { GuardrailRepository } from "../store/guardrail-repository.js";
import { ExportJobs } from "../audit/export-jobs.js";
import { ExportRepository } from "../store/export-repository.js";
import { RouteRepository } from "../store/route-repository.js";
import { VERSION } from "../adapters/http/routes/system.js";
import type { AppContext, ReadinessCheck } from "./context.js";
import { openStores, type Stores } from "./open-stores.js";
import { buildAnalytics } from "./analytics-wiring.js";
import { createTracing, traced } from "../observability/tracing.js";
import { PromptService } from "../prompts/prompt-service.js";
import { PromptFeedbackRepository } from "../store/prompt-feedback-repository.js";
import { PromptRepository } from "../store/prompt-repository.js";
import { CacheRepository } from "../store/cache-repository.js";
import { CacheConfigService } from "../cache/cache-config.js";
import { cacheStage, startExpirySweep } from "../cache/cache-stage.js";
import { policyVersionOf } from "../cache/cache-key.js";
import { pipelineEmbedder } from "../adapters/http/compat/cache-embedding-call.js";
import { BatchRepository } from "../store/batch-repository.js";
import { FileRepository } from "../store/file-repository.js";
import { buildBatchRunner } from "./batch-wiring.js";
import { buildRag } from "./rag-wiring.js";
import { attachRealtime } from "../adapters/http/realtime-upgrade.js";
import { CLOSE } from "../realtime/realtime-sockets.js";

export interface App {
  ctx: AppContext;
  http: FastifyInstance;
  /** The admin key generated on first start, to be shown once; undefined otherwise. */
  generatedAdminKey: string | undefined;
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: Logger;
  clock?: Clock;
  /** Open stores from here instead of from config (tests share one embedded database). */
  stores?: Stores;
}

/** Opens the stores, migrates, bootstraps the admin key and builds the REST façade. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const clock = options.clock ?? systemClock;
  const stores = options.stores ?? (await openStores(config, logger));
  const { db, redis, broadcast } = stores;
  await migrate(db);

  const auth = await buildAuth({ config, clock, logger, db, broadcast });
  const { customers, apiKeys, authenticator, accounts } = auth;

  const models = new ModelRepository(db);
  const deployments = new DeploymentRepository(db);
  const backends = new BackendRepository(db);
  const cipher = await loadCredentialCipher(config.EVIDENT_ENCRYPTION_KEY, config.DATA_DIR);
  const routeRepo = new RouteRepository(db);
  const routing = new RoutingTableHolder(
    { models, deployments, backends, cipher, routes: routeRepo },
    broadcast,
    config.ROUTING_RELOAD_MS,
    (err) => logger.warn({ err: String(err) }, "routing table reload failed"),
  );
  await routing.start();
  const health = new TargetHealth(clock);
  const tracing = config.OTEL_EXPORTER_OTLP_ENDPOINT
    ? createTracing({
        endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
        serviceName: config.OTEL_SERVICE_NAME,
        serviceVersion: VERSION,
      })
    : undefined;
  const upstream = new UpstreamClient({
    connectMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
    bodyMs: config.UPSTREAM_BODY_TIMEOUT_MS,
    // The per-customer cap, not the pool, is what one tenant runs into.
    connections: Math.max(
      config.UPSTREAM_POOL_CONNECTIONS,
      2 * Math.max(...Object.values(config.CUSTOMER_CONCURRENCY)),
    ),
    policy: new DestinationPolicy(config.UPSTREAM_ALLOWED_CIDRS),
    hopToken: cipher.derive(HOP_LABEL),
    onFailure: (target, reason) => logger.warn({ target, reason }, "upstream attempt failed"),
    observer: tracing?.upstream,
  });
  const metrics = createMetrics();
  const auditing = await buildAudit({ config, clock, logger, metrics, db });
  const {
    repo: auditRepo,
    retention: retentionRepo,
    writer,
    log: audit,
    signer,
    sweeper,
  } = auditing;

  const guardrailRepo = new GuardrailRepository(db);
  const guardConfig = new GuardConfigService(guardrailRepo, broadcast, clock);
  const exportRepo = new ExportRepository(db);
  const exportJobs = new ExportJobs(
    exportRepo,
    auditRepo,
    retentionRepo,
    signer,
    async (customerId) => ({
      guardrails: await guardConfig.policy(customerId),
      rules: (await guardrailRepo.rules(customerId)).map((r) => ({ id: r.id, ...r.definition })),
      retention: await retentionRepo.settings(customerId),
      legal_holds: await retentionRepo.holds(customerId),
    }),
    clock,
    logger,
    VERSION,
    () => writer.caughtUp(),
  );
  exportJobs.start();
  const stopGuardConfig = await guardConfig.start();
  const limits = await buildLimits({ config, clock, logger, metrics, db, redis });
  const concurrency = redis
    ? new RedisConcurrencyCap(redis, config.CUSTOMER_CONCURRENCY, logger)
    : new MemoryConcurrencyCap(config.CUSTOMER_CONCURRENCY);
  const guards = guardStages(guardConfig, { routing, health, upstream });
  const analytics = buildAnalytics({
    db,
    clock,
    logger,
    flushMs: config.USAGE_FLUSH_MS,
    deployments,
    backends,
    routing,
    health,
    metrics: metrics.calls,
  });
  const cacheRepo = new CacheRepository(db);
  const semanticSearch = await cacheRepo.prepareVectors();
  logger.info({ semantic_search: semanticSearch }, "response cache ready");
  const cacheConfigs = new CacheConfigService(cacheRepo, broadcast, clock);
  const stopCacheConfigs = await cacheConfigs.start();
  const stopCacheSweep = startExpirySweep(cacheRepo, clock, logger, 60_000);
  const pipeline = new Pipeline({
    limit: traced(tracing, withConcurrencyCap(limits.stage, concurrency), "evident.limits"),
    guardRequest: traced(tracing, guards.request, "evident.guardrails.request"),
    route: traced(tracing, analytics.routeStage(routeStage(routing, health)), "evident.routing"),
    cache: traced(
      tracing,
      cacheStage({
        repo: cacheRepo,
        configs: cacheConfigs,
        policyVersion: async (call) => {
          const c = await guardConfig.forCall(call.caller.customer.id, call.caller.key.id);
          return policyVersionOf(c.policy, c.rules);
        },
        // The embedding is a call of its own through this pipeline (ctx exists by the first call).
        embed: pipelineEmbedder(() => ctx),
        clock,
        logger,
      }),
      "evident.cache",
    ),
    guardResponse: traced(tracing, guards.response, "evident.guardrails.response"),
    meter: traced(tracing, analytics.meterStage(limits.meter), "evident.meter"),
    audit: traced(tracing, analytics.auditStage(audit.stage()), "evident.audit", true),
  });
  // Only a lone call's audit write is waited for actively (active-wait.ts).
  writer.waitActivelyWhen(() => pipeline.callsInProgress <= 1);

  const rag = await buildRag(
    { db, config, clock, logger, apiKeys, customers, guardConfig },
    () => ctx,
  );
  const ctx: AppContext = {
    config,
    clock,
    logger,
    metrics,
    db,
    redis,
    broadcast,
    repos: {
      customers,
      apiKeys,
      audit: auditRepo,
      retention: retentionRepo,
      guardrails: guardrailRepo,
      exports: exportRepo,
      routes: routeRepo,
      files: new FileRepository(db),
      batches: new BatchRepository(db),
    },
    exportJobs,
    guardConfig,
    audit,
    sweeper,
    authenticator,
    accounts,
    registry: {
      models: new ModelService(models, deployments, routing),
      deployments: new DeploymentService(deployments, models, routing),
      backends: new BackendService(backends, cipher, routing),
    },
    routing,
    health,
    upstream,
    pipeline,
    readiness: new Map<string, ReadinessCheck>([
      ["store", () => db.ping()],
      ["migrated", () => isMigrated(db)],
      ["routing", () => routing.loaded],
      ["audit", () => !writer.saturated],
    ]),
    startedAt: clock.now(),
    prompts: new PromptService(new PromptRepository(db), new PromptFeedbackRepository(db)),
    responseCache: { repo: cacheRepo, configs: cacheConfigs },
    rag: rag.service,
  };

  const inventory = async () => {
    const [m, d] = await Promise.all([models.countByStatus(), deployments.countByStatus()]);
    const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    const targets = routing.current.globalModels.flatMap((x) => x.targets.map((t) => t.id));
    return {
      models: { total: sum(m), by_status: m },
      deployments: { total: sum(d), by_status: d },
      backends: health.snapshot(targets),
    };
  };
  const batchRunner = buildBatchRunner(ctx);
  const routes = allRoutes(ctx, {
    inventory,
    limitRoutes: limits.routes,
    analyticsRoutes: analytics.routes,
    batchRunner,
  });
  const http = buildHttpServer(ctx, routes, limits.checkManagement);
  const realtime = attachRealtime(ctx, http.server);
  auth.start();
  // Records left in the local log by a crash, and start-up's own, reach the store before serving.
  await writer.caughtUp();
  batchRunner.start();
  rag.worker.start();

  return {
    ctx,
    http,
    generatedAdminKey: auth.generatedAdminKey,
    async close() {
      realtime.closeAll(CLOSE.goingAway, "gateway shutting down");
      await http.close();
      await batchRunner.stop();
      await rag.worker.stop();
      await rag.extraction.close();
      await routing.stop();
      await upstream.close();
      await exportJobs.stop();
      await auditing.close();
      await limits.close();
      await analytics.close();
      await tracing?.shutdown().catch(() => undefined);
      await concurrency.close();
      stopCacheSweep();
      await stopCacheConfigs().catch(() => undefined);
      await stopGuardConfig().catch(() => undefined);
      await auth.close();
      if (!options.stores) {
        await broadcast.close();
        await redis?.close();
        await db.close();
      }
    },
  };
}

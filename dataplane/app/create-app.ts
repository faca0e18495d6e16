import type { FastifyInstance } from "fastify";
import {
  AccountService,
  applyAuthInvalidation,
  AUTH_CHANNEL,
} from "../accounts/account-service.js";
import { buildOpenApi, openApiDocumentSchema } from "../adapters/http/openapi.js";
import { accountRoutes } from "../adapters/http/routes/accounts.js";
import { systemRoutes } from "../adapters/http/routes/system.js";
import { route, type AnyRouteSpec } from "../adapters/http/route-table.js";
import { buildHttpServer } from "../adapters/http/server.js";
import type { Config } from "../config/config.js";
import { Authenticator } from "../core/authenticator.js";
import { systemClock, type Clock } from "../core/clock.js";
import { createLogger, type Logger } from "../observability/logger.js";
import { createMetrics } from "../observability/metrics.js";
import { withAdvisoryLock } from "../store/advisory-lock.js";
import { ApiKeyRepository } from "../store/api-key-repository.js";
import { CustomerRepository } from "../store/customer-repository.js";
import { storeKeyDirectory } from "../store/key-directory.js";
import { KeyUsageRecorder } from "../store/key-usage-recorder.js";
import { isMigrated, migrate } from "../store/migrate.js";
import { compatRoutes } from "../adapters/http/routes/compat.js";
import { backendRoutes } from "../adapters/http/routes/backends.js";
import { deploymentRoutes } from "../adapters/http/routes/deployments.js";
import { modelRoutes } from "../adapters/http/routes/models.js";
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
import { auditRoutes } from "../adapters/http/routes/audit.js";
import { AuditLog } from "../audit/audit-log.js";
import { AuditSpool } from "../audit/audit-spool.js";
import { AuditWriter } from "../audit/audit-writer.js";
import { AuditIngester } from "../audit/audit-ingester.js";
import { AuditQuarantineRepository } from "../store/audit-quarantine-repository.js";
import { loadCheckpointSigner } from "../audit/checkpoint-signer.js";
import { RetentionSweeper } from "../audit/retention-sweeper.js";
import { AuditRepository } from "../store/audit-repository.js";
import { RetentionRepository } from "../store/retention-repository.js";
import path from "node:path";
import { Gauge } from "prom-client";
import { buildLimits } from "./limits-wiring.js";
import { MemoryConcurrencyCap, withConcurrencyCap } from "../limits/concurrency-cap.js";
import { RedisConcurrencyCap } from "../limits/redis-concurrency-cap.js";
import { guardrailRoutes } from "../adapters/http/routes/guardrails.js";
import { GuardConfigService } from "../guardrails/enforcement/guard-config.js";
import { guardStages } from "../guardrails/enforcement/guard-stages.js";
import { GuardrailRepository } from "../store/guardrail-repository.js";
import { exportRoutes } from "../adapters/http/routes/exports.js";
import { routeRoutes } from "../adapters/http/routes/routes.js";
import { ExportJobs } from "../audit/export-jobs.js";
import { ExportRepository } from "../store/export-repository.js";
import { RouteRepository } from "../store/route-repository.js";
import { VERSION } from "../adapters/http/routes/system.js";
import type { AppContext, ReadinessCheck } from "./context.js";
import { openStores, type Stores } from "./open-stores.js";
import { buildAnalytics } from "./analytics-wiring.js";
import { createTracing, traced } from "../observability/tracing.js";
import { promptRoutes } from "../adapters/http/routes/prompts.js";
import { cacheRoutes } from "../adapters/http/routes/cache.js";
import { ragSearchRoutes } from "../adapters/http/routes/rag-search.js";
import { PromptService } from "../prompts/prompt-service.js";
import { PromptFeedbackRepository } from "../store/prompt-feedback-repository.js";
import { PromptRepository } from "../store/prompt-repository.js";
import { CacheRepository } from "../store/cache-repository.js";
import { CacheConfigService } from "../cache/cache-config.js";
import { cacheStage, startExpirySweep } from "../cache/cache-stage.js";
import { policyVersionOf } from "../cache/cache-key.js";
import { pipelineEmbedder } from "../adapters/http/compat/cache-embedding-call.js";
import { batchRoutes } from "../adapters/http/routes/batches.js";
import { fileRoutes } from "../adapters/http/routes/files.js";
import { BatchRepository } from "../store/batch-repository.js";
import { FileRepository } from "../store/file-repository.js";
import { buildBatchRunner } from "./batch-wiring.js";
import { buildRag } from "./rag-wiring.js";
import { ragCollectionRoutes } from "../adapters/http/routes/rag-collections.js";
import { ragDocumentRoutes } from "../adapters/http/routes/rag-documents.js";
import { attachRealtime } from "../adapters/http/realtime-upgrade.js";
import { realtimeRoutes } from "../adapters/http/routes/realtime.js";
import { CLOSE } from "../realtime/realtime-session.js";

const BOOTSTRAP_LOCK_ID = 7_314_620_002;

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

  const customers = new CustomerRepository(db);
  const apiKeys = new ApiKeyRepository(db);
  const usage = new KeyUsageRecorder(apiKeys, 30_000, (err) =>
    logger.warn({ err: String(err) }, "could not record key use"),
  );
  const authenticator = new Authenticator({
    directory: storeKeyDirectory(apiKeys, customers),
    clock,
    ttlMs: config.AUTH_CACHE_TTL_MS,
    onUse: (id) => usage.record(id),
  });
  const accounts = new AccountService(customers, apiKeys, authenticator, broadcast);
  const unsubscribe = await broadcast.subscribe(AUTH_CHANNEL, (message) => {
    try {
      applyAuthInvalidation(authenticator, JSON.parse(message));
    } catch {
      authenticator.clear();
    }
  });

  const { generated, restored } = await withAdvisoryLock(db, BOOTSTRAP_LOCK_ID, () =>
    accounts.bootstrapAdmin(config.EVIDENT_ADMIN_KEY),
  );
  if (restored) logger.warn("the bootstrap admin key (EVIDENT_ADMIN_KEY) was revoked; restored");

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
  const auditRepo = new AuditRepository(db);
  const retentionRepo = new RetentionRepository(db);
  const spool = await AuditSpool.open(
    config.AUDIT_SPOOL_DIR ?? path.resolve(config.DATA_DIR, "audit-spool"),
    config.AUDIT_SPOOL_MAX_BYTES,
  );
  const spoolDir = config.AUDIT_SPOOL_DIR ?? path.resolve(config.DATA_DIR, "audit-spool");
  const ingester = new AuditIngester(
    db,
    auditRepo,
    new AuditQuarantineRepository(db),
    spool,
    spoolDir,
    logger,
    {
      batchBytes: 512 * 1024,
      retryMs: 50,
      maxRetryMs: 1_000,
      // Under load, one store transaction per ~10 ms of records rather than per group commit.
      lingerMs: 10,
      onQuarantine: () => metrics.auditQuarantined.inc(),
    },
  );
  const writer = new AuditWriter(db, auditRepo, spool, ingester, logger, {
    durability: config.AUDIT_DURABILITY,
    maxBatch: 500,
    brokenMs: 1_000,
  });
  writer.start();
  new Gauge({
    name: "evident_audit_log_backlog_bytes",
    help: "Bytes of audit records in the local log not yet in the store",
    registers: [metrics.registry],
    collect() {
      this.set(spool.backlogBytes);
    },
  });
  const signer = await loadCheckpointSigner(config.EVIDENT_AUDIT_SIGNING_KEY, config.DATA_DIR);
  const audit = new AuditLog(writer, auditRepo, retentionRepo, signer, clock, logger);
  audit.startCheckpoints(config.AUDIT_CHECKPOINT_INTERVAL_MS);
  const sweeper = new RetentionSweeper(db, auditRepo, retentionRepo, clock, logger);
  sweeper.start(config.RETENTION_SWEEP_INTERVAL_MS);

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
  const routes: AnyRouteSpec[] = [
    ...systemRoutes(ctx, inventory),
    ...accountRoutes(ctx),
    ...modelRoutes(ctx),
    ...deploymentRoutes(ctx),
    ...backendRoutes(ctx),
    ...compatRoutes(ctx),
    ...auditRoutes(ctx),
    ...guardrailRoutes(ctx),
    ...exportRoutes(ctx),
    ...routeRoutes(ctx),
    ...limits.routes(ctx),
    ...analytics.routes(),
    ...promptRoutes(ctx),
    ...cacheRoutes(ctx),
    ...ragSearchRoutes(ctx),
    ...fileRoutes(ctx),
    ...batchRoutes(ctx, batchRunner),
    ...ragCollectionRoutes(ctx),
    ...ragDocumentRoutes(ctx),
    ...realtimeRoutes(),
  ];
  const openApiRoute = route({
    method: "GET",
    path: "/openapi.json",
    tag: "meta",
    summary: "This API's OpenAPI description (version 0.1.0)",
    responses: { 200: { description: "OpenAPI 3 document", schema: openApiDocumentSchema } },
    handler: async () => ({ status: 200, body: document }),
  });
  routes.push(openApiRoute);
  const document = buildOpenApi(routes);
  const http = buildHttpServer(ctx, routes, limits.checkManagement);
  const realtime = attachRealtime(ctx, http.server);
  usage.start();
  // Records left in the local log by a crash, and start-up's own, reach the store before serving.
  await writer.caughtUp();
  batchRunner.start();
  rag.worker.start();

  return {
    ctx,
    http,
    generatedAdminKey: generated,
    async close() {
      realtime.closeAll(CLOSE.goingAway, "gateway shutting down");
      await http.close();
      await batchRunner.stop();
      await rag.worker.stop();
      await rag.extraction.close();
      await usage.stop();
      await routing.stop();
      await upstream.close();
      audit.stopCheckpoints();
      sweeper.stop();
      await exportJobs.stop();
      await writer.stop(config.SHUTDOWN_GRACE_MS);
      await limits.close();
      await analytics.close();
      await tracing?.shutdown().catch(() => undefined);
      await concurrency.close();
      stopCacheSweep();
      await stopCacheConfigs().catch(() => undefined);
      await stopGuardConfig().catch(() => undefined);
      await unsubscribe().catch(() => undefined);
      if (!options.stores) {
        await broadcast.close();
        await redis?.close();
        await db.close();
      }
    },
  };
}

import { ConfigError, loadConfigFromProcess, type Config } from "./config/config.js";
import { createApp } from "./app/create-app.js";
import { createLogger } from "./observability/logger.js";
import { startGrpcServer } from "./adapters/grpc/start-grpc.js";
import { startMetricsServer } from "./observability/metrics-server.js";
import { drainAndClose } from "./app/graceful-shutdown.js";
import { installProcessGuards } from "./observability/process-guards.js";

/** `npm start`: the data plane as one process on its configured (or embedded) stores. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfigFromProcess();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`evident: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const app = await createApp(config, { logger });
  installProcessGuards(logger, app.ctx.metrics.escapedErrors);
  await app.http.listen({ port: config.PORT, host: config.HOST });
  const grpc = await startGrpcServer(app.ctx, config.GRPC_PORT, config.HOST, {
    failureMode: config.ENVOY_FAILURE_MODE,
    removeAuthorizationIn: config.ENVOY_REMOVE_AUTHORIZATION_IN,
    decisionTimeoutMs: config.ENVOY_DECISION_TIMEOUT_MS,
  });
  const metricsServer =
    config.METRICS_PORT === undefined
      ? undefined
      : await startMetricsServer(app.ctx.metrics.registry, config.METRICS_PORT, config.HOST);
  const address = app.http.server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;

  if (app.generatedAdminKey) {
    // Shown once, on the terminal only: the store keeps just its hash.
    process.stderr.write(
      [
        "",
        "  No admin key existed, so one was generated. It is shown only this once:",
        "",
        `    ${app.generatedAdminKey}`,
        "",
        "  Keep it safe (set EVIDENT_ADMIN_KEY to choose your own).",
        `  Try: curl -H "Authorization: Bearer <key>" http://localhost:${port}/api/v1/health`,
        "",
        "",
      ].join("\n"),
    );
  }

  logger.info(
    {
      port,
      grpc_port: grpc?.port ?? null,
      metrics_port: metricsServer?.port ?? null,
      store: app.ctx.db.kind,
      shared_state: app.ctx.redis ? "redis" : "memory",
    },
    "evident listening",
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Ctrl-C in a terminal stops at once; SIGTERM (a rollout) drains first.
    const drainDelayMs = signal === "SIGTERM" ? config.SHUTDOWN_DRAIN_DELAY_MS : 0;
    logger.info({ signal }, "shutting down: draining in-flight requests");
    const force = setTimeout(() => {
      logger.warn("drain timed out; exiting");
      process.exit(1);
    }, drainDelayMs + config.SHUTDOWN_GRACE_MS);
    force.unref();
    drainAndClose({
      readiness: app.ctx.readiness,
      drainDelayMs,
      closeGrpc: async () => grpc?.close(),
      closeApp: async () => {
        await metricsServer?.close();
        await app.close();
      },
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      logger,
    })
      .then(() => {
        logger.info("stopped");
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err: String(err) }, "error during shutdown");
        process.exit(1);
      });
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((err: unknown) => {
  process.stderr.write(
    `evident: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
